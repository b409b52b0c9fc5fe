package dev.errsvc.client;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Value;
import com.google.rpc.RetryInfo;
import dev.errsvc.v1.LabbyError;
import dev.errsvc.v1.TranslateResponse;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Acting on an answer: what a caller does next with a translated error.
 *
 * <p>The helpers read only structured fields of a {@link TranslateResponse}, never
 * message text or {@code http_status}, and behave exactly as the Go, Python and
 * TypeScript SDKs' do: clients/README.md ("Acting on an answer") is their one
 * definition, and every SDK checks it on every golden vector.
 *
 * <pre>{@code
 * if (Decide.isRetryable(resp)) {
 *   Duration wait = Decide.retryAfter(resp); // null: past the cap, fail fast
 * }
 * }</pre>
 *
 * <p>A response that carries {@code error} (a batch or stream item errsvc could
 * not translate) has no translation: every helper says no.
 */
public final class Decide {
  private Decide() {}

  /**
   * The longest wait {@link #retryAfter(TranslateResponse)} accepts: past it a
   * caller fails fast rather than sleeping (openai-python refuses to retry a
   * wait over 120 s for the same reason).
   */
  public static final Duration DEFAULT_MAX_WAIT = Duration.ofSeconds(120);

  /** Spellings the Error Class Contract reads as another class ({@code auth}, from before the rename). */
  private static final Map<String, String> CLASS_ALIASES = Map.of("auth", Wire.ErrorClass.AUTH_REQUIRED);

  /** The largest number of milliseconds read as a wait (it fits a long of nanoseconds, as in Go). */
  private static final double MAX_WAIT_MS = (double) (Long.MAX_VALUE / 1_000_000L);

  /**
   * Every helper's answer for one response.
   *
   * @param retryable {@link #isRetryable}
   * @param retryAfter {@link #retryAfter(TranslateResponse, Duration)} with the cap given to decide: null means do not
   *     make the call again
   * @param reauthenticate {@link #shouldReauthenticate}
   * @param sameArgumentsSafe {@link #sameArgumentsSafe} with the idempotence given to decide
   */
  public record Decision(
      boolean retryable, @Nullable Duration retryAfter, boolean reauthenticate, boolean sameArgumentsSafe) {}

  /** Runs every helper on resp, with the default cap and a call that is not idempotent. */
  public static Decision decide(TranslateResponse resp) {
    return decide(resp, DEFAULT_MAX_WAIT, false);
  }

  /**
   * Runs every helper on resp.
   *
   * @param maxWait the longest wait accepted; null for no cap
   * @param idempotent the failed call is idempotent (the caller knows; the answer does not)
   */
  public static Decision decide(TranslateResponse resp, @Nullable Duration maxWait, boolean idempotent) {
    return new Decision(
        isRetryable(resp), retryAfter(resp, maxWait), shouldReauthenticate(resp), sameArgumentsSafe(resp, idempotent));
  }

  /**
   * Whether the same call may succeed if made again, possibly after a wait: a known class other
   * than transient says no (the Error Class Contract: never backoff-retry those); otherwise the
   * recovery advice decides ({@code retry_later}), and without advice a transient class does.
   */
  public static boolean isRetryable(@Nullable TranslateResponse resp) {
    if (resp == null || resp.hasError()) {
      return false;
    }
    String cls = knownClass(resp);
    if (cls != null && !cls.equals(Wire.ErrorClass.TRANSIENT)) {
      return false;
    }
    Recovery rec = recoveryOf(resp);
    if (rec != null) {
      return rec.action.equals(Wire.RecoveryAction.RETRY_LATER);
    }
    return Wire.ErrorClass.TRANSIENT.equals(cls);
  }

  /** {@link #retryAfter(TranslateResponse, Duration)} with {@link #DEFAULT_MAX_WAIT}. */
  public static @Nullable Duration retryAfter(@Nullable TranslateResponse resp) {
    return retryAfter(resp, DEFAULT_MAX_WAIT);
  }

