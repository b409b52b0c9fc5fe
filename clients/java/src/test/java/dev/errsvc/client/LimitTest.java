package dev.errsvc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.Struct;
import com.google.protobuf.Timestamp;
import com.google.protobuf.Value;
import dev.errsvc.v1.Classification;
import dev.errsvc.v1.LabbyError;
import dev.errsvc.v1.Limit;
import dev.errsvc.v1.TranslateResponse;
import java.io.IOException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Decide.limitOf on every golden answer and on hand-made answers (no server needed). */
class LimitTest {
  @Test
  void agreesWithIsRetryableOnEveryGoldenAnswer() throws IOException {
    int n = 0;
    for (DecideTest.Case c : DecideTest.cases()) {
      Decide.Limit l = Decide.limitOf(c.resp());
      if (l == null) {
        continue;
      }
      n++;
      assertEquals(!Decide.isRetryable(c.resp()), l.decision().equals(Wire.LimitDecision.STOP_AND_TELL_A_PERSON), c.name());
      assertTrue(!l.scope().isEmpty(), c.name());
    }
    assertTrue(n > 0, "no golden answer carries a limit");
  }

  private static TranslateResponse withLimit(String cls, Limit l) {
    return TranslateResponse.newBuilder().setClassification(Classification.newBuilder().setClass_(cls)).setLimit(l).build();
  }

  @Test
  void readsTheTargetAndTheLabbyDetail() {
    Decide.Limit l = Decide.limitOf(withLimit("transient", Limit.newBuilder().setKind("rate").setDimension("tokens")
        .setScope("organization").setResetAt(Timestamp.newBuilder().setSeconds(1748779560L)).setRemaining(0).setLimit(30000)
        .setDecision("wait_until_reset").build()));
    assertNotNull(l);
    assertEquals(new Decide.Limit("rate", "tokens", "organization", Instant.parse("2025-06-01T12:06:00Z"), 0L, 30000L, "wait_until_reset"), l);

    Struct inner = Struct.newBuilder()
        .putFields("kind", Value.newBuilder().setStringValue("rate").build())
        .putFields("scope", Value.newBuilder().setStringValue("model").build())
        .putFields("reset_at", Value.newBuilder().setStringValue("2025-06-01T12:00:17Z").build())
        .putFields("limit", Value.newBuilder().setNumberValue(250000).build())
        .build();
    TranslateResponse detail = TranslateResponse.newBuilder()
        .setClassification(Classification.newBuilder().setClass_("transient"))
        .setLabbyError(LabbyError.newBuilder().setKind("rate_limited")
            .setDetail(Struct.newBuilder().putFields("limit", Value.newBuilder().setStructValue(inner).build())))
        .build();
    assertEquals(new Decide.Limit("rate", "", "model", Instant.parse("2025-06-01T12:00:17Z"), null, 250000L, "wait_until_reset"),
        Decide.limitOf(detail));
  }

  @Test
  void derivesTheDecision() {
    assertEquals("stop_and_tell_a_person", Decide.limitOf(withLimit("permanent", Limit.newBuilder().setKind("spend").build())).decision());
    assertEquals("fail_over", Decide.limitOf(withLimit("transient", Limit.newBuilder().setKind("capacity").build())).decision());
    assertEquals("reduce_concurrency",
        Decide.limitOf(withLimit("transient", Limit.newBuilder().setKind("concurrency").setDecision("a-newer-decision").build())).decision());
    Decide.Limit u = Decide.limitOf(withLimit("transient", Limit.newBuilder().setKind("burst").build()));
    assertEquals("burst", u.kind());
    assertEquals("unknown", u.scope());
    assertEquals("wait_until_reset", u.decision());
    assertNull(Decide.limitOf(TranslateResponse.newBuilder().setClassification(Classification.newBuilder().setClass_("permanent")).build()));
  }
}
