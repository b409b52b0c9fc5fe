package dev.errsvc.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import com.google.gson.GsonBuilder;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.Any;
import com.google.protobuf.Value;
import com.google.rpc.RetryInfo;
import dev.errsvc.v1.LabbyError;
import dev.errsvc.v1.TranslateResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The decision helpers on every golden vector's response and every case of
 * clients/testdata/decision-cases.json: properties that follow from the contracts, answers the
 * contracts pin, and the records clients/test.sh compares with the other SDKs'.
 */
class DecideTest {
  record Case(String name, TranslateResponse resp) {}

  static List<Case> cases() throws IOException {
    List<Case> out = new ArrayList<>();
    for (Vectors.Vector v : Vectors.all()) {
      if (v.want() != null) {
        out.add(new Case(v.name(), v.want()));
      }
    }
    Path file = Vectors.goldenDir().getParent().getParent().resolve("clients/testdata/decision-cases.json");
    JsonObject root = JsonParser.parseString(Files.readString(file, StandardCharsets.UTF_8)).getAsJsonObject();
    for (JsonElement c : root.getAsJsonArray("cases")) {
      JsonObject o = c.getAsJsonObject();
      String name = o.get("name").getAsString();
      out.add(new Case("case." + name,
          Vectors.parse(o.get("response"), TranslateResponse.newBuilder(), "decision case " + name).build()));
    }
    return out;
  }

  static @Nullable Double ms(@Nullable Duration d) {
    return d == null ? null : d.getSeconds() * 1000.0 + d.getNano() / 1e6;
  }

