// The transport-neutral core of @errsvc/client: the client over any Connect
// transport, the REST calls (fetch), retries, errors and the decision
// helpers. index.ts (Node: gRPC over HTTP/2) and web.ts (browsers: Connect or
// gRPC-Web over fetch) give it its default transport.

import {
  create,
  createRegistry,
  fromJson,
  toJson,
  type JsonValue,
  type MessageInitShape,
} from "@bufbuild/protobuf";
import { anyIs, anyUnpack } from "@bufbuild/protobuf/wkt";
import {
  Code,
  ConnectError,
  createClient,
  type CallOptions,
  type Client,
  type Interceptor,
  type Transport,
} from "@connectrpc/connect";

import {
  file_errsvc_v1_translation_service,
  ListVocabulariesRequestSchema,
  TranslateBatchRequestSchema,
  TranslateRequestSchema,
  TranslateResponseSchema,
  TranslationService,
  type ListVocabulariesResponse,
  type TranslateRequest,
  type TranslateResponse,
} from "./gen/errsvc/v1/translation_service_pb.js";
import {
  BadRequestSchema,
  RetryInfoSchema,
  file_google_rpc_error_details,
  type BadRequest_FieldViolation,
} from "./gen/google/rpc/error_details_pb.js";
import { StatusSchema, type Status } from "./gen/google/rpc/status_pb.js";
import { routeUnknown } from "./openjson.js";

export * from "./gen/errsvc/v1/translation_service_pb.js";
export * from "./gen/errsvc/v1/errors_pb.js";
export * from "./gen/errsvc/v1/options_pb.js";
export * from "./gen/errsvc/v1/vocabulary_pb.js";
export * from "./gen/google/rpc/status_pb.js";
export * from "./gen/google/rpc/error_details_pb.js";
export { Code, ConnectError } from "@connectrpc/connect";
export * as wire from "./gen/wire.js";
export * from "./decide.js";

/**
 * Every message errsvc sends, including the google.rpc details it packs in
 * google.protobuf.Any (ErrorInfo, RetryInfo, BadRequest): pass it to
 * fromJson / toJson / equals of a TranslateResponse.
 */
export const registry = createRegistry(file_errsvc_v1_translation_service, file_google_rpc_error_details);

/** A TranslateRequest, or the object create(TranslateRequestSchema, …) takes. */
export type TranslateRequestInit = MessageInitShape<typeof TranslateRequestSchema>;

/** Milliseconds given to a unary call when none is passed. */
export const DEFAULT_TIMEOUT_MS = 10_000;

/** How many requests translateAll keeps unanswered at once. */
export const STREAM_WINDOW = 64;
/** How often translateAll sends one request the stream's rate refused. */
export const STREAM_ITEM_ATTEMPTS = 10;
/** The longest interval between two sends that refusals can set, in ms. */
const MAX_STREAM_PACE_MS = 1000;

/**
 * The wait, in milliseconds, of a stream item refused over the stream's
 * rate (RESOURCE_EXHAUSTED with a google.rpc.RetryInfo), else undefined.
 */
export function rateRefusal(resp: TranslateResponse): number | undefined {
  const e = resp.error;
  if (!e || e.code !== Code.ResourceExhausted) return undefined;
  for (const d of e.details) {
    const ri = anyIs(d, RetryInfoSchema) ? anyUnpack(d, RetryInfoSchema) : undefined;
    if (ri) {
      const secs = Number(ri.retryDelay?.seconds ?? 0n) + (ri.retryDelay?.nanos ?? 0) / 1e9;
      return Math.max(secs * 1000, 0);
    }
  }
  return undefined;
}

export interface ErrsvcClientOptions {
  /**
   * The RPC address: in Node the gRPC port ("127.0.0.1:9090", or a URL such
   * as "https://errsvc.internal:9090"); in a browser the URL serving Connect
   * or gRPC-Web. Not needed when `transport` is given.
   */
  grpc?: string;
  /** The REST address for translateRest: "127.0.0.1:8080" or a URL. */
  http?: string;
  /** Deadline of each unary call in milliseconds (DEFAULT_TIMEOUT_MS); 0 for none. */
  timeoutMs?: number;
  /** Connect interceptors for the gRPC calls. */
  interceptors?: Interceptor[];
  /** Use this transport instead of the default one to `grpc`. */
  transport?: Transport;
  /**
   * Retries of unary calls and REST (see RetryOptions); false turns them off.
   * Streams are never retried.
   */
  retry?: RetryOptions | false;
}

