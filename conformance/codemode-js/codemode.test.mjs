// The Labby Code Mode tool error contract, points 5 and 6, on what errsvc
// actually emits: every MCP golden request is translated by the errsvc CLI
// (`errsvc translate`, built here, or $ERRSVC_BIN), and each code_mode_error
// it prints goes through the sandbox's rejection forms:
//   5. the JavaScript Error.message is valid JSON conforming to the versioned
//      schema (read from ../shared/reference/schemas, checked here without
//      errsvc's own validator);
//   6. caught and uncaught failures (in this process and in a real child
//      process) expose the same contract object.
// The kind rules are checked against the reference facts too: the Code Mode
// keep-list, original_kind, origin tool_execution.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, '..', '..');
const goldenDir = path.join(root, 'testdata', 'golden');
const sharedDir = process.env.ERRSVC_SHARED_DIR ?? path.join(root, '..', 'shared');
const strict = process.env.CI === 'true' || !!process.env.ERRSVC_REQUIRE_ALL;

// missing fails under CI and skips, saying so, elsewhere.
function missing(t, what) {
  if (strict) assert.fail(`${what}: required under CI=true`);
  t.skip(`SKIP (not CI): ${what}`);
}

const mcpVectors = readdirSync(goldenDir)
  .filter((f) => f.startsWith('mcp.') && f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(path.join(goldenDir, f), 'utf8')));

let bin = process.env.ERRSVC_BIN ?? '';
let tmp = '';
let buildError = '';
before(() => {
  if (bin) return;
  tmp = mkdtempSync(path.join(os.tmpdir(), 'errsvc-conformance-'));
  bin = path.join(tmp, 'errsvc');
  const r = spawnSync('go', ['build', '-o', bin, './cmd/errsvc'], { cwd: root, encoding: 'utf8' });
  if (r.status !== 0) buildError = `go build ./cmd/errsvc failed: ${r.error ?? r.stderr}`;
});
process.on('exit', () => tmp && rmSync(tmp, { recursive: true, force: true }));

// translate runs the CLI on one request and returns its response object.
function translate(request) {
  const r = spawnSync(bin, ['translate'], { input: JSON.stringify(request), encoding: 'utf8' });
  assert.equal(r.status, 0, `errsvc translate exited ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

function readShared(t, rel) {
  const p = path.join(sharedDir, rel);
  if (!existsSync(p)) {
    missing(t, `${p} is missing (set ERRSVC_SHARED_DIR)`);
    return null;
  }
  return readFileSync(p, 'utf8');
}

// A small checker for the Code Mode schema's own constraints: required,
// const, enum, type, minLength, pattern and minimum, recursing into $ref'd
// and nested properties. The constraints are read from the schema file.
function check(schema, defs, value, where, errors) {
  if (schema.$ref) schema = defs[schema.$ref.replace('#/$defs/', '')];
  if ('const' in schema && value !== schema.const) errors.push(`${where}: ${JSON.stringify(value)} is not ${schema.const}`);
  if (schema.enum && !schema.enum.includes(value)) errors.push(`${where}: ${JSON.stringify(value)} is not one of ${schema.enum}`);
  const type = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  if (schema.type === 'integer' && !Number.isInteger(value)) errors.push(`${where}: not an integer`);
  else if (schema.type && schema.type !== 'integer' && schema.type !== type) errors.push(`${where}: ${type}, want ${schema.type}`);
  if (typeof value === 'string') {
    if (schema.minLength && value.length < schema.minLength) errors.push(`${where}: shorter than ${schema.minLength}`);
    if (schema.pattern && !new RegExp(schema.pattern, 'u').test(value)) errors.push(`${where}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
  }
  if (typeof value === 'number' && 'minimum' in schema && value < schema.minimum) errors.push(`${where}: below ${schema.minimum}`);
  if (type === 'object') {
    for (const k of schema.required ?? []) if (!(k in value)) errors.push(`${where}: ${k} is required`);
    for (const [k, sub] of Object.entries(schema.properties ?? {})) if (k in value) check(sub, defs, value[k], `${where}.${k}`, errors);
  }
  return errors;
}

// The reference's Code Mode keep-list, parsed from its README.
function keepList(readme) {
  const m = readme.match(/Kinds kept as they are: ([a-z_,\s]+)\./);
  assert.ok(m, 'no keep-list in the reference README');
  return new Set(m[1].split(',').map((s) => s.trim()).filter(Boolean));
}

test('there are MCP vectors to translate', () => {
  assert.ok(mcpVectors.length >= 80, `only ${mcpVectors.length} MCP vectors`);
});

// The sandbox's tool helper: a completed isError result rejects the promise.
const makeCallTool = (callError) => async () => {
  throw new Error(JSON.stringify(callError));
};

