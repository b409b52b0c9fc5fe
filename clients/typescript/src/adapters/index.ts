// Retry adapters: errsvc's decision helpers where the frameworks decide.
//
//   - Advisor asks errsvc (one Translate call, REST or gRPC, with the
//     provider's answer as provider_response) and runs decide(); when errsvc
//     cannot be reached it logs so and answers undefined: the framework's
//     own behaviour applies.
//   - errsvcFetch wraps `fetch` for the `openai` package: the client keeps
//     its retry loop (maxRetries) and obeys the headers it already reads,
//     x-should-retry (errsvc's retry decision) and retry-after-ms (errsvc's
//     wait); x-errsvc-class / x-errsvc-action tell the caller the rest (a
//     401 says reauthenticate).
//   - withErrsvcRetry wraps a Vercel AI SDK call (generateText, streamText's
//     first chunk, embed, ...): the SDK's own retries are off (maxRetries: 0)
//     and the wrapper retries as errsvc decides, reading the APICallError's
//     status, headers and body.
//
// See docs/INTEGRATIONS.md ("Retry adapters").

import type { TranslateResponse } from "../gen/errsvc/v1/translation_service_pb.js";
import type { ErrsvcClientCore } from "../core.js";
import { decide, type Decision } from "../decide.js";

/** The longest stated wait the adapters follow (the openai and AI SDK clients ignore a server wait above 60 s). */
export const ADAPTER_MAX_WAIT_MS = 60_000;

/** errsvc's answer for one failed call and what the adapter does. */
export interface Advice {
  response: TranslateResponse;
  decision: Decision;
  /** Make the call again (retryable, its wait under the cap). */
  retry: boolean;
  /** Milliseconds to wait first; 0 when errsvc states none (the framework's backoff). */
  waitMs: number;
  errorClass: string;
  action: string;
}

export interface AdvisorOptions {
  /** Over REST (translateRest) when true (the default), else gRPC (translate). */
  rest?: boolean;
  maxWaitMs?: number;
  /** Multiplies every wait (tests: 0.02). */
  waitScale?: number;
  /** Whose behaviour applies when errsvc cannot be reached (in the log line). */
  framework?: string;
  /** The log line's sink; console.warn by default. */
  log?: (line: string) => void;
  onAdvice?: (advice: Advice) => void;
  /** Deadline of the Translate call, in ms (2000). */
  timeoutMs?: number;
}

export interface ProviderAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** openai, anthropic, ...; guessed from the body and path when absent. */
  provider?: string;
  path?: string;
}

/** The provider family of an answer: anthropic for its error body, openai for an {"error": {...}} body, else by the path. */
export function guessProvider(path: string, body: string): string {
  if (body.includes('"type":"error"') || body.includes('"type": "error"') || body.includes("event: error")) return "anthropic";
  if (body.includes('"error"')) return "openai";
  return path.endsWith("/messages") ? "anthropic" : "openai";
}

/** Asks errsvc about failed provider answers. */
export class Advisor {
  readonly options: Required<Omit<AdvisorOptions, "onAdvice">> & Pick<AdvisorOptions, "onAdvice">;

  constructor(
    readonly client: ErrsvcClientCore,
    options: AdvisorOptions = {},
  ) {
    this.options = {
      rest: options.rest ?? true,
      maxWaitMs: options.maxWaitMs ?? ADAPTER_MAX_WAIT_MS,
      waitScale: options.waitScale ?? 1,
      framework: options.framework ?? "the framework",
      log: options.log ?? ((line) => console.warn(line)),
      onAdvice: options.onAdvice,
      timeoutMs: options.timeoutMs ?? 2000,
    };
  }

  /** errsvc's advice on one provider answer, or undefined (logged) when errsvc cannot be reached. */
  async advise(answer: ProviderAnswer, framework?: string): Promise<Advice | undefined> {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(answer.headers)) headers[k.toLowerCase()] = v;
    const request = {
      source: {
        case: "providerResponse" as const,
        value: {
          provider: answer.provider ?? guessProvider(answer.path ?? "", answer.body),
          status: answer.status,
          headers,
          body: answer.body,
        },
      },
    };
    let response: TranslateResponse;
    try {
      const opts = { timeoutMs: this.options.timeoutMs };
      response = this.options.rest ? await this.client.translateRest(request, opts) : await this.client.translate(request, opts);
    } catch (err) {
      this.options.log(
        `errsvc could not be reached (${err instanceof Error ? err.message : String(err)}); falling back to ${framework ?? this.options.framework}'s own retry behaviour`,
      );
      return undefined;
    }
    const decision = decide(response, { maxWaitMs: this.options.maxWaitMs });
    const advice: Advice = {
      response,
      decision,
      retry: decision.retryable && decision.retryAfterMs !== undefined,
      waitMs: decision.retryAfterMs ?? 0,
      errorClass: response.classification?.class ?? "",
      action: response.labbyError?.recovery?.action ?? "",
    };
    this.options.onAdvice?.(advice);
    return advice;
  }

  /**
   * errsvc's advice on an error event that arrived after a 200 had begun
   * streaming (events: the stream as received, the error event included).
   * retry is true only when repeating the same call is safe, which it is not
   * once output began (same_arguments discouraged): the caller decides.
   */
  async adviseStreamError(events: string, provider?: string): Promise<Advice | undefined> {
    const advice = await this.advise({ status: 200, headers: { "content-type": "text/event-stream" }, body: events, provider });
    if (!advice || !advice.retry || advice.decision.sameArgumentsSafe) return advice;
    return { ...advice, retry: false };
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms * this.options.waitScale);
      signal?.addEventListener("abort", () => {
        clearTimeout(t);
        resolve();
      });
    });
  }
}