/**
 * How failed calls are made again. An error that carries a
 * google.rpc.RetryInfo (UNAVAILABLE, RESOURCE_EXHAUSTED or ABORTED; over REST
 * also a `Retry-After` header) is retried after the delay it asks for; an
 * UNAVAILABLE without one (connection refused, a restarting server) after an
 * exponential backoff. Nothing else is retried.
 */
export interface RetryOptions {
  /** Attempts in all, the first included (3); 1 turns retries off. */
  maxAttempts?: number;
  /** Backoff before the first retry of an UNAVAILABLE without a delay (100 ms), doubling up to maxBackoffMs (2000). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** The longest delay a server may ask for (5000 ms): past it the call fails at once, it does not wait less. */
  maxDelayMs?: number;
  /** The most the retries of one call may wait in all (10000 ms). */
  maxTotalWaitMs?: number;
}

/** The defaults of RetryOptions. */
export const DEFAULT_RETRY: Required<RetryOptions> = {
  maxAttempts: 3,
  initialBackoffMs: 100,
  maxBackoffMs: 2000,
  maxDelayMs: 5000,
  maxTotalWaitMs: 10_000,
};

/** What a default transport factory gives the client. */
export interface DefaultTransport {
  transport: Transport;
  close?: () => void;
}

/** Makes the default transport to `baseUrl` (Node: gRPC; browsers: Connect). */
export type TransportFactory = (baseUrl: string, interceptors: Interceptor[]) => DefaultTransport;

/** A REST call that errsvc answered with an error status. */
export class ErrsvcRestError extends ConnectError {
  /** The HTTP status (400 for a malformed request). */
  readonly httpStatus: number;
  /** The google.rpc.Status of the body, when it was one. */
  readonly status: Status | undefined;
  /** The wait the `Retry-After` header asked for, in ms. */
  readonly retryAfterMs: number | undefined;

  constructor(httpStatus: number, code: Code, message: string, status: Status | undefined, retryAfterMs?: number) {
    super(message, code);
    this.httpStatus = httpStatus;
    this.status = status;
    this.retryAfterMs = retryAfterMs;
    if (status) {
      for (const d of status.details) {
        this.details.push({ type: d.typeUrl.slice(d.typeUrl.lastIndexOf("/") + 1), value: d.value });
      }
    }
  }
}

/**
 * The google.rpc.BadRequest field violations an error carries: for a
 * malformed request, the fields it names ("labby_error.kind", "source").
 * Works for gRPC errors (ConnectError), REST errors (ErrsvcRestError) and
 * the google.rpc.Status of a batch or stream item.
 */
export function fieldViolations(err: unknown): BadRequest_FieldViolation[] {
  if (isStatus(err)) {
    return err.details
      .filter((d) => anyIs(d, BadRequestSchema))
      .flatMap((d) => anyUnpack(d, BadRequestSchema)?.fieldViolations ?? []);
  }
  return ConnectError.from(err)
    .findDetails(BadRequestSchema)
    .flatMap((br) => br.fieldViolations);
}

function isStatus(v: unknown): v is Status {
  return typeof v === "object" && v !== null && (v as { $typeName?: string }).$typeName === StatusSchema.typeName;
}

function toUrl(addr: string): string {
  const trimmed = addr.replace(/\/+$/, "");
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
}

/** Parses a TranslateRequest from its JSON form (proto field names); a ConnectError (InvalidArgument) when it is not one. */
export function requestFromJson(json: JsonValue): TranslateRequest {
  try {
    return fromJson(TranslateRequestSchema, routeUnknown(json, TranslateRequestSchema), { registry });
  } catch (e) {
    throw ConnectError.from(e, Code.InvalidArgument);
  }
}

/** Parses a TranslateResponse from its JSON form, Any details included. */
export function responseFromJson(json: JsonValue): TranslateResponse {
  return fromJson(TranslateResponseSchema, routeUnknown(json, TranslateResponseSchema), { registry });
}

/** The JSON form (proto field names, as REST uses) of a TranslateResponse. */
export function responseToJson(resp: TranslateResponse): JsonValue {
  return toJson(TranslateResponseSchema, resp, { registry, useProtoFieldName: true });
}

/**
 * A client of one errsvc over any Connect transport; index.ts and web.ts
 * export it as ErrsvcClient with their default transport. Every failure
 * rejects with a ConnectError (REST answers: ErrsvcRestError, a ConnectError).
 */
