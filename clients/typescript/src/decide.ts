// Acting on an answer: what a caller does next with a translated error.
//
// The helpers read only structured fields of a TranslateResponse, never
// message text or httpStatus, and behave exactly as the Go and Python SDKs'
// do: clients/README.md ("Acting on an answer") is their one definition, and
// every SDK checks it on every golden vector.

import { anyIs, anyUnpack, timestampDate } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError } from "@connectrpc/connect";

import type { LabbyError } from "./gen/errsvc/v1/errors_pb.js";
import type { TranslateResponse } from "./gen/errsvc/v1/translation_service_pb.js";
import { RetryInfoSchema } from "./gen/google/rpc/error_details_pb.js";
import * as wire from "./gen/wire.js";

/**
 * The longest wait, in milliseconds, retryAfter accepts unless told
 * otherwise: past it a caller fails fast rather than sleeping (openai-python
 * refuses to retry a wait over 120 s for the same reason).
 */
export const DEFAULT_MAX_WAIT_MS = 120_000;

/** Spellings the Error Class Contract reads as another class. */
const CLASS_ALIASES: Record<string, string> = { auth: wire.ErrorClass.AUTH_REQUIRED };

const knownClasses = new Set<string>(Object.values(wire.ErrorClass));
const knownActions = new Set<string>(Object.values(wire.RecoveryAction));

/** Every helper's answer for one response. */
export interface Decision {
  retryable: boolean;
  /** Milliseconds to wait, or undefined: do not make the call again. */
  retryAfterMs: number | undefined;
  reauthenticate: boolean;
  sameArgumentsSafe: boolean;
}

export interface DecideOptions {
  /** The longest wait accepted, in ms (DEFAULT_MAX_WAIT_MS); Infinity for no cap. */
  maxWaitMs?: number;
  /** The failed call is idempotent (the caller knows; the answer does not). */
  idempotent?: boolean;
}

/** Runs every helper on resp. */
export function decide(resp: TranslateResponse, options: DecideOptions = {}): Decision {
  return {
    retryable: isRetryable(resp),
    retryAfterMs: retryAfter(resp, options),
    reauthenticate: shouldReauthenticate(resp),
    sameArgumentsSafe: sameArgumentsSafe(resp, options),
  };
}

interface Recovery {
  action: string;
  sameArguments: string;
  sideEffects: string;
}

function knownClass(resp: TranslateResponse): [string, boolean] {
  let c = resp.classification?.class ?? "";
  c = CLASS_ALIASES[c] ?? c;
  return [c, knownClasses.has(c)];
}

function envelopes(resp: TranslateResponse): Array<LabbyError | undefined> {
  return [resp.labbyError, resp.codeModeError];
}

function labbyRecovery(resp: TranslateResponse): Recovery | undefined {
  for (const le of envelopes(resp)) {
    const r = le?.recovery;
    if (r && knownActions.has(r.action)) {
      return { action: r.action, sameArguments: r.sameArguments, sideEffects: le!.sideEffects };
    }
  }
  return undefined;
}

function recoveryOf(resp: TranslateResponse): Recovery | undefined {
  const rec = labbyRecovery(resp);
  if (rec) return rec;
  const retry = resp.agentError?.retry ?? "";
  const row = Object.prototype.hasOwnProperty.call(wire.AGENT_RETRY_RECOVERY, retry)
    ? wire.AGENT_RETRY_RECOVERY[retry]
    : undefined;
  return row ? { action: row[0], sameArguments: row[1], sideEffects: wire.SideEffects.UNKNOWN } : undefined;
}

/**
 * Whether the same call may succeed if made again, possibly after a wait: a
 * known class other than transient says no; otherwise the recovery advice
 * decides (retry_later), and without advice a transient class does.
 */
export function isRetryable(resp: TranslateResponse): boolean {
  if (resp.error) return false;
  const [cls, known] = knownClass(resp);
  if (known && cls !== wire.ErrorClass.TRANSIENT) return false;
  const rec = recoveryOf(resp);
  if (rec) return rec.action === wire.RecoveryAction.RETRY_LATER;
  return cls === wire.ErrorClass.TRANSIENT;
}

/** The wait the answer states, in ms, from its most precise field; 0 when none. */
function statedWaitMs(resp: TranslateResponse): number {
  for (const le of envelopes(resp)) {
    if (le?.recovery?.retryAfterMs !== undefined) return le.recovery.retryAfterMs;
  }
  for (const d of resp.grpcStatus?.details ?? []) {
    if (anyIs(d, RetryInfoSchema)) {
      const delay = anyUnpack(d, RetryInfoSchema)?.retryDelay;
      if (delay) return Math.max(Number(delay.seconds) * 1000 + delay.nanos / 1e6, 0);
    }
  }
  const details = resp.agentError?.details;
  if (details && Object.prototype.hasOwnProperty.call(details, "retryAfterMs")) {
    const v = details["retryAfterMs"];
    if (typeof v === "number" && v >= 0 && Number.isFinite(v)) return v;
  }
  if (resp.classification?.retryAfterSecs !== undefined) return resp.classification.retryAfterSecs * 1000;
  return 0;
}

/**
 * Milliseconds to wait before making the call again, or undefined when it
 * should not be made again: the answer is not retryable, or the wait it
 * states is longer than maxWaitMs (fail fast). 0 when the answer states no
 * wait: use your own backoff.
 */
export function retryAfter(resp: TranslateResponse, options: { maxWaitMs?: number } = {}): number | undefined {
  if (!isRetryable(resp)) return undefined;
  const wait = statedWaitMs(resp);
  if (wait > (options.maxWaitMs ?? DEFAULT_MAX_WAIT_MS)) return undefined;
  return wait;
}

