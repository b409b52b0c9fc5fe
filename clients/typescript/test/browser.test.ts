// The browser build: esbuild bundles the web entry for a browser target
// with no Node.js module in it, and the bundle runs (creates a client over
// Connect and gRPC-Web) without Node's globals. The in-browser call itself
// is tested with the playground against a server that serves Connect.

import assert from "node:assert/strict";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

import { build } from "esbuild";

const dist = dirname(dirname(fileURLToPath(import.meta.url)));
const pkg = dirname(dist);

test("esbuild bundles @errsvc/client for the browser", async () => {
  const result = await build({
    stdin: {
      contents: `import { ErrsvcClient, isRetryable, wire, toConnectError } from "@errsvc/client";
        const c = new ErrsvcClient({ grpc: "https://errsvc.example", http: "https://errsvc.example" });
        const w = new ErrsvcClient({ grpc: "https://errsvc.example", protocol: "grpc-web" });
        globalThis.out = [typeof c.translate, typeof w.translateRest, wire.AgentErrorCode.RATE_LIMITED, typeof isRetryable, typeof toConnectError];`,
      resolveDir: pkg,
      loader: "ts",
    },
    // Resolve the package by its own name, as an app that installed it does.
    alias: { "@errsvc/client": pkg },
    bundle: true,
    write: false,
    platform: "browser",
    format: "iife",
    target: ["es2022"],
    logLevel: "silent",
  });
  assert.deepEqual(result.errors, []);
  const code = result.outputFiles[0].text;
  assert.doesNotMatch(code, /require\("(node:)?(http2|net|tls|zlib|fs)"\)/, "a Node.js module is in the browser bundle");
  assert.doesNotMatch(code, /connect-node|Http2SessionManager/);
  // Run it with a browser's globals only (no process, Buffer or require).
  const ctx: Record<string, unknown> = {
    URL, TextEncoder, TextDecoder, Headers, AbortController, AbortSignal, fetch, setTimeout, clearTimeout, console,
  };
  ctx.globalThis = ctx;
  vm.runInNewContext(code, ctx);
  assert.deepEqual(JSON.parse(JSON.stringify(ctx.out)), ["function", "function", "RATE_LIMITED", "function", "function"]);
  assert.ok(code.length < 600_000, `bundle is ${code.length} bytes`);
});

test("package.json maps the browser build", async () => {
  const { default: p } = await import(join(pkg, "package.json"), { with: { type: "json" } });
  assert.equal(p.exports["."].browser, "./dist/src/web.js");
  assert.equal(p.exports["./web"].default, "./dist/src/web.js");
});
