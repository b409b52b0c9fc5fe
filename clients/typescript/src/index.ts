// @errsvc/client: the TypeScript client of errsvc, the error translation
// service. gRPC through Connect (@connectrpc/connect-node's gRPC transport
// always HTTP/2) for every method, and REST (the grpc-gateway) for translate.

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
import { createGrpcTransport, Http2SessionManager } from "@connectrpc/connect-node";

import { routeUnknown } from "./openjson.js";

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

export * from "./gen/errsvc/v1/translation_service_pb.js";
export * from "./gen/errsvc/v1/errors_pb.js";
export * from "./gen/errsvc/v1/options_pb.js";
export * from "./gen/errsvc/v1/vocabulary_pb.js";
export * from "./gen/google/rpc/status_pb.js";
export * from "./gen/google/rpc/error_details_pb.js";
export { Code, ConnectError } from "@connectrpc/connect";

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
  /** The gRPC address: "127.0.0.1:9090", or a URL such as "https://errsvc.internal:9090". */
  grpc: string;
  /** The REST address for translateRest: "127.0.0.1:8080" or a URL. */
  http?: string;
  /** Deadline of each unary call in milliseconds (DEFAULT_TIMEOUT_MS); 0 for none. */
  timeoutMs?: number;
  /** Connect interceptors for the gRPC calls. */
  interceptors?: Interceptor[];
  /** Use this transport instead of a gRPC transport to `grpc`. */
  transport?: Transport;
}

/** A REST call that errsvc answered with an error status. */
export class ErrsvcRestError extends ConnectError {
  /** The HTTP status (400 for a malformed request). */
  readonly httpStatus: number;
  /** The google.rpc.Status of the body, when it was one. */
  readonly status: Status | undefined;

  constructor(httpStatus: number, code: Code, message: string, status: Status | undefined) {
    super(message, code);
    this.httpStatus = httpStatus;
    this.status = status;
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

/** Parses a TranslateRequest from its JSON form (proto field names). */
export function requestFromJson(json: JsonValue): TranslateRequest {
  return fromJson(TranslateRequestSchema, routeUnknown(json, TranslateRequestSchema), { registry });
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
 * A client of one errsvc. Call close() when done: it ends the HTTP/2
 * connection, which would otherwise keep Node running until it idles out.
 */
export class ErrsvcClient {
  /** The generated Connect client, for anything the wrapper does not cover. */
  readonly rpc: Client<typeof TranslationService>;
  private readonly httpBase: string | undefined;
  private readonly timeoutMs: number;
  private readonly sessionManager: Http2SessionManager | undefined;

  constructor(options: ErrsvcClientOptions) {
    let transport = options.transport;
    if (!transport) {
      const baseUrl = toUrl(options.grpc);
      this.sessionManager = new Http2SessionManager(baseUrl);
      transport = createGrpcTransport({
        baseUrl,
        sessionManager: this.sessionManager,
        interceptors: options.interceptors,
      });
    }
    this.rpc = createClient(TranslationService, transport);
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
        if (i === undefined) throw new Error("ErrsvcClient: stream answered more messages than were sent");
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
    if (done !== n) throw new Error(`ErrsvcClient: stream ended after ${done} of ${n} answers`);
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
    const json = toJson(TranslateRequestSchema, create(TranslateRequestSchema, request), {
      registry,
      useProtoFieldName: true,
    });
    return responseFromJson(await this.translateRestJson(json, options));
  }

  /** POST /v1/translate with a JSON body as is; resolves to the JSON answer. */
  async translateRestJson(body: JsonValue, options?: CallOptions): Promise<JsonValue> {
    if (!this.httpBase) throw new Error("ErrsvcClient: no `http` address was given");
    const timeoutMs = options?.timeoutMs ?? this.timeoutMs;
    const signals = [options?.signal, timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined].filter(
      (s): s is AbortSignal => s !== undefined,
    );
    const res = await fetch(`${this.httpBase}/v1/translate`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
      signal: signals.length ? AbortSignal.any(signals) : undefined,
    });
    const text = await res.text();
    if (!res.ok) throw restError(res.status, text);
    return JSON.parse(text) as JsonValue;
  }

  /** Ends the gRPC connection; the client cannot be used afterwards. */
  close(): void {
    this.sessionManager?.abort();
  }
}

function restError(httpStatus: number, text: string): ErrsvcRestError {
  let status: Status | undefined;
  try {
    status = fromJson(StatusSchema, JSON.parse(text) as JsonValue, { registry, ignoreUnknownFields: true });
  } catch {
    status = undefined;
  }
  const code = status && status.code in Code ? (status.code as Code) : codeFromHttp(httpStatus);
  return new ErrsvcRestError(httpStatus, code, status?.message || text || `HTTP ${httpStatus}`, status);
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
