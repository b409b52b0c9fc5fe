// limitOf on every golden vector's response and on hand-made answers; no
// server needed.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

import type { JsonValue } from "@bufbuild/protobuf";

import { isRetryable, limitOf, responseFromJson, wire } from "../src/index.js";

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "go.mod")) && existsSync(join(dir, "testdata", "golden"))) return dir;
    const parent = resolve(dir, "..");
    if (parent === dir) throw new Error("repository root not found");
    dir = parent;
  }
}

const goldenDir = process.env.ERRSVC_GOLDEN_DIR ?? join(repoRoot(), "testdata", "golden");

test("limitOf agrees with isRetryable on every golden answer", () => {
  let n = 0;
  for (const f of readdirSync(goldenDir).filter((f) => f.endsWith(".json")).sort()) {
    const v = JSON.parse(readFileSync(join(goldenDir, f), "utf8")) as { name: string; response?: JsonValue };
    if (!v.response) continue;
    const resp = responseFromJson(v.response);
    const l = limitOf(resp);
    if (!l) continue;
    n++;
    assert.equal(l.decision === wire.LimitDecision.STOP_AND_TELL_A_PERSON, !isRetryable(resp), `${v.name}: ${l.decision}`);
    assert.ok(l.scope, `${v.name}: empty scope`);
  }
  assert.ok(n > 0, "no golden answer carries a limit");
});

test("limitOf reads the limit target and the Labby detail", () => {
  const target = responseFromJson({
    classification: { class: "transient" },
    limit: { kind: "rate", dimension: "tokens", scope: "organization", resetAt: "2025-06-01T12:06:00Z", remaining: "0", limit: "30000", decision: "wait_until_reset" },
  });
  const l = limitOf(target)!;
  assert.equal(l.kind, "rate");
  assert.equal(l.dimension, "tokens");
  assert.equal(l.scope, "organization");
  assert.equal(l.resetAt?.toISOString(), "2025-06-01T12:06:00.000Z");
  assert.equal(l.remaining, 0n);
  assert.equal(l.limit, 30000n);
  assert.equal(l.decision, "wait_until_reset");

  const detail = responseFromJson({
    classification: { class: "transient" },
    labbyError: { kind: "rate_limited", detail: { limit: { kind: "rate", scope: "model", reset_at: "2025-06-01T12:00:17Z", limit: 250000 } } },
  });
  const d = limitOf(detail)!;
  assert.equal(d.kind, "rate");
  assert.equal(d.scope, "model");
  assert.equal(d.limit, 250000n);
  assert.equal(d.resetAt?.toISOString(), "2025-06-01T12:00:17.000Z");
  assert.equal(d.decision, "wait_until_reset");
});

test("limitOf derives the decision: spend stops, capacity fails over, concurrency sends fewer", () => {
  const mk = (cls: string, kind: string, decision = "") =>
    limitOf(responseFromJson({ classification: { class: cls }, limit: { kind, decision } }))!;
  assert.equal(mk("permanent", "spend").decision, "stop_and_tell_a_person");
  assert.equal(mk("transient", "capacity").decision, "fail_over");
  assert.equal(mk("transient", "concurrency", "a-newer-decision").decision, "reduce_concurrency");
  const unknown = mk("transient", "burst");
  assert.equal(unknown.kind, "burst");
  assert.equal(unknown.scope, "unknown");
  assert.equal(unknown.decision, "wait_until_reset");
  assert.equal(limitOf(responseFromJson({ classification: { class: "permanent" } })), undefined);
});