  /**
   * How long to wait before making the call again, or null when it should not be made again: the
   * answer is not retryable, or the wait it states is longer than maxWait (fail fast; a wait equal
   * to the cap is kept). The wait is the answer's most precise one (see clients/README.md);
   * {@link Duration#ZERO} when it states none: use your own backoff.
   *
   * @param maxWait the longest wait accepted; null (or, as in Go, a negative one) for no cap
   */
  public static @Nullable Duration retryAfter(@Nullable TranslateResponse resp, @Nullable Duration maxWait) {
    if (resp == null || !isRetryable(resp)) {
      return null;
    }
    Duration wait = statedWait(resp);
    if (maxWait != null && !maxWait.isNegative() && wait.compareTo(maxWait) > 0) {
      return null;
    }
    return wait;
  }

  /**
   * Whether a credential must be re-established before the call can succeed: a known class
   * decides ({@code auth_required}); else the Labby recovery action ({@code reauthenticate});
   * else the Agent Surface code ({@code NOT_AUTHENTICATED}). A permanent 403 never asks for a new
   * credential.
   */
  public static boolean shouldReauthenticate(@Nullable TranslateResponse resp) {
    if (resp == null || resp.hasError()) {
      return false;
    }
    String cls = knownClass(resp);
    if (cls != null) {
      return cls.equals(Wire.ErrorClass.AUTH_REQUIRED);
    }
    Recovery rec = labbyRecovery(resp);
    if (rec != null) {
      return rec.action.equals(Wire.RecoveryAction.REAUTHENTICATE);
    }
    return resp.getAgentError().getCode().equals(Wire.AgentErrorCode.NOT_AUTHENTICATED);
  }

  /** {@link #sameArgumentsSafe(TranslateResponse, boolean)} for a call that is not idempotent. */
  public static boolean sameArgumentsSafe(@Nullable TranslateResponse resp) {
    return sameArgumentsSafe(resp, false);
  }

  /**
   * Whether repeating the exact call is safe: the recovery's {@code same_arguments} is {@code
   * safe}, or {@code conditional} and either the call is idempotent (the caller says) or the
   * envelope says nothing happened ({@code side_effects: none_expected}). It says nothing about
   * whether a repeat helps: ask {@link #isRetryable}.
   */
  public static boolean sameArgumentsSafe(@Nullable TranslateResponse resp, boolean idempotent) {
    if (resp == null || resp.hasError()) {
      return false;
    }
    Recovery rec = recoveryOf(resp);
    if (rec == null) {
      return false;
    }
    if (rec.sameArguments.equals(Wire.SameArguments.SAFE)) {
      return true;
    }
    if (rec.sameArguments.equals(Wire.SameArguments.CONDITIONAL)) {
      return idempotent || rec.sideEffects.equals(Wire.SideEffects.NONE_EXPECTED);
    }
    return false;
  }

  /**
   * The response's {@code grpc_status} as a {@code google.rpc.Status}, every detail (ErrorInfo,
   * RetryInfo) as sent, or null when it has none or its code is OK. A code outside gRPC's (above
   * 16, or negative) becomes UNKNOWN, as in the other SDKs.
   */
  public static com.google.rpc.@Nullable Status toStatus(@Nullable TranslateResponse resp) {
    if (resp == null || !resp.hasGrpcStatus() || resp.getGrpcStatus().getCode() == 0) {
      return null;
    }
    com.google.rpc.Status gs = resp.getGrpcStatus();
    if (gs.getCode() < 0 || gs.getCode() > Status.Code.UNAUTHENTICATED.value()) {
      gs = gs.toBuilder().setCode(Status.Code.UNKNOWN.value()).build();
    }
    return gs;
  }

  /**
   * The response's {@code grpc_status} as a {@link StatusRuntimeException} a grpc-java server
   * handler can pass to {@code onError} as is ({@link StatusProto#fromThrowable} reads it back with
   * its details), or null: see {@link #toStatus}.
   */
  public static @Nullable StatusRuntimeException toStatusException(@Nullable TranslateResponse resp) {
    com.google.rpc.Status st = toStatus(resp);
    return st == null ? null : StatusProto.toStatusRuntimeException(st);
  }

