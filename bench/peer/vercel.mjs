// vercel.mjs: the Vercel AI SDK's default retry decision for each fixture.
//
// Reads [{name, status, headers, body}] as JSON on stdin and writes
// [{name, retryable, wait_ms}] on stdout. retryable is APICallError's own
// default isRetryable (@ai-sdk/provider), built from the answer's status,
// headers and body as the SDK's providers build it. wait_ms is the delay
// the `ai` package's retry loop would take from the answer's headers: its
// getRetryDelayInMs is not exported, so it is taken from the installed
// package's source at run time (nothing copied here) and called with a
// backoff of -1, so that -1 back means "no wait from the provider".
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { APICallError } from "@ai-sdk/provider";

const require = createRequire(import.meta.url);
const aiDir = dirname(require.resolve("ai/package.json"));
const src = readFileSync(join(aiDir, "dist", "index.mjs"), "utf8");
const start = src.indexOf("function getRetryDelayInMs(");
const end = src.indexOf("var retryWithExponentialBackoffRespectingRetryHeaders", start);
if (start < 0 || end < 0) {
  throw new Error("getRetryDelayInMs not found in the installed ai package");
}
const getRetryDelayInMs = new Function("APICallError2", src.slice(start, end) + "\nreturn getRetryDelayInMs;")(APICallError);

const input = JSON.parse(readFileSync(0, "utf8"));
const out = input.map((f) => {
  // A 2xx answer never becomes an APICallError: the stream's error part is
  // surfaced as it is, and the retry loop never sees it.
  if (f.status < 400) {
    return { name: f.name, retryable: false, wait_ms: -1 };
  }
  const headers = Object.fromEntries(Object.entries(f.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
  const error = new APICallError({
    message: "replayed fixture",
    url: "http://127.0.0.1/",
    requestBodyValues: {},
    statusCode: f.status,
    responseHeaders: headers,
    responseBody: f.body,
  });
  const wait = error.isRetryable ? getRetryDelayInMs({ error, exponentialBackoffDelay: -1 }) : -1;
  return { name: f.name, retryable: error.isRetryable, wait_ms: wait };
});
process.stdout.write(JSON.stringify(out));