function headersOf(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    out[k] = v;
  });
  return out;
}

const DECISION_HEADERS = ["x-should-retry", "retry-after-ms", "retry-after", "x-errsvc-class", "x-errsvc-action"];

/**
 * A `fetch` for the `openai` package (new OpenAI({ fetch: errsvcFetch(advisor) })):
 * every answer of status 400 or more is translated, and x-should-retry /
 * retry-after-ms set from errsvc's decision, which the client's retry loop
 * obeys before its own status rules. Unreachable errsvc: the answer as it came.
 */
export function errsvcFetch(advisor: Advisor, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (res.status < 400) return res;
    const body = await res.text();
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const advice = await advisor.advise({ status: res.status, headers: headersOf(res.headers), body, path: new URL(url).pathname }, "openai");
    const headers = new Headers(res.headers);
    if (advice) {
      for (const h of DECISION_HEADERS) headers.delete(h);
      headers.set("x-errsvc-class", advice.errorClass);
      headers.set("x-errsvc-action", advice.action);
      headers.set("x-should-retry", advice.retry ? "true" : "false");
      if (advice.retry && advice.waitMs > 0) {
        headers.set("retry-after-ms", String(Math.max(1, Math.round(advice.waitMs * advisor.options.waitScale))));
      }
    }
    return new Response(body, { status: res.status, statusText: res.statusText, headers });
  };
}

/** The provider answer behind an AI SDK error (an APICallError, or one inside a RetryError or as a cause). */
export function answerOf(err: unknown): ProviderAnswer | undefined {
  const seen = new Set<unknown>();
  let e: unknown = err;
  while (e && typeof e === "object" && !seen.has(e)) {
    seen.add(e);
    const o = e as { statusCode?: unknown; responseHeaders?: unknown; responseBody?: unknown; url?: unknown; lastError?: unknown; cause?: unknown };
    if (typeof o.statusCode === "number" && o.statusCode >= 400) {
      const headers = (o.responseHeaders ?? {}) as Record<string, string>;
      const path = typeof o.url === "string" ? safePath(o.url) : "";
      return { status: o.statusCode, headers, body: typeof o.responseBody === "string" ? o.responseBody : "", path };
    }
    e = o.lastError ?? o.cause;
  }
  return undefined;
}

function safePath(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return "";
  }
}

/** What withErrsvcRetry passes the call: the framework's own retries, off unless errsvc cannot be reached. */
export interface CallSettings {
  maxRetries?: number;
}

export interface RetryOptions {
  /** More calls at most (2). */
  maxRetries?: number;
  /** The framework's retries when errsvc cannot be reached (undefined: its default). */
  fallbackMaxRetries?: number;
  signal?: AbortSignal;
  /** Told every error's advice (or undefined: errsvc unreachable). */
  onError?: (err: unknown, advice: Advice | undefined) => void;
}

/** An error errsvc said not to retry: the provider's error, with errsvc's advice. */
export class ErrsvcDecidedError extends Error {
  constructor(
    readonly advice: Advice,
    override readonly cause: unknown,
  ) {
    super(`${advice.errorClass || "error"} (${advice.action || "no action"}): ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "ErrsvcDecidedError";
  }
}

/**
 * Runs a Vercel AI SDK call with errsvc deciding the retries:
 *
 *   await withErrsvcRetry(advisor, (s) => generateText({ model, prompt, ...s }))
 *
 * The call gets { maxRetries: 0 } (the SDK's own retries off); a failure
 * with a provider answer is translated, and the call made again only when
 * errsvc says so, after its wait. When errsvc cannot be reached the call is
 * made again with the SDK's own retries ({ maxRetries: fallbackMaxRetries }),
 * said in a log line.
 */
export async function withErrsvcRetry<T>(advisor: Advisor, call: (settings: CallSettings) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const budget = options.maxRetries ?? 2;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call({ maxRetries: 0 });
    } catch (err) {
      const answer = answerOf(err);
      if (!answer) throw err;
      const advice = await advisor.advise(answer, "the Vercel AI SDK");
      options.onError?.(err, advice);
      if (!advice) {
        return call(options.fallbackMaxRetries === undefined ? {} : { maxRetries: options.fallbackMaxRetries });
      }
      if (!advice.retry || attempt > budget) throw new ErrsvcDecidedError(advice, err);
      await advisor.sleep(advice.waitMs > 0 ? advice.waitMs : 500 * 2 ** (attempt - 1), options.signal);
    }
  }
}
