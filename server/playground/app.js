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
];

const $ = (id) => document.getElementById(id);
let vectors = [];

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
  for (const [field, what] of FIELDS) {
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
  $("status").textContent = "translating…";
  try {
    const resp = await call("Translate", req);
    render(resp);
    $("status").textContent = `answered over ${$("protocol").value}`;
  } catch (e) {
    $("status").textContent = "failed";
    showError(e);
  }
}

function fillVectors() {
  const kind = $("source").value;
  const sel = $("vector");
  const mine = vectors.filter((v) => Object.keys(v.request).some((k) => k === kind));
  sel.replaceChildren(el("option", { value: "" }, `(pick one of ${mine.length})`),
    ...mine.map((v) => el("option", { value: v.name }, v.name)));
}

function pickVector() {
  const v = vectors.find((x) => x.name === $("vector").value);
  if (!v) return;
  const kind = Object.keys(v.request).find((k) => FIELDS_SOURCES.includes(k));
  $("source").value = kind;
  $("input").value = JSON.stringify(v.request[kind], null, 2);
  $("context").value = v.request.context ? JSON.stringify(v.request.context) : "";
}

const FIELDS_SOURCES = ["labby_error", "agent_error", "classified_error", "provider_response", "mcp_tool_result"];

async function loadVocabularies() {
  const list = $("vocab-list");
  if (list.childElementCount) return;
  try {
    const resp = await call("ListVocabularies", {});
    for (const v of resp.vocabularies) {
      const rows = (v.terms ?? []).map((t) => el("tr", {}, el("td", {}, el("code", {}, t.term ?? "")),
        el("td", {}, t.meaning ?? "")));
      list.append(el("details", { "data-vocabulary": v.name },
        el("summary", {}, `${v.name} (${v.source}, ${rows.length} terms)`),
        el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "Term"), el("th", {}, "Meaning"))),
          el("tbody", {}, ...rows))));
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
  $("source").addEventListener("change", fillVectors);
  $("vector").addEventListener("change", pickVector);
  $("tab-translate").addEventListener("click", () => showTab("translate"));
  $("tab-vocabularies").addEventListener("click", () => showTab("vocabularies"));
  try {
    vectors = await (await fetch("/playground/vectors.json")).json();
  } catch {
    vectors = [];
  }
  fillVectors();
  document.body.setAttribute("data-ready", "true");
}

init();