export class ErrsvcClientCore {
  /** The generated Connect client, for anything the wrapper does not cover. */
  readonly rpc: Client<typeof TranslationService>;
  private readonly httpBase: string | undefined;
  private readonly timeoutMs: number;
  private readonly retry: Required<RetryOptions> | undefined;
  private readonly closeTransport: (() => void) | undefined;

  constructor(options: ErrsvcClientOptions, defaultTransport?: TransportFactory) {
    this.retry = retryPolicy(options.retry);
    const interceptors = [...(this.retry ? [retryInterceptor(this.retry)] : []), ...(options.interceptors ?? [])];
    let transport = options.transport;
    if (!transport) {
      if (!options.grpc || !defaultTransport) {
        throw new ConnectError("ErrsvcClient: give `grpc` (an address) or `transport`", Code.InvalidArgument);
      }
      const made = defaultTransport(toUrl(options.grpc), interceptors);
      transport = made.transport;
      this.closeTransport = made.close;
      this.rpc = createClient(TranslationService, transport);
    } else {
      this.rpc = createClient(TranslationService, transport);
      // A transport given as is: the retries wrap its calls here.
      if (this.retry) this.rpc = wrapWithRetry(this.rpc, this.retry);
    }
    this.httpBase = options.http ? toUrl(options.http) : undefined;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  private opts(options?: CallOptions): CallOptions {
    if (options?.timeoutMs !== undefined || this.timeoutMs <= 0) return options ?? {};
    return { ...options, timeoutMs: this.timeoutMs };
  }

  /**
   * Translates one error into every requested vocabulary. A malformed
   * request rejects with a ConnectError of Code.InvalidArgument;
   * fieldViolations(err) names the field.
   */
  translate(request: TranslateRequest | TranslateRequestInit, options?: CallOptions): Promise<TranslateResponse> {
    return this.rpc.translate(create(TranslateRequestSchema, request), this.opts(options));
  }

  /**
   * Translates many errors in one call, answering in the same order. A
   * malformed item does not fail the call: its response carries its own
   * `error` (a google.rpc.Status; see fieldViolations).
   */
  async translateBatch(
    requests: Array<TranslateRequest | TranslateRequestInit>,
    options?: CallOptions,
  ): Promise<TranslateResponse[]> {
    const batch = create(TranslateBatchRequestSchema, {
      requests: requests.map((r) => create(TranslateRequestSchema, r)),
    });
    const resp = await this.rpc.translateBatch(batch, this.opts(options));
    return resp.responses;
  }

  /**
   * Streams requests to TranslateStream and yields each answer in order;
   * like a batch item, a malformed request gets its own `error`. No
   * deadline unless options.timeoutMs is given.
   */
  translateStream(
    requests: AsyncIterable<TranslateRequest | TranslateRequestInit> | Iterable<TranslateRequest | TranslateRequestInit>,
    options?: CallOptions,
  ): AsyncIterable<TranslateResponse> {
    async function* messages() {
      for await (const r of requests) yield create(TranslateRequestSchema, r);
    }
    return this.rpc.translateStream(messages(), options);
  }

  /**
   * Translates every request over one TranslateStream, sending while it
   * receives, and resolves to the answers in the order of `requests` (a
   * malformed request's answer carries its own `error`, as in a batch).
   *
   * errsvc limits the messages per second of a stream: a message over the
   * rate is answered with RESOURCE_EXHAUSTED and a google.rpc.RetryInfo.
   * translateAll then sends the refused request again and from then on
   * paces its sends by the delay the server asked for; a request refused
   * STREAM_ITEM_ATTEMPTS times keeps the refusal as its answer.
   */
  async translateAll(
    requests: Array<TranslateRequest | TranslateRequestInit>,
    options?: CallOptions,
  ): Promise<TranslateResponse[]> {
    const reqs = requests.map((r) => create(TranslateRequestSchema, r));
    const n = reqs.length;
    const out: TranslateResponse[] = new Array(n);
    if (n === 0) return out;
    const queue = reqs.map((_, i) => i); // still to send; a refused one goes first
    const inFlight: number[] = []; // sent and not yet answered, in order
    const attempts: number[] = new Array(n).fill(0);
    let done = 0;
    let interval = 0; // least milliseconds between two sends
    let next = 0; // no send before (performance.now())
    let stopped = false;
    let wake: (() => void) | undefined;
    const notify = () => {
      const w = wake;
      wake = undefined;
      w?.();
    };
    const stop = new AbortController();
    const signal = options?.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;

    async function* sender() {
      while (done < n && !stopped) {
        if (queue.length === 0 || inFlight.length >= STREAM_WINDOW) {
          await new Promise<void>((resolve) => (wake = resolve));
          continue;
        }
        const wait = next - performance.now();
        if (wait > 0) {
          await new Promise((resolve) => setTimeout(resolve, wait));
          continue;
        }
        const i = queue.shift()!;
        inFlight.push(i);
        attempts[i]++;
        next = performance.now() + interval;
        yield reqs[i];
      }
    }

    try {
      for await (const resp of this.rpc.translateStream(sender(), { ...options, signal })) {
        const i = inFlight.shift();
        if (i === undefined) throw new ConnectError("ErrsvcClient: stream answered more messages than were sent", Code.Internal);
        const delay = rateRefusal(resp);
        if (delay !== undefined && attempts[i] < STREAM_ITEM_ATTEMPTS) {
          queue.unshift(i);
          interval = Math.min(Math.max(interval, delay), MAX_STREAM_PACE_MS);
          next = Math.max(next, performance.now() + Math.min(delay, MAX_STREAM_PACE_MS));
        } else {
          out[i] = resp;
          done++;
        }
        notify();
      }
    } finally {
      stopped = true;
      notify();
    }
    if (done !== n) throw new ConnectError(`ErrsvcClient: stream ended after ${done} of ${n} answers`, Code.Internal);
    return out;
  }

  /** Every vocabulary, each term with its meaning, and the matrix rows. */
  listVocabularies(options?: CallOptions): Promise<ListVocabulariesResponse> {
    return this.rpc.listVocabularies(create(ListVocabulariesRequestSchema), this.opts(options));
  }

  /**
   * Translate over REST (POST /v1/translate on the `http` address). Rejects
   * with an ErrsvcRestError (httpStatus 400 and Code.InvalidArgument for a
   * malformed request).
   */
  async translateRest(request: TranslateRequest | TranslateRequestInit, options?: CallOptions): Promise<TranslateResponse> {
    let json: JsonValue;
    try {
      json = toJson(TranslateRequestSchema, create(TranslateRequestSchema, request), { registry, useProtoFieldName: true });
    } catch (e) {
      throw ConnectError.from(e, Code.InvalidArgument);
    }
    const body = await this.translateRestJson(json, options);
    try {
      return responseFromJson(body);
    } catch (e) {
      throw new ConnectError(`errsvc answered something other than a TranslateResponse: ${String(e)}`, Code.Internal, undefined, undefined, e);
    }
  }

  /**
   * POST /v1/translate with a JSON body as is; resolves to the JSON answer.
   * Retried as RetryOptions say (Retry-After, RetryInfo, network failures).
   */
  async translateRestJson(body: JsonValue, options?: CallOptions): Promise<JsonValue> {
    const httpBase = this.httpBase;
    if (!httpBase) throw new ConnectError("ErrsvcClient: no `http` address was given", Code.FailedPrecondition);
    const once = () => restCall(httpBase, body, options?.timeoutMs ?? this.timeoutMs, options);
    return this.retry ? withRetry(this.retry, options?.signal, once) : once();
  }

  /** Ends the connection (Node's HTTP/2 session); the client cannot be used afterwards. */
  close(): void {
    this.closeTransport?.();
  }
}

async function restCall(httpBase: string, body: JsonValue, timeoutMs: number, options?: CallOptions): Promise<JsonValue> {
  const signals = [options?.signal, timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined].filter(
    (s): s is AbortSignal => s !== undefined,
  );
  const headers = new Headers(options?.headers);
  headers.set("Content-Type", "application/json");
  headers.set("Accept", "application/json");
  let res: Response;
  let text: string;
  try {
    res = await fetch(`${httpBase}/v1/translate`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
      signal: signals.length ? AbortSignal.any(signals) : undefined,
    });
    text = await res.text();
  } catch (e) {
    throw fetchError(e);
  }
  if (!res.ok) throw restError(res.status, text, parseRetryAfter(res.headers.get("retry-after")));
  try {
    return JSON.parse(text) as JsonValue;
  } catch (e) {
    throw new ConnectError(`errsvc answered something other than JSON (HTTP ${res.status})`, Code.Internal, undefined, undefined, e);
  }
}

