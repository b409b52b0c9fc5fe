// Headless Chromium (Debian's package) against a real errsvc:
//  1. the playground at / loads, translates a golden vector over Connect
//     and over REST and renders every translation with its notes, takes a
//     pasted provider answer, and browses the vocabularies with their
//     mapping rows; every source's example translates to its golden
//     answer; the targets picker (its names from /openapi.json) restricts
//     the answer; a share link opened in a new page restores the same
//     request and the same answer (ERRSVC_SCREENSHOT=path also saves a
//     screenshot of the playground there);
//  2. a connect-web client served from another origin (so through CORS)
//     calls every unary RPC over Connect (JSON and binary) and gRPC-Web for
//     every well-formed golden vector, and gets the golden answers, the
//     same as REST gives the same page.
// Usage: ERRSVC_BIN=path/to/errsvc node test/browser.mjs
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
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
  consoleErrors.length = 0; // the refused call's 400, logged by Chromium, was expected
  // The vocabularies.
  await page.click("#tab-vocabularies");
  await page.waitForSelector("details[data-vocabulary]", { timeout: 15000 });
  const vocabularies = await page.$$eval("details[data-vocabulary]", (ds) => ds.length);
  if (vocabularies < 5) fail(`only ${vocabularies} vocabularies listed`);
  console.log(`playground: pasted provider answer -> ${pasted.kind}; ${vocabularies} vocabularies browsed`);

  // The vocabularies' mapping rows: each term's row (Term.row) as columns,
  // as ListVocabularies answers them.
  const listed = await (await fetch(base + "/v1/vocabularies")).json();
  let rowsChecked = 0;
  for (const v of listed.vocabularies) {
    const terms = v.terms ?? [];
    const withRow = terms.filter((t) => Object.keys(t).some((k) => !["term", "enum_value", "meaning"].includes(k)));
    const shown = await page.$$eval(`details[data-vocabulary="${v.name}"] tbody tr`, (rs) => rs.map((r) => ({
      row: r.hasAttribute("data-row"),
      term: r.querySelector("td code").textContent,
      cells: Object.fromEntries([...r.querySelectorAll("td[data-col]")].map((c) => [c.dataset.col, c.textContent])),
    })));
    if (shown.length !== terms.length) { fail(`vocabulary ${v.name}: ${shown.length} rows shown, ${terms.length} terms`); continue; }
    if (shown.filter((r) => r.row).length !== withRow.length) fail(`vocabulary ${v.name}: ${shown.filter((r) => r.row).length} mapping rows shown, want ${withRow.length}`);
    for (const [i, t] of terms.entries()) {
      const key = Object.keys(t).find((k) => !["term", "enum_value", "meaning"].includes(k));
      if (!key) continue;
      for (const [col, val] of Object.entries(t[key])) {
        const want = typeof val === "object" ? JSON.stringify(val) : String(val);
        if (shown[i].cells[col] !== want) fail(`vocabulary ${v.name} ${t.term}: ${col} shows ${shown[i].cells[col]} want ${want}`);
        rowsChecked++;
      }
    }
  }
  if (rowsChecked < 100) fail(`only ${rowsChecked} mapping cells checked`);
  const labbyRows = await page.$$eval('details[data-vocabulary="LabbyKind"] tbody tr[data-row]', (rs) => rs.length);
  if (labbyRows < 50) fail(`LabbyKind shows ${labbyRows} mapping rows`);
  console.log(`playground vocabularies: ${rowsChecked} mapping cells equal to ListVocabularies' (LabbyKind ${labbyRows} rows)`);
  await page.click("#tab-translate");

  // Cards shown, as field -> parsed value.
  const cardsOf = (p) => p.$$eval("#result .card", (cs) => Object.fromEntries(cs.map((c) => [c.dataset.field, c.querySelector("pre").textContent])));
  const translated = async (p, protocol) => {
    await p.waitForSelector(`#status:text("answered over ${protocol}")`, { timeout: 15000 });
    return cardsOf(p);
  };
  const sameAsGolden = (label, cards, response) => {
    for (const [field, want] of Object.entries(response)) {
      if (field === "notes" || field === "error") continue;
      if (cards[field] === undefined) { fail(`${label}: no ${field} card`); continue; }
      const shown = typeof want === "object" ? JSON.parse(cards[field]) : cards[field];
      const norm = typeof want === "object" ? JSON.stringify(want) : String(want);
      if ((typeof want === "object" ? JSON.stringify(shown) : shown) !== norm) fail(`${label}: ${field} card shows ${cards[field]}`);
    }
  };

  // Every source of the TranslateRequest oneof has an example (the vector
  // vectors.json marks), and it translates to its golden answer.
  const SOURCES = ["labby_error", "agent_error", "classified_error", "provider_response", "mcp_tool_result",
    "grpc_status", "jsonrpc_error", "http_error"];
  const served = JSON.parse(readFileSync(join(root, "server", "playground", "vectors.json"), "utf8"));
  const options = await page.$$eval("#source option", (os) => os.map((o) => o.value));
  if (JSON.stringify(options) !== JSON.stringify(SOURCES)) fail(`source options ${options}`);
  await page.selectOption("#protocol", "connect");
  for (const source of SOURCES) {
    await page.selectOption("#source", source);
    const example = await page.inputValue("#vector");
    const marked = served.find((v) => v.example && Object.keys(v.request).includes(source));
    if (!marked || example !== marked.name) { fail(`${source}: example ${example}, vectors.json marks ${marked?.name}`); continue; }
    const g = vectors.find((v) => v.name === example);
    if (JSON.stringify(JSON.parse(await page.inputValue("#input"))) !== JSON.stringify(g.request[source])) fail(`${source}: the input is not ${example}'s`);
    await page.click("#submit");
    const cards = await translated(page, "connect");
    sameAsGolden(`example ${source} (${example})`, cards, g.response);
    console.log(`playground example ${source}: ${example} -> ${Object.keys(cards).length} translations as golden`);
  }

  // The targets picker: its names are TranslateResponse's members in the
  // served /openapi.json (less notes and error); checking some restricts
  // the answer to them.
  const doc = await (await fetch(base + "/openapi.json")).json();
  const wantTargets = Object.keys(doc.components.schemas.v1TranslateResponse.properties).filter((n) => n !== "notes" && n !== "error").sort();
  const pickerTargets = (await page.$$eval("#targets input[type=checkbox]", (cs) => cs.map((c) => c.value))).sort();
  if (JSON.stringify(pickerTargets) !== JSON.stringify(wantTargets)) fail(`targets picker lists ${pickerTargets}, want ${wantTargets}`);
  await page.selectOption("#source", "provider_response");
  const chosen = ["anthropic_error", "handling", "labby_error"];
  for (const t of chosen) await page.check(`#targets input[value="${t}"]`);
  await page.click("#submit");
  const restricted = await translated(page, "connect");
  if (JSON.stringify(Object.keys(restricted).sort()) !== JSON.stringify(chosen)) fail(`targets ${chosen} answered ${Object.keys(restricted)}`);
  const direct = await (await fetch(base + "/v1/translate", { method: "POST", headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ provider_response: JSON.parse(await page.inputValue("#input")), targets: chosen }) })).json();
  sameAsGolden("targets", restricted, direct);
  console.log(`playground targets: ${pickerTargets.length} from /openapi.json; ${chosen} -> ${Object.keys(restricted)}`);

  // The share link: opened in a new page it restores the same request
  // (source, input, context, targets, protocol) and the same answer.
  await page.selectOption("#protocol", "rest");
  await page.selectOption("#source", "jsonrpc_error");
  await page.fill("#context", JSON.stringify({ service: "search", tool: "web.search", idempotent: true }));
  for (const c of await page.$$("#targets input:checked")) await c.uncheck();
  for (const t of ["jsonrpc_error", "labby_error"]) await page.check(`#targets input[value="${t}"]`);
  await page.click("#submit");
  const before = await translated(page, "rest");
  const link = await page.getAttribute("#share", "href");
  if (!link || !link.includes("#r=")) fail(`share link ${link}`);
  const stateOf = (p) => p.evaluate(() => ({
    source: document.getElementById("source").value,
    input: JSON.parse(document.getElementById("input").value),
    context: document.getElementById("context").value,
    protocol: document.getElementById("protocol").value,
    targets: [...document.querySelectorAll("#targets input:checked")].map((c) => c.value),
  }));
  const want = await stateOf(page);
  const shared = await context.newPage();
  shared.on("pageerror", (e) => consoleErrors.push(String(e)));
  await shared.goto(link);
  await shared.waitForSelector("body[data-ready=true]", { timeout: 15000 });
  const after = await translated(shared, "rest");
  const got = await stateOf(shared);
  if (JSON.stringify(got) !== JSON.stringify(want)) fail(`share link restored ${JSON.stringify(got)}, want ${JSON.stringify(want)}`);
  if (JSON.stringify(after) !== JSON.stringify(before)) fail(`share link answered ${JSON.stringify(after)}, want ${JSON.stringify(before)}`);
  console.log(`playground share link (${link.length} chars): same request (${got.source}, targets ${got.targets}, over ${got.protocol}) and same ${Object.keys(after).length} translations`);
  await shared.close();
  if (consoleErrors.length) fail("console errors on the playground: " + consoleErrors.join("; "));

  // The screenshot in the docs: an example over Connect, every target.
  if (process.env.ERRSVC_SCREENSHOT) {
    const shotPath = resolve(root, process.env.ERRSVC_SCREENSHOT);
    const shot = await context.newPage();
    await shot.setViewportSize({ width: 1280, height: 1000 });
    await shot.goto(base + "/");
    await shot.waitForSelector("body[data-ready=true]", { timeout: 15000 });
    await shot.selectOption("#source", "provider_response");
    await shot.click("#submit");
    await translated(shot, "connect");
    mkdirSync(dirname(shotPath), { recursive: true });
    await shot.screenshot({ path: shotPath });
    console.log(`playground screenshot: ${shotPath}`);
    await shot.close();
  }

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
