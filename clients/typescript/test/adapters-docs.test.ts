// The TypeScript examples of docs/INTEGRATIONS.md ("Retry adapters"), run as
// written (esbuild strips the types; the package imports itself as
// @errsvc/client) against the mock provider (a rate-limit 429 with
// retry-after: 1, then 200) and the live errsvc: each must print ok.

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { transform } from "esbuild";

import { MockProvider, scenario } from "./adapters-scenario.js";

const here = dirname(fileURLToPath(import.meta.url));
// dist/test -> the package (clients/typescript) and the repository.
const pkg = join(here, "..", "..");
const docs = readFileSync(join(pkg, "..", "..", "docs", "INTEGRATIONS.md"), "utf8");
const examples = new Map([...docs.matchAll(/<!-- example: ([a-z0-9-]+) -->\s*```ts\n([\s\S]*?)```/g)].map((m) => [m[1], m[2]]));

const haveServer = !!process.env.ERRSVC_GRPC_ADDR && !!process.env.ERRSVC_HTTP_ADDR;
const skip = haveServer ? false : "ERRSVC_GRPC_ADDR / ERRSVC_HTTP_ADDR unset: no errsvc to call";

describe("docs/INTEGRATIONS.md examples", { skip }, () => {
  const mock = new MockProvider();
  const out = join(pkg, "dist", "docexamples");
  before(async () => {
    await mock.start();
    mkdirSync(out, { recursive: true });
  });
  after(() => {
    mock.server.close();
    rmSync(out, { recursive: true, force: true });
  });

  for (const name of ["typescript-openai", "typescript-ai"]) {
    test(name, async () => {
      const src = examples.get(name);
      assert.ok(src, `docs/INTEGRATIONS.md has no example ${name}`);
      const { code } = await transform(src, { loader: "ts", format: "esm", target: "node20" });
      const file = join(out, `${name}.mjs`);
      writeFileSync(file, code);
      const key = `docs-${name}`;
      mock.steps.set(key, scenario.steps.find((s) => s.name === "rate_limit_429")!);
      const env = { ...process.env, OPENAI_BASE_URL: `${mock.url}/${key}/v1`, OPENAI_API_KEY: "sk-test" };
      const { stdout } = await promisify(execFile)(process.execPath, [file], { env, timeout: 60_000 });
      assert.equal(stdout.trim().split("\n").pop(), "ok", stdout);
      assert.equal(mock.took(key)[0], 2, "the 429 retried once");
    });
  }
});