/** A ConnectError for a fetch that got no answer (a network TypeError, a timeout, an abort). */
function fetchError(e: unknown): ConnectError {
  if (e instanceof ConnectError) return e;
  const name = (e as { name?: string } | null)?.name;
  if (name === "TimeoutError") return new ConnectError("REST call timed out", Code.DeadlineExceeded, undefined, undefined, e);
  if (name === "AbortError") return new ConnectError("REST call aborted", Code.Canceled, undefined, undefined, e);
  const cause = (e as { cause?: { code?: string } } | null)?.cause?.code;
  return new ConnectError(`REST call failed: ${String((e as Error)?.message ?? e)}${cause ? ` (${cause})` : ""}`, Code.Unavailable, undefined, undefined, e);
}

/** Parses a Retry-After header (delay-seconds or an HTTP date) into ms. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(at - now, 0);
}

const RETRY_INFO_CODES = new Set<Code>([Code.Unavailable, Code.ResourceExhausted, Code.Aborted]);

/** The delay an error asks for (RetryInfo, else Retry-After), in ms. */
function askedDelayMs(err: ConnectError): number | undefined {
  if (!RETRY_INFO_CODES.has(err.code)) return undefined;
  const ri = err.findDetails(RetryInfoSchema)[0];
  if (ri?.retryDelay) return Math.max(Number(ri.retryDelay.seconds) * 1000 + ri.retryDelay.nanos / 1e6, 0);
  if (err instanceof ErrsvcRestError && err.retryAfterMs !== undefined) return err.retryAfterMs;
  return undefined;
}

