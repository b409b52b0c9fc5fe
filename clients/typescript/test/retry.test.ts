// Retries (RetryInfo, Retry-After, UNAVAILABLE backoff; bounded; off
// switch) and the one error type, against in-memory Connect routers and a
// local HTTP server: no errsvc needed.

import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, test } from "node:test";

import { create } from "@bufbuild/protobuf";
import { createClient, createRouterTransport } from "@connectrpc/connect";

import {
  Code,
  ConnectError,
  DEFAULT_RETRY,
  ErrsvcClient,
  ErrsvcRestError,
  RetryInfoSchema,
  TranslateResponseSchema,
  TranslationService,
  parseRetryAfter,
  retryInterceptor,
} from "../src/index.js";

const RATE_LIMITED = { source: { case: "labbyError" as const, value: { kind: "rate_limited" } } };

/** A router whose Translate fails with `fail(n)` for the first `failures` calls. */
function flaky(failures: number, fail: (n: number) => ConnectError) {
  const state = { calls: 0 };
  const transport = createRouterTransport(({ service }) => {
    service(TranslationService, {
      translate() {
        state.calls++;
        if (state.calls <= failures) throw fail(state.calls);
        return create(TranslateResponseSchema, { httpStatus: 429 });
      },
    });
  });
  return { transport, state };
}