  /** What every SDK writes for one case; clients/scripts/compare_decisions.py compares them field by field. */
  static Map<String, Object> record(TranslateResponse resp) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("retryable", Decide.isRetryable(resp));
    r.put("retry_after_ms", ms(Decide.retryAfter(resp)));
    r.put("retry_after_ms_cap_10s", ms(Decide.retryAfter(resp, Duration.ofSeconds(10))));
    r.put("retry_after_ms_uncapped", ms(Decide.retryAfter(resp, null)));
    r.put("reauthenticate", Decide.shouldReauthenticate(resp));
    r.put("same_arguments_safe", Decide.sameArgumentsSafe(resp, false));
    r.put("same_arguments_safe_idempotent", Decide.sameArgumentsSafe(resp, true));
    r.put("error", null);
    StatusRuntimeException err = Decide.toStatusException(resp);
    if (err != null) {
      // Read back as a grpc-java caller would.
      com.google.rpc.Status st = StatusProto.fromThrowable(err);
      Map<String, Object> e = new LinkedHashMap<>();
      e.put("code", err.getStatus().getCode().value());
      e.put("message", err.getStatus().getDescription() == null ? "" : err.getStatus().getDescription());
      List<String> details = new ArrayList<>();
      for (Any d : st.getDetailsList()) {
        details.add(d.getTypeUrl().substring(d.getTypeUrl().lastIndexOf('/') + 1));
      }
      e.put("details", details);
      r.put("error", e);
    }
    return r;
  }

  @Test
  void enoughCases() throws IOException {
    assertTrue(cases().size() > 500, "only " + cases().size() + " cases");
  }

  /**
   * Writes every helper's answer for every case to $ERRSVC_DECISIONS_DIR/java.json, which
   * clients/test.sh compares with the Go, Python and TypeScript SDKs' files.
   */
  @Test
  void recordsWritten() throws IOException {
    Map<String, Object> out = new LinkedHashMap<>();
    for (Case c : cases()) {
      out.put(c.name(), record(c.resp()));
    }
    String dir = System.getenv("ERRSVC_DECISIONS_DIR");
    if (dir == null || dir.isEmpty()) {
      return; // clients/test.sh sets it
    }
    String sdk = "java";
    Map<String, Object> file = new LinkedHashMap<>();
    file.put("sdk", sdk);
    file.put("cases", out);
    Files.writeString(Path.of(dir, sdk + ".json"),
        new GsonBuilder().serializeNulls().setPrettyPrinting().create().toJson(file), StandardCharsets.UTF_8);
  }

  static final Set<String> HALTED = Set.of("permanent", "auth_required", "context_overflow", "auth");

  /** Properties that follow from the contracts rather than from the code, whatever the precedence inside. */
  @TestFactory
  Stream<DynamicTest> properties() throws IOException {
    return cases().stream().map(c -> dynamicTest(c.name(), () -> checkProperties(c.resp())));
  }

  static void checkProperties(TranslateResponse resp) {
    boolean retryable = Decide.isRetryable(resp);
    String cls = resp.getClassification().getClass_();
    if (retryable) {
      assertFalse(HALTED.contains(cls), "retryable with class " + cls);
      assertFalse(resp.hasError(), "an item error (no translation) is retryable");
      String action = resp.getLabbyError().getRecovery().getAction();
      String retry = resp.getAgentError().getRetry();
      assertTrue(action.equals("retry_later") || retry.equals("yes") || retry.equals("after-delay")
          || resp.getCodeModeError().getRecovery().getAction().equals("retry_later") || cls.equals("transient"),
          "retryable, but no field advises a retry");
    }
    Duration wait = Decide.retryAfter(resp, null);
    assertEquals(retryable, wait != null, "retryAfter without a cap against isRetryable");
    if (wait != null) {
      assertFalse(wait.isNegative());
      List<Duration> stated = statedWaits(resp);
      if (stated.isEmpty()) {
        assertEquals(Duration.ZERO, wait, "a wait with no wait stated");
      } else {
        assertTrue(stated.contains(wait), "wait " + wait + " is none of the stated waits " + stated);
      }
      // The cap: at the wait it retries, below it fails fast.
      assertEquals(wait, Decide.retryAfter(resp, wait));
      if (!wait.isZero()) {
        assertNull(Decide.retryAfter(resp, wait.minusNanos(1)), "a wait past the cap was accepted");
      }
    }
    boolean reauth = Decide.shouldReauthenticate(resp);
    assertFalse(reauth && retryable, "both reauthenticate and retry unchanged");
    if (cls.equals("auth_required")) {
      assertTrue(reauth, "auth_required does not ask to reauthenticate");
    }
    boolean safe = Decide.sameArgumentsSafe(resp, false);
    boolean safeIdem = Decide.sameArgumentsSafe(resp, true);
    assertFalse(safe && !safeIdem, "safe for a non-idempotent call but not for an idempotent one");
    String same = resp.getLabbyError().getRecovery().getSameArguments();
    assertFalse(safeIdem && (same.equals("never") || same.equals("discouraged")),
        "same arguments safe although the envelope says " + same);
    checkStatusError(resp);
  }

  static List<Duration> statedWaits(TranslateResponse resp) {
    List<Duration> out = new ArrayList<>();
    if (resp.getClassification().hasRetryAfterSecs()) {
      out.add(Duration.ofSeconds(Integer.toUnsignedLong(resp.getClassification().getRetryAfterSecs())));
    }
    for (LabbyError le : List.of(resp.getLabbyError(), resp.getCodeModeError())) {
      if (le.getRecovery().hasRetryAfterMs()) {
        out.add(Duration.ofMillis(Integer.toUnsignedLong(le.getRecovery().getRetryAfterMs())));
      }
    }
    Value v = resp.getAgentError().getDetails().getFieldsMap().get("retryAfterMs");
    if (v != null && v.getKindCase() == Value.KindCase.NUMBER_VALUE) {
      out.add(Duration.ofNanos((long) (v.getNumberValue() * 1e6)));
    }
    for (RetryInfo ri : ErrsvcException.unpack(resp.getGrpcStatus(), RetryInfo.class)) {
      Duration d = Duration.ofSeconds(ri.getRetryDelay().getSeconds(), ri.getRetryDelay().getNanos());
      out.add(d.isNegative() ? Duration.ZERO : d);
    }
    return out;
  }

  /** The grpc_status conversion: code, message and details intact, read back as a grpc-java caller would. */
  static void checkStatusError(TranslateResponse resp) {
    StatusRuntimeException err = Decide.toStatusException(resp);
    com.google.rpc.Status gs = resp.getGrpcStatus();
    if (!resp.hasGrpcStatus() || gs.getCode() == 0) {
      assertNull(err, "a status error for a response without a failing grpc_status");
      assertNull(Decide.toException(resp));
      return;
    }
    assertNotNull(err);
    Status.Code want = gs.getCode() > 16 || gs.getCode() < 0 ? Status.Code.UNKNOWN : Status.fromCodeValue(gs.getCode()).getCode();
    assertEquals(want, err.getStatus().getCode());
    assertEquals(gs.getMessage(), err.getStatus().getDescription() == null ? "" : err.getStatus().getDescription());
    com.google.rpc.Status back = StatusProto.fromThrowable(err);
    assertNotNull(back);
    assertEquals(gs.getDetailsList(), back.getDetailsList(), "details differ");
    ErrsvcException ex = Decide.toException(resp);
    assertNotNull(ex);
    assertEquals(want, ex.getCode());
    assertEquals(ErrsvcException.Kind.TRANSLATED, ex.getKind());
  }

  record Want(boolean retryable, @Nullable Duration waitFor, boolean reauth, boolean safe) {}

  /** What the contracts say for real-shaped answers (the same table as the Go, Python and TypeScript tests). */
  @TestFactory
  Stream<DynamicTest> behaviour() throws IOException {
    Map<String, TranslateResponse> byName = new LinkedHashMap<>();
    for (Case c : cases()) {
      byName.put(c.name(), c.resp());
    }
    Map<String, Want> table = new LinkedHashMap<>();
    // A rate limit waits its Retry-After and repeats the same call.
    table.put("provider.openai-429-rpm-retry-after", new Want(true, Duration.ofSeconds(1), false, true));
    table.put("labby.retry_after.rate_limited", new Want(true, Duration.ofMillis(2500), false, true));
    // Billing exhaustion looks like a 429 but no wait fixes it.
    table.put("provider.openai-429-insufficient-quota", new Want(false, null, false, false));
    // A wait past the cap fails fast.
    table.put("provider.generic-429-body-text-go-duration", new Want(true, null, false, true));
    // A timeout of a call that is not idempotent: verify state first.
    table.put("rule.timeout_not_idempotent", new Want(false, null, false, false));
    // The caller's own recovery wins over the kind's row.
    table.put("rule.caller_recovery_wins", new Want(false, null, false, false));
    // auth_required and its alias pause for a login; a 403 does not.
    table.put("agent.code.NOT_AUTHENTICATED", new Want(false, null, true, false));
    table.put("rule.auth_alias", new Want(false, null, true, false));
    table.put("agent.code.NOT_AUTHORIZED", new Want(false, null, false, false));
    // Only the class was asked for: the class decides.
    table.put("rule.targets_subset", new Want(true, Duration.ZERO, false, false));
    // The most precise wait wins over the rounded-up seconds.
    table.put("rule.rate_limited_fraction_ms", new Want(true, Duration.ofMillis(21), false, true));
    table.put("case.auth_alias_class", new Want(false, null, true, false));
    table.put("case.agent_only_yes", new Want(true, Duration.ZERO, false, true));
    table.put("case.wait_at_cap_exactly", new Want(true, Duration.ofSeconds(10), false, false));
    table.put("case.item_error", new Want(false, null, false, false));
    table.put("case.agent_only_after_delay_number", new Want(true, Duration.ofMillis(1250).plusNanos(500_000), false, false));
    table.put("case.agent_only_after_delay_string_wait", new Want(true, Duration.ZERO, false, false));
    table.put("case.negative_retry_info", new Want(true, Duration.ZERO, false, false));
    table.put("case.retry_info_only", new Want(true, Duration.ofMillis(2500), false, false));
    table.put("case.wait_over_default_cap", new Want(true, null, false, true));
    return table.entrySet().stream().map(e -> dynamicTest(e.getKey(), () -> {
      TranslateResponse resp = byName.get(e.getKey());
      if (resp == null) {
        fail("no vector or case " + e.getKey());
      }
      Decide.Decision d = Decide.decide(resp);
      assertEquals(e.getValue(), new Want(d.retryable(), d.retryAfter(), d.reauthenticate(), d.sameArgumentsSafe()));
    }));
  }

  @Test
  void unknownCodeBecomesUnknown() throws IOException {
    TranslateResponse resp = cases().stream().filter(c -> c.name().equals("case.grpc_status_unknown_code"))
        .findFirst().orElseThrow().resp();
    StatusRuntimeException err = Decide.toStatusException(resp);
    assertNotNull(err);
    assertEquals(Status.Code.UNKNOWN, err.getStatus().getCode());
    assertEquals("from the future", err.getStatus().getDescription());
  }

  @Test
  void negativeCapIsNoCap() throws IOException {
    TranslateResponse resp = cases().stream().filter(c -> c.name().equals("case.wait_over_default_cap"))
        .findFirst().orElseThrow().resp();
    assertNull(Decide.retryAfter(resp));
    assertEquals(Duration.ofMinutes(10), Decide.retryAfter(resp, Duration.ofSeconds(-1)));
    assertEquals(Duration.ofMinutes(10), Decide.retryAfter(resp, null));
  }

  @Test
  void nullIsNo() {
    assertFalse(Decide.isRetryable(null));
    assertNull(Decide.retryAfter(null));
    assertFalse(Decide.shouldReauthenticate(null));
    assertFalse(Decide.sameArgumentsSafe(null, true));
    assertNull(Decide.toStatus(null));
  }
}