/**
 * Whether a credential must be re-established before the call can succeed:
 * a known class decides (auth_required); else the Labby recovery action
 * (reauthenticate); else the Agent Surface code (NOT_AUTHENTICATED).
 */
export function shouldReauthenticate(resp: TranslateResponse): boolean {
  if (resp.error) return false;
  const [cls, known] = knownClass(resp);
  if (known) return cls === wire.ErrorClass.AUTH_REQUIRED;
  const rec = labbyRecovery(resp);
  if (rec) return rec.action === wire.RecoveryAction.REAUTHENTICATE;
  return resp.agentError?.code === wire.AgentErrorCode.NOT_AUTHENTICATED;
}

/**
 * Whether repeating the exact call is safe: same_arguments is safe, or
 * conditional and either the call is idempotent (you say) or the envelope
 * says nothing happened (side_effects none_expected). It says nothing about
 * whether a repeat helps: ask isRetryable.
 */
export function sameArgumentsSafe(resp: TranslateResponse, options: { idempotent?: boolean } = {}): boolean {
  if (resp.error) return false;
  const rec = recoveryOf(resp);
  if (!rec) return false;
  if (rec.sameArguments === wire.SameArguments.SAFE) return true;
  if (rec.sameArguments === wire.SameArguments.CONDITIONAL) {
    return options.idempotent === true || rec.sideEffects === wire.SideEffects.NONE_EXPECTED;
  }
  return false;
}

/**
 * The response's grpc_status as a ConnectError with its details (ErrorInfo,
 * RetryInfo: read them with err.findDetails(ErrorInfoSchema)), or undefined
 * when it has none or its code is OK. A code outside gRPC's becomes Unknown.
 */
export function toConnectError(resp: TranslateResponse): ConnectError | undefined {
  const gs = resp.grpcStatus;
  if (!gs || gs.code === 0) return undefined;
  const code = gs.code in Code && gs.code > 0 ? (gs.code as Code) : Code.Unknown;
  const err = new ConnectError(gs.message, code);
  for (const d of gs.details) {
    err.details.push({ type: d.typeUrl.slice(d.typeUrl.lastIndexOf("/") + 1), value: d.value });
  }
  return err;
}

/**
 * The limit facet of an answer: which limit the error hit, whose, until
 * when, how much is left, and what to do about it (docs/VOCABULARIES.md,
 * "The limit facet"). Terms are open strings.
 */
export interface LimitInfo {
  /** rate, quota, spend, concurrency, capacity, or a newer term. */
  kind: string;
  /** requests, tokens, input_tokens, output_tokens, ...; "" when unsaid. */
  dimension: string;
  /** key, project, organization, account, model, region, or unknown. */
  scope: string;
  /** When the limit resets; undefined when unsaid. */
  resetAt: Date | undefined;
  remaining: bigint | undefined;
  limit: bigint | undefined;
  /** wait_until_reset, reduce_concurrency, fail_over or stop_and_tell_a_person. */
  decision: string;
}

const knownLimitDecisions = new Set<string>(Object.values(wire.LimitDecision));

/**
 * The answer's limit facet, or undefined when the error is not a limit: the
 * limit target, else the Labby envelope's detail.limit. A missing or unknown
 * decision is derived as the service derives it: no retry helps
 * (isRetryable) → stop_and_tell_a_person (a spend cap is never retried);
 * capacity → fail_over; concurrency → reduce_concurrency; else
 * wait_until_reset.
 */
export function limitOf(resp: TranslateResponse): LimitInfo | undefined {
  if (resp.error) return undefined;
  let out: LimitInfo;
  const l = resp.limit;
  const d = resp.labbyError?.detail?.["limit"];
  if (l && l.kind) {
    out = {
      kind: l.kind,
      dimension: l.dimension,
      scope: l.scope,
      resetAt: l.resetAt ? timestampDate(l.resetAt) : undefined,
      remaining: l.remaining,
      limit: l.limit,
      decision: l.decision,
    };
  } else if (d && typeof d === "object" && !Array.isArray(d) && typeof d["kind"] === "string" && d["kind"]) {
    const s = (k: string) => (typeof d[k] === "string" ? (d[k] as string) : "");
    const n = (k: string) => {
      const v = d[k];
      return typeof v === "number" && v >= 0 && Number.isSafeInteger(v) ? BigInt(v) : undefined;
    };
    const reset = s("reset_at") ? new Date(s("reset_at")) : undefined;
    out = {
      kind: s("kind"),
      dimension: s("dimension"),
      scope: s("scope"),
      resetAt: reset && !Number.isNaN(reset.getTime()) ? reset : undefined,
      remaining: n("remaining"),
      limit: n("limit"),
      decision: s("decision"),
    };
  } else {
    return undefined;
  }
  if (!out.scope) out.scope = wire.LimitScope.UNKNOWN;
  if (!knownLimitDecisions.has(out.decision)) {
    if (!isRetryable(resp)) out.decision = wire.LimitDecision.STOP_AND_TELL_A_PERSON;
    else if (out.kind === wire.LimitKind.CAPACITY) out.decision = wire.LimitDecision.FAIL_OVER;
    else if (out.kind === wire.LimitKind.CONCURRENCY) out.decision = wire.LimitDecision.REDUCE_CONCURRENCY;
    else out.decision = wire.LimitDecision.WAIT_UNTIL_RESET;
  }
  return out;
}
