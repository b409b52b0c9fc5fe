// The decision helpers on every golden vector's response and every case of
// clients/testdata/decision-cases.json; no server needed. The records go to
// $ERRSVC_DECISIONS_DIR/typescript.json for clients/test.sh to compare with
// the Go and Python SDKs'.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import { getOption, type JsonValue } from "@bufbuild/protobuf";

import { wire as wireOption } from "../src/gen/errsvc/v1/options_pb.js";
import { file_errsvc_v1_vocabulary } from "../src/gen/errsvc/v1/vocabulary_pb.js";

import {
  Code,
  ConnectError,
  ErrorInfoSchema,
  RetryInfoSchema,
  decide,
  isRetryable,
  responseFromJson,
  retryAfter,
  sameArgumentsSafe,
  shouldReauthenticate,
  toConnectError,
  wire,
  type TranslateResponse,
} from "../src/index.js";

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "go.mod")) && existsSync(join(dir, "testdata", "golden"))) return dir;
    const parent = resolve(dir, "..");
    if (parent === dir) throw new Error("repository root not found");
    dir = parent;
  }
}

const root = repoRoot();
const goldenDir = process.env.ERRSVC_GOLDEN_DIR ?? join(root, "testdata", "golden");
const cases: Array<[string, TranslateResponse]> = [];
for (const f of readdirSync(goldenDir).filter((f) => f.endsWith(".json")).sort()) {
  const v = JSON.parse(readFileSync(join(goldenDir, f), "utf8")) as { name: string; response?: JsonValue };
  if (v.response) cases.push([v.name, responseFromJson(v.response)]);
}
const extra = JSON.parse(readFileSync(join(root, "clients", "testdata", "decision-cases.json"), "utf8")) as {
  cases: Array<{ name: string; response: JsonValue }>;
};
for (const c of extra.cases) cases.push([`case.${c.name}`, responseFromJson(c.response)]);
const byName = new Map(cases);

function record(resp: TranslateResponse) {
  const err = toConnectError(resp);
  return {
    retryable: isRetryable(resp),
    retry_after_ms: retryAfter(resp) ?? null,
    retry_after_ms_cap_10s: retryAfter(resp, { maxWaitMs: 10_000 }) ?? null,
    retry_after_ms_uncapped: retryAfter(resp, { maxWaitMs: Infinity }) ?? null,
    reauthenticate: shouldReauthenticate(resp),
    same_arguments_safe: sameArgumentsSafe(resp),
    same_arguments_safe_idempotent: sameArgumentsSafe(resp, { idempotent: true }),
    error: err
      ? { code: err.code as number, message: err.rawMessage, details: err.details.map((d) => ("type" in d ? d.type : d.desc.typeName)) }
      : null,
  };
}

test("enough cases", () => assert.ok(cases.length > 500, `${cases.length} cases`));

test("records written", () => {
  const out: Record<string, unknown> = {};
  for (const [name, resp] of cases) out[name] = record(resp);
  const dir = process.env.ERRSVC_DECISIONS_DIR;
  if (dir) writeFileSync(join(dir, "typescript.json"), JSON.stringify({ sdk: "typescript", cases: out }, null, 1));
});

const halted = new Set(["permanent", "auth_required", "context_overflow", "auth"]);

