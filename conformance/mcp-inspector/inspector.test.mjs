// errsvc's MCP server held to the MCP inspector's CLI (@modelcontextprotocol/inspector,
// pinned in package-lock.json): `errsvc mcp` over stdio and /mcp over streamable HTTP,
// each answering tools/list (with --strict: no schema problem of error severity), a
// call of every tool, a bad input as an isError result naming the field, and
// resources/list and read. run.sh installs the inspector and builds errsvc; it sets
// ERRSVC_BIN (the binary) and INSPECTOR (the inspector's bin script).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { createInterface } from "node:readline";

const errsvc = process.env.ERRSVC_BIN;
const inspector = process.env.INSPECTOR;
if (!errsvc || !inspector) {
  throw new Error("set ERRSVC_BIN and INSPECTOR (conformance/mcp-inspector/run.sh does)");
}

// One inspector CLI run: its exit code, stdout parsed as JSON when it is, and stderr.
function cli(target, ...args) {
  return new Promise((resolve) => {
    execFile(process.execPath, [inspector, "--cli", ...target, ...args],
      { timeout: 60_000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => {
        let json;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ code: err ? (err.code ?? 1) : 0, json, stdout, stderr });
      });
  });
}

// The running errsvc whose HTTP port serves /mcp.
let server;
let url;

before(async () => {
  server = spawn(errsvc, ["--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("errsvc did not say where it listens")), 30_000);
    server.on("exit", (code) => reject(new Error(`errsvc exited: ${code}`)));
    createInterface({ input: server.stderr }).on("line", (line) => {
      try {
        const rec = JSON.parse(line);
        if (rec.msg === "errsvc listening") {
          clearTimeout(timer);
          resolve(`http://${rec.http_addr}/mcp`);
        }
      } catch {
        // not a JSON log line
      }
    });
  });
});

after(() => {
  server?.kill("SIGTERM");
});

const transports = {
  stdio: () => [errsvc, "mcp"],
  http: () => [url, "--transport", "http"],
};

const rateLimited = JSON.stringify({ kind: "rate_limited", message: "slow down", recovery: { retry_after_ms: 3000 } });

for (const [name, target] of Object.entries(transports)) {
  test(`${name}: tools/list names the three tools, with no schema problem of error severity`, async () => {
    const r = await cli(target(), "--method", "tools/list", "--strict");
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.json.tools.map((t) => t.name).sort(), ["decide", "explain", "translate"]);
    const translate = r.json.tools.find((t) => t.name === "translate");
    for (const field of ["labby_error", "agent_error", "provider_response", "targets", "context"]) {
      assert.ok(field in translate.inputSchema.properties, `translate input schema names ${field}`);
    }
    assert.match(r.stderr, /\b0 errors\b/);
  });

  test(`${name}: translate answers the TranslateResponse as structured content`, async () => {
    const r = await cli(target(), "--method", "tools/call", "--tool-name", "translate",
      "--tool-arg", `labby_error=${rateLimited}`, 'targets=["agent_error","classification","handling"]');
    assert.equal(r.code, 0, r.stderr);
    assert.notEqual(r.json.isError, true);
    assert.equal(r.json.structuredContent.agent_error.code, "RATE_LIMITED");
    assert.equal(r.json.structuredContent.classification.class, "transient");
    assert.equal(r.json.structuredContent.handling.route, "backoff_retry");
    assert.match(r.json.content[0].text, /class transient/);
  });

  test(`${name}: a bad input is an isError result naming the field`, async () => {
    const r = await cli(target(), "--method", "tools/call", "--tool-name", "translate",
      "--tool-arg", 'labby_error={"kind":7}');
    assert.notEqual(r.code, 0, "the CLI exits non-zero on isError");
    assert.equal(r.json.isError, true);
    assert.match(r.json.content[0].text, /^INVALID_ARGUMENT: .*\(field labby_error\.kind\)/);
    const violations = r.json.structuredContent.error.details[0].field_violations;
    assert.equal(violations[0].field, "labby_error.kind");
  });

  test(`${name}: decide says retry after the stated wait`, async () => {
    const r = await cli(target(), "--method", "tools/call", "--tool-name", "decide",
      "--tool-arg", `request={"labby_error":${rateLimited}}`);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.json.structuredContent.action, "retry");
    assert.equal(r.json.structuredContent.retry_after_secs, 3);
    assert.ok(r.json.structuredContent.reason);
  });

  test(`${name}: decide on a missing request names request`, async () => {
    const r = await cli(target(), "--method", "tools/call", "--tool-name", "decide", "--tool-arg", "max_wait_secs=5");
    assert.equal(r.json.isError, true);
    assert.match(r.json.content[0].text, /\(field request\)/);
  });

  test(`${name}: explain reads a term from the vocabularies`, async () => {
    const r = await cli(target(), "--method", "tools/call", "--tool-name", "explain",
      "--tool-arg", "term=context_overflow", "vocabulary=ErrorClass");
    assert.equal(r.code, 0, r.stderr);
    const [term] = r.json.structuredContent.terms;
    assert.equal(term.vocabulary, "ErrorClass");
    assert.match(term.what_to_do, /reduce_or_larger_context/);
  });

  test(`${name}: explain of an unknown term is an isError result with the nearest term`, async () => {
    const r = await cli(target(), "--method", "tools/call", "--tool-name", "explain", "--tool-arg", "term=rate_limitd");
    assert.equal(r.json.isError, true);
    assert.match(r.json.content[0].text, /did you mean rate_limited\?.*\(field term\)/);
  });

  test(`${name}: resources/list and read: one JSON resource per vocabulary`, async () => {
    const list = await cli(target(), "--method", "resources/list");
    assert.equal(list.code, 0, list.stderr);
    const uris = list.json.resources.map((r) => r.uri);
    assert.ok(uris.includes("errsvc://vocabularies/LabbyKind"));
    assert.ok(uris.includes("errsvc://vocabularies/ErrorClass"));
    const read = await cli(target(), "--method", "resources/read", "--uri", "errsvc://vocabularies/ErrorClass");
    assert.equal(read.code, 0, read.stderr);
    const [content] = read.json.contents;
    assert.equal(content.mimeType, "application/json");
    const vocab = JSON.parse(content.text);
    assert.equal(vocab.name, "ErrorClass");
    assert.deepEqual(vocab.terms.map((t) => t.term).sort(), ["auth_required", "context_overflow", "permanent", "transient"]);
  });
}