function retryInfo(ms: number, code = Code.ResourceExhausted): ConnectError {
  return new ConnectError("slow down", code, undefined, [
    { desc: RetryInfoSchema, value: { retryDelay: { seconds: BigInt(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 } } },
  ]);
}

describe("gRPC retries", () => {
  test("honours RetryInfo, then succeeds", async () => {
    const { transport, state } = flaky(2, () => retryInfo(30));
    const c = new ErrsvcClient({ transport });
    const t0 = performance.now();
    const resp = await c.translate(RATE_LIMITED);
    assert.equal(resp.httpStatus, 429);
    assert.equal(state.calls, 3);
    assert.ok(performance.now() - t0 >= 55, "waited the delays asked for");
  });

  test("a delay past maxDelayMs fails at once", async () => {
    const { transport, state } = flaky(5, () => retryInfo(60_000));
    const c = new ErrsvcClient({ transport });
    const t0 = performance.now();
    await assert.rejects(c.translate(RATE_LIMITED), (e: unknown) => e instanceof ConnectError && e.code === Code.ResourceExhausted);
    assert.equal(state.calls, 1);
    assert.ok(performance.now() - t0 < 1000);
  });

  test("UNAVAILABLE without RetryInfo backs off; attempts are bounded", async () => {
    const { transport, state } = flaky(10, () => new ConnectError("down", Code.Unavailable));
    const c = new ErrsvcClient({ transport, retry: { maxAttempts: 4, initialBackoffMs: 5, maxBackoffMs: 10 } });
    await assert.rejects(c.translate(RATE_LIMITED), (e: unknown) => ConnectError.from(e).code === Code.Unavailable);
    assert.equal(state.calls, 4);
  });

  test("the total wait is bounded", async () => {
    const { transport, state } = flaky(10, () => retryInfo(40));
    const c = new ErrsvcClient({ transport, retry: { maxAttempts: 10, maxTotalWaitMs: 100 } });
    await assert.rejects(c.translate(RATE_LIMITED));
    assert.equal(state.calls, 3, "40 + 40 ms fit in 100 ms, a third wait does not");
  });

  test("other codes, and RESOURCE_EXHAUSTED without RetryInfo, are not retried", async () => {
    for (const code of [Code.InvalidArgument, Code.ResourceExhausted, Code.Internal]) {
      const { transport, state } = flaky(1, () => new ConnectError("no", code));
      await assert.rejects(new ErrsvcClient({ transport }).translate(RATE_LIMITED));
      assert.equal(state.calls, 1, Code[code]);
    }
  });

  test("retry: false turns retries off", async () => {
    const { transport, state } = flaky(1, () => retryInfo(1, Code.Unavailable));
    await assert.rejects(new ErrsvcClient({ transport, retry: false }).translate(RATE_LIMITED));
    assert.equal(state.calls, 1);
  });

  test("the interceptor, as the default transports use it", async () => {
    const state = { calls: 0 };
    const transport = createRouterTransport(
      ({ service }) => {
        service(TranslationService, {
          translate() {
            if (++state.calls < 2) throw retryInfo(5, Code.Unavailable);
            return create(TranslateResponseSchema, {});
          },
        });
      },
      { transport: { interceptors: [retryInterceptor(DEFAULT_RETRY)] } },
    );
    await createClient(TranslationService, transport).translate(RATE_LIMITED);
    assert.equal(state.calls, 2);
  });
});

describe("REST retries and errors", () => {
  let server: Server;
  let base = "";
  const plan: Array<{ status: number; headers?: Record<string, string>; body: string }> = [];
  let hits = 0;
  before(async () => {
    server = createServer((req, res) => {
      hits++;
      req.resume();
      const step = plan.shift() ?? { status: 200, body: "{}" };
      res.writeHead(step.status, { "Content-Type": "application/json", ...(step.headers ?? {}) });
      res.end(step.body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  const status429 = JSON.stringify({ code: 8, message: "over the rate", details: [] });

  test("Retry-After is honoured, then the answer returns", async () => {
    hits = 0;
    plan.push({ status: 429, headers: { "Retry-After": "0" }, body: status429 });
    plan.push({ status: 200, body: JSON.stringify({ http_status: 429 }) });
    const c = new ErrsvcClient({ grpc: "127.0.0.1:1", http: base });
    const resp = await c.translateRest(RATE_LIMITED);
    assert.equal(resp.httpStatus, 429);
    assert.equal(hits, 2);
    c.close();
  });

  test("a Retry-After past maxDelayMs fails at once with the answer", async () => {
    hits = 0;
    plan.push({ status: 429, headers: { "Retry-After": "3600" }, body: status429 });
    const c = new ErrsvcClient({ grpc: "127.0.0.1:1", http: base });
    await assert.rejects(c.translateRest(RATE_LIMITED), (e: unknown) => {
      assert.ok(e instanceof ErrsvcRestError);
      assert.equal(e.httpStatus, 429);
      assert.equal(e.code, Code.ResourceExhausted);
      assert.equal(e.retryAfterMs, 3_600_000);
      return true;
    });
    assert.equal(hits, 1);
    c.close();
  });

  test("a 400 is not retried and names no wait", async () => {
    hits = 0;
    plan.push({ status: 400, body: JSON.stringify({ code: 3, message: "source: required" }) });
    const c = new ErrsvcClient({ grpc: "127.0.0.1:1", http: base });
    await assert.rejects(c.translateRest(RATE_LIMITED), (e: unknown) => e instanceof ErrsvcRestError && e.code === Code.InvalidArgument);
    assert.equal(hits, 1);
    c.close();
  });

  test("an answer that is not JSON is a ConnectError, not a SyntaxError", async () => {
    plan.push({ status: 200, body: "<html>" });
    const c = new ErrsvcClient({ grpc: "127.0.0.1:1", http: base });
    await assert.rejects(c.translateRest(RATE_LIMITED), (e: unknown) => e instanceof ConnectError && e.code === Code.Internal);
    c.close();
  });

  test("a network failure is a ConnectError UNAVAILABLE, retried then given up", async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const c = new ErrsvcClient({ grpc: "127.0.0.1:1", http: `127.0.0.1:${port}`, retry: { initialBackoffMs: 1, maxBackoffMs: 2 } });
    await assert.rejects(c.translateRest(RATE_LIMITED), (e: unknown) => {
      assert.ok(e instanceof ConnectError, `got ${String(e)}`);
      assert.equal(e.code, Code.Unavailable);
      assert.ok(e.cause instanceof TypeError, "the fetch TypeError is the cause");
      return true;
    });
    c.close();
  });

  test("no http address is a ConnectError", async () => {
    const c = new ErrsvcClient({ grpc: "127.0.0.1:1" });
    await assert.rejects(c.translateRest(RATE_LIMITED), (e: unknown) => e instanceof ConnectError && e.code === Code.FailedPrecondition);
    c.close();
  });

  test("per-call headers reach the server", async () => {
    let seen: string | undefined;
    const s = createServer((req, res) => {
      seen = req.headers["x-request-id"] as string | undefined;
      req.resume();
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
    await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
    const c = new ErrsvcClient({ grpc: "127.0.0.1:1", http: `127.0.0.1:${(s.address() as AddressInfo).port}` });
    await c.translateRest(RATE_LIMITED, { headers: { "x-request-id": "r1" } });
    assert.equal(seen, "r1");
    c.close();
    s.close();
  });
});

test("parseRetryAfter reads seconds and HTTP dates", () => {
  const now = Date.parse("Sun, 01 Jun 2025 12:00:00 GMT");
  assert.equal(parseRetryAfter("30", now), 30_000);
  assert.equal(parseRetryAfter("1.5", now), 1500);
  assert.equal(parseRetryAfter("Sun, 01 Jun 2025 12:00:45 GMT", now), 45_000);
  assert.equal(parseRetryAfter("Sun, 01 Jun 2025 11:59:00 GMT", now), 0);
  assert.equal(parseRetryAfter("soon", now), undefined);
  assert.equal(parseRetryAfter(null, now), undefined);
});
