// Headless Chromium (Debian's package) against a real errsvc:
//  1. the playground at / loads, translates a golden vector over Connect
//     and over REST and renders every translation with its notes, takes a
//     pasted provider answer, and browses the vocabularies;
//  2. a connect-web client served from another origin (so through CORS)
//     calls every unary RPC over Connect (JSON and binary) and gRPC-Web for
//     every well-formed golden vector, and gets the golden answers, the
//     same as REST gives the same page.
// Usage: ERRSVC_BIN=path/to/errsvc node test/browser.mjs
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const bin = process.env.ERRSVC_BIN;
if (!bin) throw new Error("set ERRSVC_BIN to an errsvc binary");

const fail = (msg) => { console.error("FAIL:", msg); process.exitCode = 1; };

// The golden vectors the page and the client replay.
const goldenDir = join(root, "testdata", "golden");
const vectors = readdirSync(goldenDir).filter((f) => f.endsWith(".json"))
  .map((f) => JSON.parse(readFileSync(join(goldenDir, f), "utf8")))
  .filter((v) => !v.error);

// 1. The connect-web harness, bundled, on its own origin.
const bundle = await esbuild.build({
  entryPoints: [join(here, "..", "harness", "connect-web.ts")],
  bundle: true, format: "esm", write: false, target: "es2022",
  nodePaths: [join(here, "..", "node_modules")], logLevel: "warning",
});
const harnessJS = bundle.outputFiles[0].contents;
const harness = createServer((req, res) => {
  if (req.url === "/harness.js") {
    res.writeHead(200, { "Content-Type": "text/javascript" }).end(harnessJS);
  } else {
    res.writeHead(200, { "Content-Type": "text/html" })
      .end('<!doctype html><meta charset="utf-8"><title>connect-web harness</title><script type="module" src="/harness.js"></script>');
  }
});
await new Promise((ok) => harness.listen(0, "127.0.0.1", ok));
const harnessOrigin = `http://127.0.0.1:${harness.address().port}`;

// 2. errsvc on free loopback ports, allowing the harness's origin.
const srv = spawn(bin, ["--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--cors-origins", harnessOrigin],
  { stdio: ["ignore", "ignore", "pipe"] });
const base = await new Promise((ok, bad) => {
  let buf = "";
  const timer = setTimeout(() => bad(new Error("errsvc did not start: " + buf)), 20000);
  srv.stderr.on("data", (d) => {
    buf += d;
    for (const line of buf.split("\n")) {
      try {
        const rec = JSON.parse(line);
        if (rec.msg === "errsvc listening") { clearTimeout(timer); ok("http://" + rec.http_addr); }
      } catch { /* partial line */ }
    }
  });
  srv.on("exit", (code) => bad(new Error(`errsvc exited ${code}: ${buf}`)));
});

const profile = mkdtempSync(join(tmpdir(), "errsvc-chromium-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: chromiumPath,
  headless: true,
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
try {
  // --- The playground.
  const page = await context.newPage();
  const consoleErrors = [];
  page.on("console", (m) => { if (m.type() === "error") consoleErrors.push(m.text()); });
  page.on("pageerror", (e) => consoleErrors.push(String(e)));
  await page.goto(base + "/");
  await page.waitForSelector("body[data-ready=true]", { timeout: 15000 });

  const name = "agent.code.RATE_LIMITED";
  const golden = vectors.find((v) => v.name === name);
  if (!golden) throw new Error(`no golden vector ${name}`);
  for (const protocol of ["connect", "rest"]) {
    await page.selectOption("#protocol", protocol);
    await page.selectOption("#source", "agent_error");
    await page.selectOption("#vector", name);
    await page.click("#submit");
    await page.waitForSelector(`#status:text("answered over ${protocol}")`, { timeout: 15000 });
    const cards = await page.$$eval("#result .card", (cs) => Object.fromEntries(cs.map((c) => [c.dataset.field, c.querySelector("pre").textContent])));
    for (const field of ["labby_error", "code_mode_error", "agent_error", "classification", "http_status", "grpc_status"]) {
      if (golden.response[field] === undefined) continue;
      if (cards[field] === undefined) { fail(`${protocol}: no ${field} card`); continue; }
      const shown = field === "http_status" ? Number(cards[field]) : JSON.parse(cards[field]);
      if (JSON.stringify(shown) !== JSON.stringify(golden.response[field])) fail(`${protocol}: ${field} card shows ${cards[field]}`);
    }
    const notes = await page.$$eval("#notes tbody tr", (rs) => rs.map((r) => r.dataset.note));
    const wantNotes = (golden.response.notes ?? []).map((n) => n.code);
    if (JSON.stringify(notes) !== JSON.stringify(wantNotes)) fail(`${protocol}: notes ${notes} want ${wantNotes}`);
    console.log(`playground over ${protocol}: ${name} rendered ${Object.keys(cards).length} translations, ${notes.length} notes`);
  }
  // A pasted raw provider answer.
  await page.selectOption("#protocol", "connect");
  await page.selectOption("#source", "provider_response");
  await page.fill("#input", JSON.stringify({ provider: "openai", status: 429, headers: { "retry-after": "7" },
    body: JSON.stringify({ error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }) }));
  await page.click("#submit");
  await page.waitForSelector("#result .card[data-field=labby_error]", { timeout: 15000 });
  const pasted = JSON.parse(await page.textContent("#result .card[data-field=labby_error] pre"));
  if (pasted.kind !== "rate_limited") fail(`pasted provider answer: kind ${pasted.kind}`);
  if (consoleErrors.length) fail("console errors on the playground: " + consoleErrors.join("; "));
  // A malformed input is shown as the server's error, not a crash.
  await page.selectOption("#source", "agent_error");
  await page.fill("#input", "{}");
  await page.click("#submit");
  await page.waitForSelector("#error:not([hidden])", { timeout: 15000 });
  if (!(await page.textContent("#error")).includes("agent_error.code")) fail("the error box does not name agent_error.code");
  // The vocabularies.
  await page.click("#tab-vocabularies");
  await page.waitForSelector("details[data-vocabulary]", { timeout: 15000 });
  const vocabularies = await page.$$eval("details[data-vocabulary]", (ds) => ds.length);
  if (vocabularies < 5) fail(`only ${vocabularies} vocabularies listed`);
  console.log(`playground: pasted provider answer -> ${pasted.kind}; ${vocabularies} vocabularies browsed`);

  // --- connect-web from another origin.
  const h = await context.newPage();
  await h.goto(harnessOrigin + "/");
  await h.waitForFunction(() => typeof window.errsvcConnectWeb === "function", null, { timeout: 15000 });
  const started = Date.now();
  const result = await h.evaluate(([b, vs]) => window.errsvcConnectWeb(b, vs), [base, vectors]);
  for (const f of result.failures.slice(0, 20)) fail(f);
  if (result.failures.length > 20) fail(`... ${result.failures.length - 20} more`);
  console.log(`connect-web in Chromium: ${result.calls} calls (Connect JSON, Connect binary, gRPC-Web) over ${vectors.length} golden vectors ` +
    `+ batch, vocabularies and a refused {}, cross-origin, in ${Date.now() - started} ms; ${result.goldenMatched} answers equal to their golden vector, every one equal to REST's; ${result.failures.length} failures`);
  if (result.calls < 3 * vectors.length) fail(`only ${result.calls} calls`);
} finally {
  await context.close();
  srv.kill();
  harness.close();
  rmSync(profile, { recursive: true, force: true });
}
