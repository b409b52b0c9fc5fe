// errsvc playground: calls the service from the browser over the Connect
// protocol (JSON, POST /errsvc.v1.TranslationService/<Method>) or REST.
// Every text the server returns is untrusted (it may quote upstream text),
// so the page only ever sets textContent, never HTML.

const SERVICE = "/errsvc.v1.TranslationService/";

// The answer's fields, in the order they are shown, each with what it is.
const FIELDS = [
  ["labby_error", "Labby agent error contract v1 envelope"],
  ["code_mode_error", "Code Mode tool error contract envelope"],
  ["agent_error", "Agent Surface AgentCapabilityError payload"],
  ["classification", "Error Class Contract v1 classification"],
  ["http_status", "HTTP status a REST surface answers with"],
  ["grpc_status", "google.rpc.Status with its details"],
  ["handling", "What each part of a consumer does with the error"],
  ["http_headers", "Headers a REST surface sends with http_status"],
  ["grpc_metadata", "Trailers a gRPC surface sends with grpc_status"],
  ["openai_error", "OpenAI-compatible error answer"],
  ["anthropic_error", "Anthropic error answer"],
  ["google_error", "AIP-193 HTTP JSON error answer"],
  ["jsonrpc_error", "MCP protocol error (JSON-RPC error object)"],
];

// The TranslateRequest `source` oneof, in the order of the contract.
const SOURCES = ["labby_error", "agent_error", "classified_error", "provider_response", "mcp_tool_result",
  "grpc_status", "jsonrpc_error", "http_error"];

// Response members that are not targets a caller can name.
const NOT_TARGETS = new Set(["notes", "error"]);

const $ = (id) => document.getElementById(id);
let vectors = [];
let lastRequest = null;

async function call(method, body) {
  const protocol = $("protocol").value;
  let res;
  if (protocol === "rest") {
    const paths = { Translate: ["POST", "/v1/translate"], ListVocabularies: ["GET", "/v1/vocabularies"] };
    const [verb, path] = paths[method];
    res = await fetch(path, verb === "GET" ? {} : {
      method: verb, headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
  } else {
    // Connect unary: the message as JSON, the error as {code, message, details}.
    res = await fetch(SERVICE + method, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Connect-Protocol-Version": "1" },
      body: JSON.stringify(body),
    });
  }
  const text = await res.text();
  let json;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new Error(`HTTP ${res.status}: ${text.slice(0, 500)}`);
  }
  if (!res.ok) {
    const err = new Error(`HTTP ${res.status} ${json.code ?? ""}: ${json.message ?? text}`);
    err.body = json;
    throw err;
  }
  return json;
}

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

function showError(err) {
  const box = $("error");
  box.hidden = false;
  box.textContent = err.message + (err.body ? "\n" + JSON.stringify(err.body, null, 2) : "");
}

function render(resp) {
  const grid = $("result");
  grid.replaceChildren();
  const known = new Set(FIELDS.map(([f]) => f));
  const extra = Object.keys(resp).filter((f) => !known.has(f) && !NOT_TARGETS.has(f)).map((f) => [f, ""]);
  for (const [field, what] of [...FIELDS, ...extra]) {
    if (resp[field] === undefined) continue;
    const value = typeof resp[field] === "object" ? JSON.stringify(resp[field], null, 2) : String(resp[field]);
    grid.append(el("div", { class: "card", "data-field": field },
      el("h3", {}, field), el("p", {}, what), el("pre", {}, value)));
  }
  const notes = resp.notes ?? [];
  const tbody = $("notes").querySelector("tbody");
  tbody.replaceChildren(...notes.map((n) => el("tr", { "data-note": n.code ?? "" },
    el("td", {}, n.code ?? ""), el("td", {}, n.message ?? ""))));
  $("notes-section").hidden = notes.length === 0;
  grid.setAttribute("data-rendered", String(Date.now()));
}

async function translate(ev) {
  ev?.preventDefault();
  $("error").hidden = true;
  $("result").replaceChildren();
  $("notes-section").hidden = true;
  let source, context;
  try {
    source = JSON.parse($("input").value);
    context = $("context").value.trim() ? JSON.parse($("context").value) : undefined;
  } catch (e) {
    showError(new Error("The input is not JSON: " + e.message));
    return;
  }
  const req = { [$("source").value]: source };
  if (context) req.context = context;
  const targets = chosenTargets();
  if (targets.length) req.targets = targets;
  lastRequest = req;
  $("status").textContent = "translating…";
  try {
    const resp = await call("Translate", req);
    render(resp);
    await updateShare(req);
    $("status").textContent = `answered over ${$("protocol").value}`;
  } catch (e) {
    $("status").textContent = "failed";
    showError(e);
  }
}

const sourceOf = (req) => Object.keys(req).find((k) => SOURCES.includes(k));

function fillVectors() {
  const kind = $("source").value;
  const sel = $("vector");
  const mine = vectors.filter((v) => sourceOf(v.request) === kind);
  sel.replaceChildren(el("option", { value: "" }, `(pick one of ${mine.length})`),
    ...mine.map((v) => el("option", { value: v.name }, v.name)));
}

// The example of a source is the golden vector vectors.json marks
// "example" (generated from testdata/golden by the server's tests, which
// check every source has one), else its first vector.
function exampleOf(kind) {
  return vectors.find((v) => v.example && sourceOf(v.request) === kind)
    ?? vectors.find((v) => sourceOf(v.request) === kind);
}

function loadRequest(req) {
  const kind = sourceOf(req);
  if (!kind) return;
  $("source").value = kind;
  $("input").value = JSON.stringify(req[kind], null, 2);
  $("context").value = req.context ? JSON.stringify(req.context) : "";
  setTargets(req.targets);
}

