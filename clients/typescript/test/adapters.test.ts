// The retry-adapter scenario (docs/INTEGRATIONS.md) with the `openai`
// package and the Vercel AI SDK (`ai` + `@ai-sdk/openai`), each with and
// without its errsvc adapter, against a mock provider
// (clients/go/adapters/testdata/scenario.json, shared with the Go and
// Python suites) and the live errsvc at ERRSVC_GRPC_ADDR / ERRSVC_HTTP_ADDR.

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { createOpenAI } from "@ai-sdk/openai";
import { generateText, streamText } from "ai";
import OpenAI from "openai";

import { ErrsvcClient } from "../src/index.js";
import { Advisor, errsvcFetch, withErrsvcRetry, type Advice } from "../src/adapters/index.js";
import { MockProvider, repoRoot, scenario, type Step } from "./adapters-scenario.js";

interface Row {
  framework: string;
  adapter: boolean;
  step: string;
  calls: number;
  waited_ms: number;
  decided_wait_ms: number;
  final_error: string;
}

function writeRows(name: string, rows: Row[]): void {
  const dir = process.env.ERRSVC_SCENARIO_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(rows, null, 1));
}

function version(pkg: string): string {
  return (JSON.parse(readFileSync(join(repoRoot(), "clients/typescript/node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
}

function describeError(err: unknown): string {
  const e = err as { name?: string; status?: number; statusCode?: number; code?: string; advice?: Advice; cause?: unknown; lastError?: unknown; error?: { code?: string; type?: string } };
  if (e.advice) return `${describeError(e.cause)} (errsvc: ${e.advice.errorClass}, ${e.advice.action})`;
  if (e.lastError) return describeError(e.lastError);
  if (!(err instanceof Error)) return `stream error event ${e.error?.code ?? e.error?.type ?? e.code ?? ""}`.trim();
  const name = e.name && e.name !== "Error" ? e.name : ((err as object)?.constructor?.name ?? "Error");
  return [name, e.status ?? e.statusCode, e.code].filter((x) => x !== undefined && x !== null && x !== "").join(" ");
}

const grpcAddr = process.env.ERRSVC_GRPC_ADDR ?? "";
const httpAddr = process.env.ERRSVC_HTTP_ADDR ?? "";
const haveServer = grpcAddr !== "" && httpAddr !== "";
if (!haveServer && (process.env.ERRSVC_REQUIRE_SERVER || process.env.CI)) {
  throw new Error("ERRSVC_REQUIRE_SERVER or CI is set but ERRSVC_GRPC_ADDR / ERRSVC_HTTP_ADDR are not");
}
const skip = haveServer ? false : "ERRSVC_GRPC_ADDR / ERRSVC_HTTP_ADDR unset: no errsvc to call";
const MESSAGES = [{ role: "user" as const, content: "hi" }];

function check(step: Step, calls: number, final: string, advice: Advice[]): void {
  const want = step.adapter_expect;
  if (step.stream) {
    assert.equal(calls, 1, `${step.name}: the error after output is never repeated (${final})`);
    return;
  }
  assert.equal(calls, want.calls, `${step.name}: ${calls} calls (${final})`);
  assert.equal(final === "ok", want.retried, `${step.name}: ended ${final}`);
  if (want.stated_wait_ms) assert.equal(advice[0]?.waitMs, want.stated_wait_ms, `${step.name}: the stated wait`);
  if (want.reauthenticate) assert.ok(advice[0]?.decision.reauthenticate, `${step.name}: reauthenticate`);
}

/** errsvc's verdict on the stream error: retryable, yet never repeated with the same arguments once output began. */
async function streamVerdict(advisor: Advisor, step: Step, rows: Row[]): Promise<void> {
  const verdict = await advisor.adviseStreamError(step.answers[0].body);
  assert.ok(verdict && verdict.decision.retryable && !verdict.retry && !verdict.decision.sameArgumentsSafe, `${step.name}: ${JSON.stringify(verdict?.decision)}`);
  rows[rows.length - 1].final_error += " (not repeated: same_arguments discouraged)";
}

describe("retry adapters: the scenario", { skip }, () => {
  let client: ErrsvcClient;
  const mock = new MockProvider();
  before(async () => {
    client = new ErrsvcClient({ grpc: grpcAddr, http: httpAddr });
    await mock.start();
  });
  after(() => {
    client?.close();
    mock.server.close();
  });

  test("openai package: errsvcFetch", async () => {
    const rows: Row[] = [];
    for (const adapter of [false, true]) {
      for (const step of scenario.steps) {
        const key = `openai-${adapter ? "with" : "without"}-${step.name}`;
        mock.steps.set(key, step);
        const advice: Advice[] = [];
        const advisor = new Advisor(client, { waitScale: scenario.wait_scale, onAdvice: (a) => advice.push(a) });
        const c = new OpenAI({ baseURL: `${mock.url}/${key}/v1`, apiKey: "sk-test", ...(adapter ? { fetch: errsvcFetch(advisor) } : {}) });
        let final = "ok";
        try {
          if (step.stream) {
            const s = await c.chat.completions.create({ model: "gpt-4o", messages: MESSAGES, stream: true });
            for await (const _ of s) void _;
          } else {
            await c.chat.completions.create({ model: "gpt-4o", messages: MESSAGES });
          }
        } catch (err) {
          final = describeError(err);
        }
        if (adapter && advice[0]?.decision.reauthenticate) final += " (re-authenticate)";
        const [calls, waited] = mock.took(key);
        const decided = advice.slice(0, Math.max(calls - 1, 0)).reduce((s, a) => s + (a.retry ? a.waitMs : 0), 0);
        rows.push({ framework: `TypeScript openai ${version("openai")}`, adapter, step: step.name, calls, waited_ms: waited, decided_wait_ms: decided, final_error: final });
        if (adapter) check(step, calls, final.replace(" (re-authenticate)", ""), advice);
        if (adapter && step.stream) await streamVerdict(advisor, step, rows);
      }
    }
    writeRows("typescript-openai", rows);
  });

  test("Vercel AI SDK: withErrsvcRetry", async () => {
    const rows: Row[] = [];
    for (const adapter of [false, true]) {
      for (const step of scenario.steps) {
        const key = `ai-${adapter ? "with" : "without"}-${step.name}`;
        mock.steps.set(key, step);
        const advice: Advice[] = [];
        const advisor = new Advisor(client, { waitScale: scenario.wait_scale, onAdvice: (a) => advice.push(a) });
        const model = createOpenAI({ baseURL: `${mock.url}/${key}/v1`, apiKey: "sk-test" }).chat("gpt-4o");
        const run = async (settings: { maxRetries?: number }) => {
          if (!step.stream) return (await generateText({ model, messages: MESSAGES, ...settings })).text;
          let errored: unknown;
          const r = streamText({ model, messages: MESSAGES, ...settings, onError: ({ error }) => void (errored = error) });
          for await (const _ of r.textStream) void _;
          if (errored) throw errored;
          return "";
        };
        let final = "ok";
        try {
          await (adapter ? withErrsvcRetry(advisor, run) : run({}));
        } catch (err) {
          final = describeError(err);
        }
        const [calls, waited] = mock.took(key);
        const decided = advice.reduce((s, a) => s + (a.retry ? a.waitMs : 0), 0);
        rows.push({ framework: `TypeScript Vercel AI SDK ${version("ai")}`, adapter, step: step.name, calls, waited_ms: waited, decided_wait_ms: decided, final_error: final });
        if (adapter) check(step, calls, final, advice);
        if (adapter && step.stream) await streamVerdict(advisor, step, rows);
      }
    }
    writeRows("typescript-ai", rows);
  });

  test("errsvc unreachable: a log line, and the framework's own behaviour", async () => {
    const dead = new ErrsvcClient({ grpc: "127.0.0.1:1", http: "127.0.0.1:1", retry: false });
    const lines: string[] = [];
    const advisor = new Advisor(dead, { log: (l) => lines.push(l), timeoutMs: 1000 });
    const billing = scenario.steps[0];
    mock.steps.set("fallback-openai", billing);
    const c = new OpenAI({ baseURL: `${mock.url}/fallback-openai/v1`, apiKey: "sk-test", maxRetries: 1, fetch: errsvcFetch(advisor) });
    await assert.rejects(c.chat.completions.create({ model: "gpt-4o", messages: MESSAGES }));
    assert.equal(mock.took("fallback-openai")[0], 2, "openai's own rule: a 429 is retried");
    mock.steps.set("fallback-ai", scenario.steps[1]);
    const model = createOpenAI({ baseURL: `${mock.url}/fallback-ai/v1`, apiKey: "sk-test" }).chat("gpt-4o");
    const text = await withErrsvcRetry(advisor, (s) => generateText({ model, messages: MESSAGES, ...s }).then((r) => r.text), { fallbackMaxRetries: 1 });
    assert.equal(text, "ok");
    assert.ok(lines.length >= 2 && lines.every((l) => l.includes("errsvc could not be reached") && l.includes("own retry behaviour")), lines.join("\n"));
    assert.ok(lines.some((l) => l.includes("openai's own")) && lines.some((l) => l.includes("Vercel AI SDK's own")), lines.join("\n"));
    dead.close();
  });
});