// The host's outer handler: an uncaught rejection is returned in the
// standard MCP error envelope with the contract nested under `error`, and
// the execution trace carries the same object.
async function runSandbox(program) {
  try {
    return { result: await program() };
  } catch (e) {
    const error = JSON.parse(String(e.message));
    return { isError: true, error, trace: { error } };
  }
}

test('every Code Mode error errsvc emits keeps the contract in its rejection forms', async (t) => {
  if (buildError) return missing(t, buildError);
  const schemaText = readShared(t, 'reference/schemas/code-mode-call-error.schema.json');
  const readme = readShared(t, 'reference/README.md');
  if (!schemaText || !readme) return;
  const schema = JSON.parse(schemaText);
  const keeps = keepList(readme);
  assert.equal(keeps.size, 23);

  const emitted = [];
  for (const v of mcpVectors) {
    if (v.error) continue;
    const resp = translate(v.request);
    const callError = resp.code_mode_error;
    assert.ok(callError, `${v.name}: errsvc emitted no code_mode_error for a completed isError result`);
    emitted.push([v, callError]);

    // Point 5: Error.message is JSON conforming to the schema.
    const callTool = makeCallTool(callError);
    let caught;
    try {
      await callTool();
      assert.fail('callTool resolved');
    } catch (e) {
      assert.ok(e instanceof Error);
      caught = JSON.parse(String(e.message));
    }
    const errors = check(schema, schema.$defs, caught, v.name, []);
    assert.deepEqual(errors, [], errors.join('\n'));

    // Point 6: the uncaught form carries the same object, in the envelope and the trace.
    const outer = await runSandbox(async () => callTool());
    assert.equal(outer.isError, true);
    assert.deepEqual(outer.error, caught, v.name);
    assert.deepEqual(outer.trace.error, caught, v.name);

    // The reference's rules for a completed result.
    const inner = v.request.mcp_tool_result;
    let raw = '';
    const sc = inner.structured_content;
    if (sc && typeof sc === 'object') raw = (sc.error && sc.error.kind) ?? sc.kind ?? '';
    if (!raw) {
      for (const b of inner.content ?? []) {
        if (b.type !== 'text') continue;
        try {
          const o = JSON.parse(b.text);
          if (o && (o.kind || o.message)) { raw = o.kind ?? ''; break; }
        } catch { /* not JSON */ }
      }
    }
    const want = keeps.has(raw) ? raw : 'tool_error';
    assert.equal(caught.kind, want, `${v.name}: raw kind ${raw}`);
    if (raw && raw !== want) assert.equal(caught.original_kind, raw, `${v.name}: original_kind`);
    assert.equal(caught.origin, 'tool_execution', v.name);
    const readOnly = inner.annotations?.read_only_hint === true;
    assert.equal(caught.side_effects === 'none_expected', readOnly,
      `${v.name}: side_effects ${caught.side_effects}; none_expected only for a read-only tool`);
    for (const block of caught.evidence?.content ?? []) {
      assert.ok(!('data' in block), `${v.name}: a binary payload reached the sandbox`);
    }
    assert.ok((caught.evidence?.content ?? []).length <= 16, `${v.name}: more than 16 evidence blocks`);
  }
  assert.ok(emitted.length >= 80, `only ${emitted.length} Code Mode errors emitted`);

  // Point 6 across a process boundary: an uncaught rejection in a real
  // Node process prints the same object, for every emitted error.
  const child = spawnSync(process.execPath, [
    '--input-type=module',
    '-e',
    `const fs = await import('node:fs');
       const all = JSON.parse(fs.readFileSync(0, 'utf8'));
       const out = [];
       for (const callError of all) {
         const callTool = async () => { throw new Error(JSON.stringify(callError)); };
         try { await callTool(); } catch (e) { out.push(JSON.parse(String(e.message))); }
       }
       process.on('uncaughtException', (e) => { out.push(JSON.parse(String(e.message))); process.stdout.write(JSON.stringify(out)); process.exit(0); });
       const last = all[all.length - 1];
       (async () => { throw new Error(JSON.stringify(last)); })();
       await new Promise(() => {});`,
  ], { input: JSON.stringify(emitted.map(([, e]) => e)), encoding: 'utf8' });
  // An unhandled rejection is raised as an uncaught exception (Node's default mode, throw).
  assert.equal(child.status, 0, child.stderr);
  const back = JSON.parse(child.stdout);
  assert.equal(back.length, emitted.length + 1);
  emitted.forEach(([v, e], i) => assert.deepEqual(back[i], e, v.name));
  assert.deepEqual(back[emitted.length], emitted[emitted.length - 1][1]);
});