test("contract properties on every case", () => {
  for (const [name, resp] of cases) {
    const cls = resp.classification?.class ?? "";
    const retryable = isRetryable(resp);
    if (retryable) assert.ok(!halted.has(cls) && !resp.error, `${name}: retryable with class ${cls}`);
    const wait = retryAfter(resp, { maxWaitMs: Infinity });
    assert.equal(wait !== undefined, retryable, name);
    if (wait !== undefined) {
      assert.ok(wait >= 0, name);
      assert.equal(retryAfter(resp, { maxWaitMs: wait }), wait, name);
      if (wait > 0) assert.equal(retryAfter(resp, { maxWaitMs: wait - 1e-3 }), undefined, name);
    }
    const reauth = shouldReauthenticate(resp);
    assert.ok(!(reauth && retryable), name);
    if (cls === "auth_required") assert.ok(reauth, name);
    if (sameArgumentsSafe(resp)) assert.ok(sameArgumentsSafe(resp, { idempotent: true }), name);
    const same = resp.labbyError?.recovery?.sameArguments;
    if (same === "never" || same === "discouraged") assert.ok(!sameArgumentsSafe(resp, { idempotent: true }), name);
    const err = toConnectError(resp);
    const gs = resp.grpcStatus;
    if (!gs || gs.code === 0) {
      assert.equal(err, undefined, name);
      continue;
    }
    assert.ok(err instanceof ConnectError, name);
    assert.equal(err.code, gs.code <= 16 ? gs.code : Code.Unknown, name);
    assert.equal(err.rawMessage, gs.message, name);
    assert.equal(err.details.length, gs.details.length, name);
    if (gs.details.some((d) => d.typeUrl.endsWith("ErrorInfo"))) {
      assert.equal(err.findDetails(ErrorInfoSchema).length, 1, name);
    }
  }
});

const behaviour: Record<string, [boolean, number | undefined, boolean, boolean]> = {
  "provider.openai-429-rpm-retry-after": [true, 1000, false, true],
  "labby.retry_after.rate_limited": [true, 2500, false, true],
  "provider.openai-429-insufficient-quota": [false, undefined, false, false],
  "provider.generic-429-body-text-go-duration": [true, undefined, false, true],
  "rule.timeout_not_idempotent": [false, undefined, false, false],
  "rule.caller_recovery_wins": [false, undefined, false, false],
  "agent.code.NOT_AUTHENTICATED": [false, undefined, true, false],
  "rule.auth_alias": [false, undefined, true, false],
  "agent.code.NOT_AUTHORIZED": [false, undefined, false, false],
  "rule.targets_subset": [true, 0, false, false],
  "rule.rate_limited_fraction_ms": [true, 21, false, true],
  "case.auth_alias_class": [false, undefined, true, false],
  "case.agent_only_yes": [true, 0, false, true],
  "case.wait_at_cap_exactly": [true, 10_000, false, false],
  "case.item_error": [false, undefined, false, false],
};

test("behaviour the contracts pin", () => {
  for (const [name, want] of Object.entries(behaviour)) {
    const resp = byName.get(name);
    assert.ok(resp, `no case ${name}`);
    const d = decide(resp);
    assert.deepEqual([d.retryable, d.retryAfterMs, d.reauthenticate, d.sameArgumentsSafe], want, name);
  }
});

test("RetryInfo detail of a converted error", () => {
  const err = toConnectError(byName.get("case.retry_info_only")!)!;
  assert.equal(err.code, Code.Unavailable);
  const [ri] = err.findDetails(RetryInfoSchema);
  assert.equal(Number(ri.retryDelay?.seconds), 2);
  assert.equal(ri.retryDelay?.nanos, 500_000_000);
});

test("wire constants read as the wire does", () => {
  const resp = byName.get("agent.code.RATE_LIMITED")!;
  assert.equal(resp.agentError?.code, wire.AgentErrorCode.RATE_LIMITED);
  assert.equal(resp.classification?.class, wire.ErrorClass.TRANSIENT);
  assert.equal(wire.AgentRetry.AFTER_REFRESH, "after-refresh");
  assert.equal(wire.VOCABULARIES.LabbyKind.length, Object.keys(wire.LabbyKind).length);
});

test("wire constants equal the (wire) options of the descriptors", () => {
  const generated = wire.VOCABULARIES;
  const names = file_errsvc_v1_vocabulary.enums.map((e) => e.name);
  assert.deepEqual(Object.keys(generated).sort(), [...names].sort());
  for (const e of file_errsvc_v1_vocabulary.enums) {
    const fromDescriptors = e.values.filter((v) => v.number !== 0).map((v) => getOption(v, wireOption));
    assert.deepEqual([...generated[e.name]].sort(), fromDescriptors.sort(), e.name);
  }
});