  /**
   * The response's {@code grpc_status} as an {@link ErrsvcException} to throw, or null: see {@link
   * #toStatus}.
   */
  public static @Nullable ErrsvcException toException(@Nullable TranslateResponse resp) {
    com.google.rpc.Status st = toStatus(resp);
    return st == null ? null : ErrsvcException.ofStatus(st, null, ErrsvcException.Kind.TRANSLATED, null);
  }

  private record Recovery(String action, String sameArguments, String sideEffects) {}

  /** The answer's class when it is one of the contract's four; an unknown class counts as absent. */
  private static @Nullable String knownClass(TranslateResponse resp) {
    String c = resp.getClassification().getClass_();
    c = CLASS_ALIASES.getOrDefault(c, c);
    return Wire.ErrorClass.ALL.contains(c) ? c : null;
  }

  private static List<LabbyError> envelopes(TranslateResponse resp) {
    return List.of(resp.getLabbyError(), resp.getCodeModeError());
  }

  /**
   * The recovery of the Labby envelope, else of the Code Mode call error, when its action is a
   * known term; with that envelope's side effects.
   */
  private static @Nullable Recovery labbyRecovery(TranslateResponse resp) {
    for (LabbyError le : envelopes(resp)) {
      String action = le.getRecovery().getAction();
      if (Wire.RecoveryAction.ALL.contains(action)) {
        return new Recovery(action, le.getRecovery().getSameArguments(), le.getSideEffects());
      }
    }
    return null;
  }

  /**
   * labbyRecovery, else the recovery the Agent Surface retry hint means (side effects unknown:
   * the payload does not say).
   */
  private static @Nullable Recovery recoveryOf(TranslateResponse resp) {
    Recovery rec = labbyRecovery(resp);
    if (rec != null) {
      return rec;
    }
    List<String> row = Wire.AGENT_RETRY_RECOVERY.get(resp.getAgentError().getRetry());
    if (row != null) {
      return new Recovery(row.get(0), row.get(1), Wire.SideEffects.UNKNOWN);
    }
    return null;
  }

  /**
   * The wait the answer states, from its most precise field: the Labby envelope's
   * retry_after_ms (then the Code Mode call error's), the grpc_status RetryInfo (negative reads
   * as 0), the Agent Surface details.retryAfterMs (a non-negative number), and last
   * classification.retry_after_secs. Zero when none is stated.
   */
  static Duration statedWait(TranslateResponse resp) {
    for (LabbyError le : envelopes(resp)) {
      if (le.hasRecovery() && le.getRecovery().hasRetryAfterMs()) {
        return Duration.ofMillis(Integer.toUnsignedLong(le.getRecovery().getRetryAfterMs()));
      }
    }
    for (Any d : resp.getGrpcStatus().getDetailsList()) {
      if (d.is(RetryInfo.class)) {
        RetryInfo ri;
        try {
          ri = d.unpack(RetryInfo.class);
        } catch (InvalidProtocolBufferException e) {
          continue;
        }
        if (ri.hasRetryDelay()) {
          Duration delay = Duration.ofSeconds(ri.getRetryDelay().getSeconds(), ri.getRetryDelay().getNanos());
          return delay.isNegative() ? Duration.ZERO : delay;
        }
      }
    }
    Value v = resp.getAgentError().getDetails().getFieldsMap().get("retryAfterMs");
    if (v != null && v.getKindCase() == Value.KindCase.NUMBER_VALUE) {
      double ms = v.getNumberValue();
      if (ms >= 0 && ms < MAX_WAIT_MS) {
        return Duration.ofNanos((long) (ms * 1_000_000d));
      }
    }
    if (resp.hasClassification() && resp.getClassification().hasRetryAfterSecs()) {
      return Duration.ofSeconds(Integer.toUnsignedLong(resp.getClassification().getRetryAfterSecs()));
    }
    return Duration.ZERO;
  }

