// The Vercel AI SDK's own retry decision over the provider fixtures.
//
// For every fixture, with Date.now pinned to the fixture's clock:
//  - the APICallError the SDK builds from the HTTP answer, by its own
//    handler (@ai-sdk/provider-utils createStatusCodeErrorResponseHandler on a
//    fetch Response of the fixture's status, headers and body): its
//    isRetryable is APICallError's rule (408, 409, 429, >= 500);
//  - the SDK's retry loop (ai/internal prepareRetries, the one generateText
//    and streamText use, maxRetries 1) run over a call that throws that error
//    once: retry is whether it calls again, wait_s the delay it sleeps first
//    (setTimeout is stubbed to record it) when the answer states a wait
//    (retry-after-ms or retry-after), else null (the SDK's own backoff).
// A 2xx answer never becomes an APICallError (an error inside a 200 stream is
// a stream part, not retried): retry false. The SDK has no error class: class
// is null.
//
// Usage: node isretryable.mjs OUT.json [FIXTURES]
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { createStatusCodeErrorResponseHandler } from "@ai-sdk/provider-utils";
import { APICallError } from "@ai-sdk/provider";
import { prepareRetries } from "ai/internal";

const here = dirname(fileURLToPath(import.meta.url));
const [out, folder = join(here, "..", "..", "testdata", "providers")] = process.argv.slice(2);
const version = (name) => JSON.parse(readFileSync(join(here, "node_modules", name, "package.json"), "utf8")).version;

const realNow = Date.now;
const realSetTimeout = globalThis.setTimeout;

async function classify(fx) {
  const a = fx.answer;
  if (a.status >= 200 && a.status < 300) return { class: null, retry: false, wait_s: null };
  const response = new Response(a.body, { status: a.status, headers: a.headers });
  const url = "http://127.0.0.1:9/v1/x";
  const { value: error } = await createStatusCodeErrorResponseHandler()({ response, url, requestBodyValues: {} });
  if (!APICallError.isInstance(error)) throw new Error(`${fx.name}: not an APICallError`);
  const { retry } = prepareRetries({ maxRetries: 1 });
  let calls = 0;
  let slept = null;
  globalThis.setTimeout = (fn, ms, ...rest) => { slept = ms; return realSetTimeout(fn, 0, ...rest); };
  try {
    await retry(async () => { calls++; if (calls === 1) throw error; return "ok"; });
  } catch (e) {
    if (e !== error) throw e;
  } finally {
    globalThis.setTimeout = realSetTimeout;
  }
  const retried = calls > 1;
  const stated = response.headers.has("retry-after-ms") || response.headers.has("retry-after");
  return { class: null, retry: retried, wait_s: retried && stated && slept != null ? slept / 1000 : null };
}

const answers = {
  $meta: {
    classifier: "Vercel AI SDK",
    version: `ai ${version("ai")}, @ai-sdk/provider ${version("@ai-sdk/provider")}`,
    how: "APICallError.isRetryable via createStatusCodeErrorResponseHandler; the retry loop of prepareRetries for the wait",
    notions: ["retry", "wait"],
  },
};
for (const file of readdirSync(folder).filter((f) => f.endsWith(".json")).sort()) {
  const fx = JSON.parse(readFileSync(join(folder, file), "utf8"));
  const now = Date.parse(fx.answer.received_at || fx.now);
  Date.now = () => now;
  try {
    answers[fx.name] = await classify(fx);
  } finally {
    Date.now = realNow;
  }
}
writeFileSync(out, JSON.stringify(answers, null, 1) + "\n");