function retryPolicy(o: RetryOptions | false | undefined): Required<RetryOptions> | undefined {
  if (o === false) return undefined;
  const p = { ...DEFAULT_RETRY, ...(o ?? {}) };
  return p.maxAttempts >= 2 ? p : undefined;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs call, and again as the policy allows: after the delay an error asks
 * for (failing at once when it is over maxDelayMs), or after a backoff for an
 * UNAVAILABLE without one; never past maxAttempts or maxTotalWaitMs.
 */
export async function withRetry<T>(policy: Required<RetryOptions>, signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await call();
    } catch (e) {
      const err = ConnectError.from(e);
      if (attempt >= policy.maxAttempts) throw err;
      let delay = askedDelayMs(err);
      if (delay !== undefined) {
        if (delay > policy.maxDelayMs) throw err;
      } else if (err.code === Code.Unavailable) {
        const backoff = Math.min(policy.initialBackoffMs * 2 ** (attempt - 1), policy.maxBackoffMs);
        delay = backoff / 2 + Math.random() * (backoff / 2);
      } else {
        throw err;
      }
      if (waited + delay > policy.maxTotalWaitMs) throw err;
      waited += delay;
      try {
        await sleep(delay, signal);
      } catch {
        throw err;
      }
    }
  }
}

/** A Connect interceptor retrying unary calls as withRetry does. */
export function retryInterceptor(policy: Required<RetryOptions>): Interceptor {
  return (next) => async (req) => {
    if (req.stream) return next(req);
    return withRetry(policy, req.signal, () => next(req));
  };
}

function wrapWithRetry(rpc: Client<typeof TranslationService>, policy: Required<RetryOptions>): Client<typeof TranslationService> {
  return {
    ...rpc,
    translate: (req, opts) => withRetry(policy, opts?.signal, () => rpc.translate(req, opts)),
    translateBatch: (req, opts) => withRetry(policy, opts?.signal, () => rpc.translateBatch(req, opts)),
    listVocabularies: (req, opts) => withRetry(policy, opts?.signal, () => rpc.listVocabularies(req, opts)),
  };
}

function restError(httpStatus: number, text: string, retryAfterMs?: number): ErrsvcRestError {
  let status: Status | undefined;
  try {
    status = fromJson(StatusSchema, JSON.parse(text) as JsonValue, { registry, ignoreUnknownFields: true });
  } catch {
    status = undefined;
  }
  const code = status && status.code in Code ? (status.code as Code) : codeFromHttp(httpStatus);
  return new ErrsvcRestError(httpStatus, code, status?.message || text.slice(0, 1024) || `HTTP ${httpStatus}`, status, retryAfterMs);
}

function codeFromHttp(httpStatus: number): Code {
  switch (httpStatus) {
    case 400:
      return Code.InvalidArgument;
    case 401:
      return Code.Unauthenticated;
    case 403:
      return Code.PermissionDenied;
    case 404:
      return Code.NotFound;
    case 409:
      return Code.Aborted;
    case 413:
    case 429:
      return Code.ResourceExhausted;
    case 503:
      return Code.Unavailable;
    case 504:
      return Code.DeadlineExceeded;
    default:
      return Code.Unknown;
  }
}
