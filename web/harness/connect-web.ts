// A connect-web client in the browser: every unary RPC of errsvc over the
// Connect protocol and over gRPC-Web, from another origin (so through
// CORS), compared with what REST answers the same page and with the golden
// vectors. browser.mjs bundles it with esbuild and runs it in Chromium.
import { createClient, ConnectError, Code } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { createRegistry, fromJson, toJson, type JsonValue } from "@bufbuild/protobuf";
import {
  TranslationService,
  TranslateRequestSchema,
  TranslateResponseSchema,
  TranslateBatchRequestSchema,
  TranslateBatchResponseSchema,
  ListVocabulariesResponseSchema,
} from "../../clients/typescript/src/gen/errsvc/v1/translation_service_pb.js";
import { BadRequestSchema, file_google_rpc_error_details } from "../../clients/typescript/src/gen/google/rpc/error_details_pb.js";

type Vector = { name: string; request: JsonValue; response?: JsonValue };

// Members the contract does not model travel in additional_fields on the
// binary wire and as members of their object in REST JSON; the comparison
// leaves them out on both sides (the Go tests compare them).
function strip(v: unknown, keepAdditional = false): unknown {
  if (Array.isArray(v)) return v.map((x) => strip(x, keepAdditional));
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      if (keepAdditional || k !== "additional_fields") out[k] = strip((v as Record<string, unknown>)[k], keepAdditional);
    }
    return out;
  }
  return v;
}
// The field_ignored note lists paths in the order translate walks the
// request (protoreflect Range, whose order is undefined and follows how the
// request was decoded): the list is compared as a set.
function sortIgnored(v: unknown): unknown {
  const r = v as { notes?: { code?: string; message?: string }[] };
  for (const n of r?.notes ?? []) {
    const m = /^(.*?: )(.*)$/.exec(n.message ?? "");
    if (n.code === "field_ignored" && m) n.message = m[1] + m[2].split(", ").sort().join(", ");
  }
  return v;
}
const canon = (v: unknown) => JSON.stringify(strip(sortIgnored(v)));
const exact = (v: unknown) => JSON.stringify(strip(v, true));
// The details a google.rpc.Status carries, for JSON's google.protobuf.Any.
const registry = createRegistry(file_google_rpc_error_details);
const opts = { useProtoFieldName: true, registry } as const;
const read = { ignoreUnknownFields: true, registry } as const;

async function run(base: string, vectors: Vector[]) {
  const transports = {
    // connect-web speaks JSON by default: Any details need the registry.
    connect: createConnectTransport({ baseUrl: base, jsonOptions: { registry, ignoreUnknownFields: true } }),
    "connect-binary": createConnectTransport({ baseUrl: base, useBinaryFormat: true }),
    grpcweb: createGrpcWebTransport({ baseUrl: base }),
  };
  const failures: string[] = [];
  let calls = 0;
  let goldenMatched = 0;
  const rest = async (path: string, body?: unknown) => {
    const res = await fetch(base + path, body === undefined ? {} : {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    return res.json();
  };
  for (const [name, transport] of Object.entries(transports)) {
    const client = createClient(TranslationService, transport);
    for (const v of vectors) {
      const req = fromJson(TranslateRequestSchema, v.request, read);
      let got: JsonValue;
      try {
        got = toJson(TranslateResponseSchema, await client.translate(req), opts);
      } catch (e) {
        failures.push(`${name} ${v.name}: ${String(e)}`);
        continue;
      }
      calls++;
      // protobuf-es drops the members the contract does not model from a
      // request read from JSON: such a request is not the vector's, so it
      // is compared with REST (given the same request) but not the vector.
      const sent = toJson(TranslateRequestSchema, req, opts);
      if (exact(sent) === exact(v.request)) {
        const want = toJson(TranslateResponseSchema, fromJson(TranslateResponseSchema, v.response!, read), opts);
        if (canon(got) !== canon(want)) failures.push(`${name} ${v.name}: differs from the golden answer`);
        else goldenMatched++;
      }
      if (name === "connect") {
        const viaRest = toJson(TranslateResponseSchema, fromJson(TranslateResponseSchema, await rest("/v1/translate", sent), read), opts);
        if (canon(viaRest) !== canon(got)) failures.push(`REST ${v.name}: differs from connect-web`);
      }
    }
    // TranslateBatch, with a bad item that gets its own error.
    const batchReq = fromJson(TranslateBatchRequestSchema, { requests: vectors.slice(0, 5).map((v) => v.request).concat([{}]) }, read);
    let batch;
    try {
      batch = await client.translateBatch(batchReq);
    } catch (e) {
      failures.push(`${name} TranslateBatch: ${String(e)}`);
      continue;
    }
    calls++;
    const restBatch = await rest("/v1/translate:batch", { requests: vectors.slice(0, 5).map((v) => v.request).concat([{}]) });
    if (canon(toJson(TranslateBatchResponseSchema, batch, opts)) !== canon(toJson(TranslateBatchResponseSchema, fromJson(TranslateBatchResponseSchema, restBatch, read), opts))) {
      failures.push(`${name} TranslateBatch differs from REST`);
    }
    if (batch.responses.length !== 6 || batch.responses[5].error?.code !== Code.InvalidArgument) {
      failures.push(`${name} TranslateBatch: the empty item has no INVALID_ARGUMENT of its own`);
    }
    const vocab = await client.listVocabularies({});
    calls++;
    const restVocab = await rest("/v1/vocabularies");
    if (canon(toJson(ListVocabulariesResponseSchema, vocab, opts)) !== canon(toJson(ListVocabulariesResponseSchema, fromJson(ListVocabulariesResponseSchema, restVocab, read), opts))) {
      failures.push(`${name} ListVocabularies differs from REST`);
    }
    // No source: a ConnectError carrying the BadRequest that names it.
    try {
      await client.translate({});
      failures.push(`${name}: {} was accepted`);
    } catch (e) {
      const err = ConnectError.from(e);
      const field = err.findDetails(BadRequestSchema)[0]?.fieldViolations[0]?.field;
      if (err.code !== Code.InvalidArgument || field !== "source") {
        failures.push(`${name}: {} answered ${Code[err.code]} naming ${field}`);
      }
    }
    calls++;
  }
  return { calls, goldenMatched, failures };
}

async function safeRun(base: string, vectors: Vector[]) {
  try {
    return await run(base, vectors);
  } catch (e) {
    return { calls: 0, failures: [`harness: ${String(e)}\n${(e as Error).stack ?? ""}`] };
  }
}

(window as unknown as { errsvcConnectWeb: typeof run }).errsvcConnectWeb = safeRun;