  /**
   * The limit facet of an answer: which limit the error hit, whose, until when, how much is left, and
   * what to do about it (docs/VOCABULARIES.md, "The limit facet"). Terms are open strings.
   *
   * @param kind rate, quota, spend, concurrency, capacity, or a newer term
   * @param dimension requests, tokens, input_tokens, output_tokens, ...; empty when unsaid
   * @param scope key, project, organization, account, model, region, or unknown
   * @param resetAt when the limit resets; null when unsaid
   * @param remaining what is left; null when unsaid
   * @param limit the limit's size; null when unsaid
   * @param decision wait_until_reset, reduce_concurrency, fail_over or stop_and_tell_a_person
   */
  public record Limit(
      String kind,
      String dimension,
      String scope,
      java.time.@Nullable Instant resetAt,
      @Nullable Long remaining,
      @Nullable Long limit,
      String decision) {}

  /**
   * The answer's limit facet, or null when the error is not a limit: the limit target, else the Labby
   * envelope's detail.limit. A missing or unknown decision is derived as the service derives it: not
   * {@link #isRetryable} → stop_and_tell_a_person (a spend cap is never retried); capacity → fail_over;
   * concurrency → reduce_concurrency; else wait_until_reset.
   */
  public static @Nullable Limit limitOf(@Nullable TranslateResponse resp) {
    if (resp == null || resp.hasError()) {
      return null;
    }
    String kind;
    String dimension;
    String scope;
    String decision;
    java.time.Instant resetAt = null;
    Long remaining = null;
    Long max = null;
    if (resp.hasLimit() && !resp.getLimit().getKind().isEmpty()) {
      dev.errsvc.v1.Limit l = resp.getLimit();
      kind = l.getKind();
      dimension = l.getDimension();
      scope = l.getScope();
      decision = l.getDecision();
      if (l.hasResetAt()) {
        resetAt = java.time.Instant.ofEpochSecond(l.getResetAt().getSeconds(), l.getResetAt().getNanos());
      }
      if (l.hasRemaining()) {
        remaining = l.getRemaining();
      }
      if (l.hasLimit()) {
        max = l.getLimit();
      }
    } else {
      Value v = resp.getLabbyError().getDetail().getFieldsMap().get("limit");
      if (v == null || !v.hasStructValue()) {
        return null;
      }
      Map<String, Value> d = v.getStructValue().getFieldsMap();
      kind = text(d, "kind");
      if (kind.isEmpty()) {
        return null;
      }
      dimension = text(d, "dimension");
      scope = text(d, "scope");
      decision = text(d, "decision");
      try {
        if (!text(d, "reset_at").isEmpty()) {
          resetAt = java.time.Instant.parse(text(d, "reset_at"));
        }
      } catch (java.time.format.DateTimeParseException e) {
        resetAt = null;
      }
      remaining = count(d, "remaining");
      max = count(d, "limit");
    }
    if (scope.isEmpty()) {
      scope = Wire.LimitScope.UNKNOWN;
    }
    if (!Wire.LimitDecision.ALL.contains(decision)) {
      if (!isRetryable(resp)) {
        decision = Wire.LimitDecision.STOP_AND_TELL_A_PERSON;
      } else if (Wire.LimitKind.CAPACITY.equals(kind)) {
        decision = Wire.LimitDecision.FAIL_OVER;
      } else if (Wire.LimitKind.CONCURRENCY.equals(kind)) {
        decision = Wire.LimitDecision.REDUCE_CONCURRENCY;
      } else {
        decision = Wire.LimitDecision.WAIT_UNTIL_RESET;
      }
    }
    return new Limit(kind, dimension, scope, resetAt, remaining, max, decision);
  }

  private static String text(Map<String, Value> d, String k) {
    Value v = d.get(k);
    return v != null && v.hasStringValue() ? v.getStringValue() : "";
  }

  private static @Nullable Long count(Map<String, Value> d, String k) {
    Value v = d.get(k);
    if (v == null || !v.hasNumberValue()) {
      return null;
    }
    double n = v.getNumberValue();
    return n >= 0 && n < 9.2e18 && n == Math.rint(n) ? (long) n : null;
  }
}