function pickVector() {
  const v = vectors.find((x) => x.name === $("vector").value);
  if (v) loadRequest(v.request);
}

function pickExample() {
  const v = exampleOf($("source").value);
  if (!v) return;
  fillVectors();
  $("vector").value = v.name;
  loadRequest(v.request);
}

// --- Targets: the TranslateResponse members the server documents in its
// own /openapi.json, each a name the request's `targets` may hold.
async function loadTargets() {
  let names = [];
  try {
    const doc = await (await fetch("/openapi.json")).json();
    const schemas = doc.components?.schemas ?? {};
    const key = Object.keys(schemas).find((k) => k.endsWith("TranslateResponse"));
    names = Object.keys(schemas[key]?.properties ?? {}).filter((n) => !NOT_TARGETS.has(n));
  } catch {
    names = [];
  }
  const order = FIELDS.map(([f]) => f);
  names.sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  $("targets").replaceChildren(...names.map((n) => el("label", { class: "target" },
    el("input", { type: "checkbox", value: n, "data-target": n }), " " + n)));
}

function chosenTargets() {
  return [...document.querySelectorAll("#targets input:checked")].map((c) => c.value);
}

function setTargets(names) {
  const want = new Set(names ?? []);
  for (const c of document.querySelectorAll("#targets input")) c.checked = want.has(c.value);
}

// --- Share link: the request as deflate-raw compressed JSON, base64url,
// in the fragment (#r=...&p=protocol), so it never reaches a server log.
function b64url(bytes) {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64url(s) {
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

async function pipe(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

async function encodeRequest(req) {
  const json = new TextEncoder().encode(JSON.stringify(req));
  return b64url(await pipe(json, new CompressionStream("deflate-raw")));
}

async function decodeRequest(s) {
  const json = await pipe(unb64url(s), new DecompressionStream("deflate-raw"));
  return JSON.parse(new TextDecoder().decode(json));
}

async function updateShare(req) {
  const frag = `r=${await encodeRequest(req)}&p=${encodeURIComponent($("protocol").value)}`;
  const url = new URL(location.href);
  url.hash = frag;
  history.replaceState(null, "", url);
  const link = $("share");
  link.href = url.href;
  link.textContent = "Share link";
  link.hidden = false;
}

async function copyShare() {
  try {
    await navigator.clipboard.writeText($("share").href);
    $("status").textContent = "link copied";
  } catch {
    /* the link itself stays clickable */
  }
}

// Reads #r=... and, when present, restores the request and translates it.
async function restoreFromHash() {
  const params = new URLSearchParams(location.hash.slice(1));
  const r = params.get("r");
  if (!r) return false;
  let req;
  try {
    req = await decodeRequest(r);
  } catch (e) {
    showError(new Error("The link's request cannot be read: " + e.message));
    return false;
  }
  if (params.get("p") === "rest" || params.get("p") === "connect") $("protocol").value = params.get("p");
  loadRequest(req);
  fillVectors();
  await translate();
  return true;
}

async function loadVocabularies() {
  const list = $("vocab-list");
  if (list.childElementCount) return;
  try {
    const resp = await call("ListVocabularies", {});
    for (const v of resp.vocabularies) {
      const terms = v.terms ?? [];
      // Each term's matrix row is the one member besides term, enum_value
      // and meaning (the Term.row oneof); its fields become columns.
      const rowOf = (t) => {
        const k = Object.keys(t).find((x) => !["term", "enum_value", "meaning"].includes(x));
        return k ? t[k] : undefined;
      };
      const cols = [];
      for (const t of terms) for (const c of Object.keys(rowOf(t) ?? {})) if (!cols.includes(c)) cols.push(c);
      const cell = (x) => x === undefined ? "" : typeof x === "object" ? JSON.stringify(x) : String(x);
      const rows = terms.map((t) => el("tr", rowOf(t) ? { "data-row": "" } : {},
        el("td", {}, el("code", {}, t.term ?? "")), el("td", {}, t.meaning ?? ""),
        ...cols.map((c) => el("td", { "data-col": c }, cell(rowOf(t)?.[c])))));
      list.append(el("details", { "data-vocabulary": v.name },
        el("summary", {}, `${v.name} (${v.source}, ${rows.length} terms${cols.length ? ", mapping rows" : ""})`),
        el("div", { class: "scroll" }, el("table", {},
          el("thead", {}, el("tr", {}, el("th", {}, "Term"), el("th", {}, "Meaning"), ...cols.map((c) => el("th", {}, c)))),
          el("tbody", {}, ...rows)))));
    }
  } catch (e) {
    showError(e);
  }
}

function showTab(name) {
  for (const t of ["translate", "vocabularies"]) {
    $(t).hidden = t !== name;
    $("tab-" + t).classList.toggle("active", t === name);
  }
  if (name === "vocabularies") loadVocabularies();
}

async function init() {
  $("form").addEventListener("submit", translate);
  $("source").addEventListener("change", pickExample);
  $("vector").addEventListener("change", pickVector);
  $("example").addEventListener("click", pickExample);
  $("share").addEventListener("click", (ev) => { ev.preventDefault(); copyShare(); });
  $("tab-translate").addEventListener("click", () => showTab("translate"));
  $("tab-vocabularies").addEventListener("click", () => showTab("vocabularies"));
  try {
    vectors = await (await fetch("/playground/vectors.json")).json();
  } catch {
    vectors = [];
  }
  await loadTargets();
  if (!(await restoreFromHash())) pickExample();
  document.body.setAttribute("data-ready", "true");
}

init();
