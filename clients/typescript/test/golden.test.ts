// Every golden vector (read at run time from testdata/golden of the
// repository) against the live errsvc at ERRSVC_GRPC_ADDR / ERRSVC_HTTP_ADDR
// (clients/test.sh starts one): over gRPC (unary, batch, stream) and REST.

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

import { equals, type JsonValue } from "@bufbuild/protobuf";

import {
  Code,
  ConnectError,
  ErrsvcClient,
  ErrsvcRestError,
  fieldViolations,
  registry,
  requestFromJson,
  responseFromJson,
  responseToJson,
  TranslateResponseSchema,
  type TranslateRequest,
  type TranslateResponse,
} from "../src/index.js";

const MIN_VECTORS = 50;
const BATCH_SIZE = 100;

interface Vector {
  name: string;
  rule?: string;
  request: JsonValue;
  response?: JsonValue;
  error?: { field: string };
}

function goldenDir(): string {
  if (process.env.ERRSVC_GOLDEN_DIR) return process.env.ERRSVC_GOLDEN_DIR;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "go.mod")) && existsSync(join(dir, "testdata", "golden"))) {
      return join(dir, "testdata", "golden");
    }
    const parent = resolve(dir, "..");
    if (parent === dir) throw new Error("testdata/golden not found; set ERRSVC_GOLDEN_DIR");
    dir = parent;
  }
}

function loadVectors(): Vector[] {
  const dir = goldenDir();
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => {
      const v = JSON.parse(readFileSync(join(dir, f), "utf8")) as Vector;
      assert.equal(`${v.name}.json`, f);
      return v;
    });
}

const vectors = loadVectors();
const okVectors = vectors.filter((v) => !v.error);
const badVectors = vectors.filter((v) => v.error);

const grpcAddr = process.env.ERRSVC_GRPC_ADDR ?? "";
const httpAddr = process.env.ERRSVC_HTTP_ADDR ?? "";
const haveServer = grpcAddr !== "" && httpAddr !== "";
if (!haveServer && (process.env.ERRSVC_REQUIRE_SERVER || process.env.CI === "true")) {
  throw new Error("ERRSVC_REQUIRE_SERVER or CI=true is set but ERRSVC_GRPC_ADDR / ERRSVC_HTTP_ADDR are not");
}
const skip = haveServer ? false : "ERRSVC_GRPC_ADDR / ERRSVC_HTTP_ADDR unset: no errsvc to call";

function expected(v: Vector): TranslateResponse {
  return responseFromJson(v.response!);
}

/** Semantic equality, Any details unpacked; on failure, a JSON diff. */
function assertResponse(v: Vector, got: TranslateResponse): void {
  const want = expected(v);
  if (equals(TranslateResponseSchema, got, want, { registry, unpackAny: true })) return;
  assert.deepStrictEqual(responseToJson(got), responseToJson(want));
  assert.fail("responses differ although their JSON is the same");
}

function assertBadRequest(v: Vector, err: unknown): void {
  assert.ok(err instanceof ConnectError, `want a ConnectError, got ${String(err)}`);
  assert.equal(err.code, Code.InvalidArgument, err.message);
  const fields = fieldViolations(err).map((fv) => fv.field);
  assert.ok(fields.includes(v.error!.field), `field violations ${JSON.stringify(fields)} do not name ${v.error!.field}`);
}

function checkItem(v: Vector, got: TranslateResponse): void {
  if (v.error) {
    assert.ok(got.error, `want an item error naming ${v.error.field}`);
    assert.equal(got.error.code, Code.InvalidArgument);
    const fields = fieldViolations(got.error).map((fv) => fv.field);
    assert.ok(fields.includes(v.error.field), `field violations ${JSON.stringify(fields)} do not name ${v.error.field}`);
    assert.deepStrictEqual(Object.keys(responseToJson(got) as object), ["error"]);
    return;
  }
  assert.equal(got.error, undefined, "unexpected item error");
  assertResponse(v, got);
}

/** JSON normalised through the schema: key order, defaults and number forms. */
function normalise(json: JsonValue): JsonValue {
  return responseToJson(responseFromJson(json));
}

test("golden vectors are there", () => {
  assert.ok(vectors.length >= MIN_VECTORS, `only ${vectors.length} vectors`);
  assert.ok(badVectors.length > 0, "no malformed vectors");
});

describe("errsvc", { skip }, () => {
  let client: ErrsvcClient;
  let requests: TranslateRequest[];
  before(() => {
    client = new ErrsvcClient({ grpc: grpcAddr, http: httpAddr });
    requests = vectors.map((v) => requestFromJson(v.request));
  });
  after(() => client?.close());

  describe("gRPC Translate", () => {
    for (const v of vectors) {
      test(v.name, async () => {
        const req = requestFromJson(v.request);
        if (v.error) {
          await assert.rejects(client.translate(req), (err) => {
            assertBadRequest(v, err);
            return true;
          });
          return;
        }
        assertResponse(v, await client.translate(req));
      });
    }
  });

  test("gRPC TranslateBatch: every vector, in batches of 100", async () => {
    // A server bounds the items of one batch.
    for (let start = 0; start < vectors.length; start += BATCH_SIZE) {
      const chunk = vectors.slice(start, start + BATCH_SIZE);
      const resps = await client.translateBatch(requests.slice(start, start + BATCH_SIZE));
      assert.equal(resps.length, chunk.length);
      chunk.forEach((v, i) => checkItem(v, resps[i]));
    }
  });

  test("gRPC TranslateStream: every vector in one stream (translateAll)", async () => {
    // More than a stream may send at once: a live server refuses some over
    // its rate, and translateAll sends them again.
    const resps = await client.translateAll(requests);
    assert.equal(resps.length, vectors.length);
    vectors.forEach((v, i) => checkItem(v, resps[i]));
  });

  test("gRPC TranslateStream: 20 vectors (translateStream)", async () => {
    const some = vectors.slice(0, 20);
    const resps: TranslateResponse[] = [];
    for await (const r of client.translateStream(some.map((v) => requestFromJson(v.request)))) resps.push(r);
    assert.equal(resps.length, some.length);
    some.forEach((v, i) => checkItem(v, resps[i]));
  });

  test("gRPC ListVocabularies", async () => {
    const resp = await client.listVocabularies();
    const kinds = resp.vocabularies.find((voc) => voc.name === "LabbyKind");
    assert.ok(kinds, "no LabbyKind vocabulary");
    assert.ok(kinds.terms.some((t) => t.term === "rate_limited"));
  });

  describe("REST POST /v1/translate", () => {
    for (const v of vectors) {
      test(v.name, async () => {
        if (v.error) {
          await assert.rejects(client.translateRestJson(v.request), (err) => {
            assert.ok(err instanceof ErrsvcRestError, `want an ErrsvcRestError, got ${String(err)}`);
            assert.equal(err.httpStatus, 400);
            assertBadRequest(v, err);
            return true;
          });
          return;
        }
        const body = await client.translateRestJson(v.request);
        assert.deepStrictEqual(normalise(body), normalise(v.response!));
      });
    }
  });

  test("REST translateRest with a typed request", async () => {
    for (const v of okVectors.slice(0, 20)) {
      assertResponse(v, await client.translateRest(requestFromJson(v.request)));
    }
  });
});
