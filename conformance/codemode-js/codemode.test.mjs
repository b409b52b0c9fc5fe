// Seed 001, points 5 and 6: a Code Mode call error reaches sandbox code as
// `new Error(JSON.stringify(CodeModeCallError))`; `JSON.parse(String(e.message))`
// recovers the object, and the caught and the uncaught forms are the same
// object. Every code_mode_error of the shared golden vectors is checked.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const goldenDir = path.join(here, '..', '..', 'testdata', 'golden');

const vectors = readdirSync(goldenDir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(path.join(goldenDir, f), 'utf8')))
  .filter((v) => v.response && v.response.code_mode_error);

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

test('there are Code Mode vectors to check', () => {
  assert.ok(vectors.length >= 20, `only ${vectors.length} vectors carry a code_mode_error`);
});

for (const v of vectors) {
  const callError = v.response.code_mode_error;

  test(`${v.name}: caught and uncaught forms are the same contract object`, async () => {
    const callTool = makeCallTool(callError);
    let caught;
    try {
      await callTool();
      assert.fail('callTool resolved');
    } catch (e) {
      assert.ok(e instanceof Error);
      caught = JSON.parse(String(e.message));
    }
    assert.deepEqual(caught, callError);

    const outer = await runSandbox(async () => callTool());
    assert.equal(outer.isError, true);
    assert.deepEqual(outer.error, caught);
    assert.deepEqual(outer.trace.error, caught);

    // Shape the model relies on, independent of the schema check in Go.
    assert.equal(caught.contract_version, 1);
    assert.ok(caught.kind && caught.message);
    assert.ok(['code_mode', 'tool_execution', 'upstream_transport', 'validation', 'policy', 'budget'].includes(caught.origin));
    if (caught.tool !== undefined) assert.match(caught.tool, /^.+::.+$/);
  });
}

test('an uncaught rejection in a real process carries the same object', () => {
  const callError = vectors[0].response.code_mode_error;
  const child = spawnSync(process.execPath, [
    '--input-type=module',
    '-e',
    `process.on('uncaughtException', (e) => { process.stdout.write(String(e.message)); process.exit(0); });
     const callError = JSON.parse(process.argv[1]);
     const callTool = async () => { throw new Error(JSON.stringify(callError)); };
     await callTool();`,
    JSON.stringify(callError),
  ], { encoding: 'utf8' });
  assert.equal(child.status, 0, child.stderr);
  assert.deepEqual(JSON.parse(child.stdout), callError);
});
