"""peer.py: replays every provider fixture through errsvc and three peers.

Run by bench/peer/run.sh, which builds errsvc and installs the peers. For
each fixture of testdata/providers that is an error (want.class set):

- errsvc: `errsvc translate` on the fixture's provider_response, as the
  golden vectors send it (received_at pinned to the fixture's clock).
- LiteLLM: litellm.completion (litellm.responses for the Responses and
  ChatGPT families) through the provider route LiteLLM has for the
  fixture's provider, against a mock upstream on 127.0.0.1 that answers the
  fixture's status, headers and body. The exception LiteLLM raises is its
  classification; the wait is what its router sleeps on
  (_get_retry_after_from_exception_header on the answer's headers).
- openai-python: the same call through openai.OpenAI against the mock; the
  class from the exception type and the real _should_retry on the answer;
  the wait from its real _parse_retry_after_header, honoured as the SDK
  honours it (0 < wait <= 120 s).
- the Vercel AI SDK: APICallError's default isRetryable and the `ai`
  package's retry delay (vercel.mjs).

Peers read the clock of the machine, not the fixture's Date, so the mock
shifts every absolute time in the headers (Date, an HTTP-date Retry-After,
reset timestamps) by the same amount, to keep each wait what the fixture
means. Everything stays on loopback; each call has a 10 s timeout and no
retries, so the run is bounded by the fixture count.

It writes the comparison between the peer-comparison markers of
docs/PROVIDERS.md and the raw results to bench/peer/out/results.json.
"""

import datetime
import email.utils
import gc
import glob
import http.server
import json
import math
import os
import socketserver
import subprocess
import sys
import threading
import time
import warnings

warnings.filterwarnings("ignore")
# Nothing leaves the machine: LiteLLM's price map and Hugging Face's
# tokenizers come from the installed packages or not at all.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ERRSVC = os.environ.get("ERRSVC_BIN", os.path.join(ROOT, "bench", "peer", "out", "errsvc"))
OUT = os.path.join(ROOT, "bench", "peer", "out")
DOC = os.path.join(ROOT, "docs", "PROVIDERS.md")
BEGIN = "<!-- peer-comparison:begin (written by bench/peer/run.sh; kept verbatim by the generator) -->"
END = "<!-- peer-comparison:end -->"
TIMEOUT = 10

import litellm  # noqa: E402
import openai  # noqa: E402
import httpx  # noqa: E402

litellm.suppress_debug_info = True
litellm.set_verbose = False
litellm.num_retries = 0


def load_fixtures():
    out = []
    for p in sorted(glob.glob(os.path.join(ROOT, "testdata", "providers", "*.json"))):
        with open(p) as f:
            fx = json.load(f)
        if fx["want"]["class"]:
            out.append(fx)
    return out


# --- clock shifting --------------------------------------------------------

def fixture_clock(fx):
    """The instant the fixture's relative waits count from, as errsvc reads
    it: the Date header, else received_at, else the fixture's now."""
    for k, v in fx["answer"]["headers"].items():
        if k.lower() == "date":
            try:
                return email.utils.parsedate_to_datetime(v).timestamp()
            except (TypeError, ValueError):
                pass
    t = fx["answer"].get("received_at") or fx["now"]
    return datetime.datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()


def shifted_headers(fx, now):
    """The fixture's headers with every absolute time moved by now - clock."""
    delta = now - fixture_clock(fx)
    out = {}
    for k, v in fx["answer"]["headers"].items():
        lk = k.lower()
        nv = v
        if lk == "date" or (lk == "retry-after" and not v.strip().replace(".", "", 1).isdigit()):
            t = email.utils.parsedate_to_datetime(v) if v.strip() else None
            if t is not None:
                nv = email.utils.formatdate(t.timestamp() + delta, usegmt=True)
        elif lk.startswith("anthropic-ratelimit-") and lk.endswith("-reset") and "unified" not in lk:
            try:
                t = datetime.datetime.fromisoformat(v.replace("Z", "+00:00"))
                nv = datetime.datetime.fromtimestamp(t.timestamp() + delta, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
            except ValueError:
                pass
        elif lk in ("anthropic-ratelimit-unified-reset", "x-ratelimit-reset"):
            try:
                f = float(v)
                if f >= 1e9:
                    nv = str(int(f + delta))
            except ValueError:
                pass
        out[k] = nv
    return out


# --- the mock upstream -----------------------------------------------------

STATE = {"fx": None, "headers": {}}
TOKEN = json.dumps({"access_token": "ya29.peer-mock-token", "expires_in": 3600, "token_type": "Bearer"}).encode()


class Upstream(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def answer(self):
        n = int(self.headers.get("content-length") or 0)
        if n:
            self.rfile.read(min(n, 1 << 20))
        if self.path.startswith("/token"):
            status, headers, body = 200, {"content-type": "application/json"}, TOKEN
        else:
            a = STATE["fx"]["answer"]
            status, headers, body = a["status"] or 200, STATE["headers"], a["body"].encode()
        self.send_response(status)
        for k, v in headers.items():
            if k.lower() not in ("content-length", "transfer-encoding", "connection", "content-encoding"):
                self.send_header(k, v)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_POST = do_GET = answer


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


# --- errsvc ----------------------------------------------------------------

def run_errsvc(fx):
    a = fx["answer"]
    req = {"provider_response": {"provider": a["provider"], "status": a["status"], "headers": a["headers"],
                                 "body": a["body"], "received_at": a.get("received_at") or fx["now"]}}
    p = subprocess.run([ERRSVC, "translate"], input=json.dumps(req), capture_output=True, text=True, timeout=TIMEOUT)
    if p.returncode != 0:
        return {"class": "error", "wait": None, "detail": p.stderr.strip()[:200]}
    c = json.loads(p.stdout).get("classification", {})
    w = c.get("retry_after_secs")
    return {"class": c.get("class", ""), "wait": None if w is None else int(w), "detail": ""}


# --- LiteLLM ---------------------------------------------------------------

AWS = {"aws_access_key_id": "AKIAIOSFODNN7EXAMPLE", "aws_secret_access_key": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_region_name": "us-east-1"}


def vertex_credentials(base):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    return json.dumps({"type": "service_account", "project_id": "peer-project", "private_key_id": "0", "private_key": pem,
                       "client_email": "peer@peer-project.iam.gserviceaccount.com", "client_id": "1",
                       "token_uri": base + "/token"})


def litellm_route(fx, base, vcreds):
    """The LiteLLM model and arguments for the fixture's provider."""
    p = fx["answer"]["provider"].lower()
    v1 = {"api_base": base + "/v1"}
    plain = {"api_base": base}
    routes = {
        "azure": ("azure/gpt-4o", {"api_base": base, "api_version": "2024-10-21"}),
        "azure_ai": ("azure/gpt-4o", {"api_base": base, "api_version": "2024-10-21"}),
        "anthropic": ("anthropic/claude-sonnet-4-20250514", plain),
        "gemini": ("gemini/gemini-2.5-flash", plain),
        "google": ("gemini/gemini-2.5-flash", plain),
        "bedrock": ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", {**AWS, "aws_bedrock_runtime_endpoint": base}),
        "aws_bedrock": ("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0", {**AWS, "aws_bedrock_runtime_endpoint": base}),
        "sagemaker": ("sagemaker/peer-endpoint", {**AWS, "sagemaker_base_url": base + "/endpoints/peer-endpoint/invocations"}),
        "groq": ("groq/llama-3.3-70b-versatile", v1),
        "together": ("together_ai/meta-llama/Llama-3.3-70B-Instruct-Turbo", v1),
        "mistral": ("mistral/mistral-large-latest", v1),
        "deepseek": ("deepseek/deepseek-chat", v1),
        "xai": ("xai/grok-3", v1),
        "openrouter": ("openrouter/anthropic/claude-sonnet-4", v1),
        "vllm": ("hosted_vllm/meta-llama/Llama-3.1-8B-Instruct", v1),
        "ollama": ("ollama_chat/llama3.1", plain),
        "fireworks": ("fireworks_ai/accounts/fireworks/models/llama-v3p1-70b-instruct", v1),
        "deepinfra": ("deepinfra/meta-llama/Llama-3.3-70B-Instruct", v1),
        "perplexity": ("perplexity/sonar", plain),
        "cerebras": ("cerebras/llama3.1-8b", v1),
        "lmstudio": ("lm_studio/qwen2.5-7b-instruct", v1),
        "lm_studio": ("lm_studio/qwen2.5-7b-instruct", v1),
        "tgi": ("huggingface/tgi", v1),
        "huggingface": ("huggingface/mistralai/Mistral-7B-Instruct-v0.3", v1),
        "cohere": ("cohere_chat/command-r", plain),
        "ai21": ("ai21_chat/jamba-1.5-large", v1),
        "nlp_cloud": ("nlp_cloud/dolphin", {"api_base": base + "/"}),
    }
    if p in ("vertex", "vertex_ai"):
        model = "vertex_ai/claude-sonnet-4@20250514" if "claude" in fx["name"] else "vertex_ai/gemini-2.5-flash"
        return model, {"api_base": base, "vertex_project": "peer-project", "vertex_location": "us-central1", "vertex_credentials": vcreds}
    return routes.get(p, ("openai/gpt-4o", v1))


RESPONSES_FAMILIES = ("openai_responses", "codex", "chatgpt")


def is_responses(fx):
    """The Responses API (and the ChatGPT and Codex families that speak it),
    by the provider value or by a stream of response.* events."""
    return fx["answer"]["provider"].lower() in RESPONSES_FAMILIES or '"type": "response.' in fx["answer"]["body"]


def is_stream(fx):
    for k, v in fx["answer"]["headers"].items():
        if k.lower() == "content-type" and "event-stream" in v:
            return True
    b = fx["answer"]["body"].lstrip()
    return b.startswith("data:") or b.startswith("event:") or b.startswith(":")


def litellm_class(e):
    ex = litellm.exceptions
    orig = getattr(e, "original_exception", None)
    if isinstance(e, getattr(ex, "MidStreamFallbackError", ())) and isinstance(orig, Exception):
        e = orig
    order = [
        ("ContextWindowExceededError", "context_overflow"),
        ("AuthenticationError", "auth_required"),
        ("ContentPolicyViolationError", "permanent"),
        ("BadRequestError", "permanent"),
        ("NotFoundError", "permanent"),
        ("PermissionDeniedError", "permanent"),
        ("UnprocessableEntityError", "permanent"),
        ("BudgetExceededError", "permanent"),
        ("RateLimitError", "transient"),
        ("Timeout", "transient"),
        ("APIConnectionError", "transient"),
        ("ServiceUnavailableError", "transient"),
        ("InternalServerError", "transient"),
        ("BadGatewayError", "transient"),
    ]
    for name, cls in order:
        t = getattr(ex, name, None)
        if t is not None and isinstance(e, t):
            return cls, name
    if isinstance(e, getattr(ex, "APIError", ())):
        try:
            s = int(getattr(e, "status_code", 500) or 500)
        except (TypeError, ValueError):
            s = 500
        return ("transient" if s >= 500 else "permanent"), "APIError"
    return "permanent", type(e).__name__


def exception_headers(e):
    h = getattr(e, "litellm_response_headers", None)
    if h is None:
        r = getattr(e, "response", None)
        h = getattr(r, "headers", None)
    return h


def collect_abandoned_streams():
    """Finalise, here and now, the streams a route left unread.

    A stream that ends in an error is abandoned mid-iteration, and its
    generator (httpcore's PoolByteStream.__iter__) sits in a reference
    cycle until the collector runs. Left to chance, the collector can run
    inside the next call, on the thread that already holds the connection
    pool's lock (LiteLLM shares one httpx client across calls); the
    generator's close then takes that lock again and the thread deadlocks
    for good, and with it every later call through that client
    (encode/httpcore#990, #996). Collected between calls, where no pool lock
    is held, the close just returns the connection. While routes run the
    harness turns the automatic collector off (collector_between_calls), so
    this is the only place it runs."""
    gc.collect()


class collector_between_calls:
    """The automatic collector off for the block (see
    collect_abandoned_streams), and back to how it was after."""

    def __enter__(self):
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        collect_abandoned_streams()
        if self.was:
            gc.enable()


def run_litellm(fx, base, vcreds):
    model, kw = litellm_route(fx, base, vcreds)
    stream = is_stream(fx)
    try:
        if is_responses(fx):
            r = litellm.responses(model="openai/gpt-4o", input="hi", api_key="sk-peer", stream=stream, timeout=TIMEOUT, num_retries=0, max_retries=0, **kw)
        else:
            r = litellm.completion(model=model, messages=[{"role": "user", "content": "hi"}], api_key="sk-peer", stream=stream,
                                   timeout=TIMEOUT, num_retries=0, max_retries=0, **kw)
        if stream:
            for _ in r:
                pass
        return {"class": "none", "wait": None, "detail": "no exception", "route": model}
    except Exception as e:  # every peer failure is data here
        cls, name = litellm_class(e)
        wait = None
        if cls == "transient":
            h = exception_headers(e)
            if h is not None:
                w = litellm.utils._get_retry_after_from_exception_header(h)
                if w is not None and w >= 0:
                    wait = int(w)
        return {"class": cls, "wait": wait, "detail": name, "route": model}


# --- openai-python ---------------------------------------------------------

OPENAI_TRANSIENT = ("RateLimitError", "InternalServerError", "ConflictError", "APITimeoutError", "APIConnectionError")


def run_openai(fx, base):
    client = openai.OpenAI(api_key="sk-peer", base_url=base + "/v1", max_retries=0, timeout=TIMEOUT)
    stream = is_stream(fx)
    try:
        if is_responses(fx):
            r = client.responses.create(model="gpt-4o", input="hi", stream=stream)
        else:
            r = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=stream)
        if stream:
            for _ in r:
                pass
        return {"class": "none", "wait": None, "detail": "no exception"}
    except openai.APIStatusError as e:
        resp = e.response
        # The class: the SDK's exception type, and its real retry rule on
        # this answer (its 120 s cap on a wait set aside: that is how long
        # it will sleep, not whether the error is retryable).
        uncapped = httpx.Response(resp.status_code, headers={k: v for k, v in resp.headers.items() if k.lower() not in ("retry-after", "retry-after-ms")})
        if isinstance(e, openai.AuthenticationError):
            cls = "auth_required"
        elif client._should_retry(uncapped):
            cls = "transient"
        else:
            cls = "permanent"
        wait = None
        if cls == "transient" and client._should_retry(resp):
            ra = client._parse_retry_after_header(resp.headers)
            if ra is not None and math.isfinite(ra) and 0 < ra <= openai._constants.MAX_RETRY_AFTER_DELAY:
                wait = math.ceil(ra - 1e-9)
        return {"class": cls, "wait": wait, "detail": type(e).__name__}
    except Exception as e:
        # Errors inside a 200 stream (openai.APIError) and transport
        # failures: the SDK never retries them.
        cls = "transient" if type(e).__name__ in OPENAI_TRANSIENT else "permanent"
        return {"class": cls, "wait": None, "detail": type(e).__name__}


# --- the Vercel AI SDK -----------------------------------------------------

def run_vercel(fixtures):
    # Shifted as late as possible: vercel.mjs reads the clock when it runs.
    now = time.time()
    data = [{"name": fx["name"], "status": fx["answer"]["status"], "headers": shifted_headers(fx, now), "body": fx["answer"]["body"]} for fx in fixtures]
    p = subprocess.run(["node", os.path.join(ROOT, "bench", "peer", "vercel.mjs")], input=json.dumps(data), capture_output=True, text=True,
                       timeout=120, cwd=os.path.join(ROOT, "bench", "peer"))
    if p.returncode != 0:
        sys.exit("vercel.mjs failed: " + p.stderr)
    out = {}
    for r in json.loads(p.stdout):
        wait = None
        if r["retryable"] and r["wait_ms"] is not None and r["wait_ms"] >= 0:
            wait = math.ceil(r["wait_ms"] / 1000 - 1e-6)
        out[r["name"]] = {"class": "transient" if r["retryable"] else "permanent", "wait": wait, "detail": "isRetryable" if r["retryable"] else "not retryable"}
    return out


# --- scoring ---------------------------------------------------------------

def costly(fx, got):
    w = fx["want"]
    c = got["class"]
    if w["class"] == "permanent" and w["kind"] == "quota_exceeded" and c == "transient":
        return "billing retried"
    if w["class"] == "auth_required" and c == "transient":
        return "auth retried"
    if w["class"] == "transient" and c != "transient":
        return "transient answered " + (c if c != "none" else "not an error")
    if w["class"] == "context_overflow" and c != "context_overflow":
        return "overflow missed"
    return ""


def wait_ok(fx, got):
    want = fx["want"].get("retry_after_secs")
    if want is None:
        return None
    g = got["wait"]
    # Peers read the machine's clock and some floor to whole seconds: two
    # seconds of slack for the replay.
    return g is not None and abs(g - want) <= 2


def main():
    fixtures = load_fixtures()
    srv = Server(("127.0.0.1", 0), Upstream)
    base = "http://127.0.0.1:%d" % srv.server_address[1]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    vcreds = vertex_credentials(base)

    results = {}
    started = time.time()

    def bounded(fn, *args):
        # A peer call that outlives every timeout it was given is recorded
        # as such and left behind on a daemon thread: the run stays bounded.
        box = {}
        t = threading.Thread(target=lambda: box.setdefault("r", fn(*args)), daemon=True)
        t.start()
        t.join(3 * TIMEOUT)
        collect_abandoned_streams()
        return box.get("r", {"class": "none", "wait": None, "detail": "harness timeout", "route": ""})

    def serve(fx):
        # Each peer call gets the fixture's times shifted to that moment.
        STATE["fx"], STATE["headers"] = fx, shifted_headers(fx, time.time())

    with collector_between_calls():
        for i, fx in enumerate(fixtures):
            if os.environ.get("PEER_TRACE"):
                print("  " + fx["name"], file=sys.stderr, flush=True)
            r = {"errsvc": run_errsvc(fx)}
            serve(fx)
            r["litellm"] = bounded(run_litellm, fx, base, vcreds)
            serve(fx)
            r["openai"] = bounded(run_openai, fx, base)
            results[fx["name"]] = r
            if (i + 1) % 50 == 0:
                print("  %d/%d fixtures (%.0f s)" % (i + 1, len(fixtures), time.time() - started), file=sys.stderr)
    for name, v in run_vercel(fixtures).items():
        results[name]["vercel"] = v
    srv.shutdown()

    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "results.json"), "w") as f:
        json.dump({fx["name"]: {"want": fx["want"], **results[fx["name"]]} for fx in fixtures}, f, indent=1, sort_keys=True)
    write_doc(fixtures, results)


def write_doc(fixtures, results):
    n = len(fixtures)
    waits = [fx for fx in fixtures if fx["want"].get("retry_after_secs") is not None]
    lines = []
    ver = {"litellm": litellm_version(), "openai": openai.__version__, "vercel": vercel_version()}
    lines.append("Measured by `bench/peer/run.sh` on %s over the %d error fixtures of `testdata/providers/` (%d of them with an expected wait), "
                 "with LiteLLM %s, openai-python %s and the Vercel AI SDK (`ai` %s, `@ai-sdk/provider` %s). "
                 "LiteLLM runs its real provider routes against a mock upstream on 127.0.0.1 that answers each fixture; openai-python answers with its exception type and its real `_should_retry` on the same answer; "
                 "the Vercel AI SDK with `APICallError`'s default `isRetryable` and its retry loop's delay. Only errsvc and LiteLLM tell context_overflow apart; "
                 "for openai-python a class is its exception type (`AuthenticationError` is auth_required) and otherwise its real `_should_retry`, transient or permanent; for the Vercel AI SDK retryable (transient) or not (permanent). "
                 "The mock moves every absolute time in the headers (Date, an HTTP-date Retry-After, reset timestamps) to the replay's clock, since the peers read the machine's clock. Rerun: `bench/peer/run.sh` (about two minutes; raw results in `bench/peer/out/results.json`).\n"
                 % (time.strftime("%Y-%m-%d"), n, len(waits), ver["litellm"], ver["openai"], ver["vercel"][0], ver["vercel"][1]))
    lines.append("| system | class right | retry decision right | wait right | costly errors | billing retried | auth retried | transient answered permanent | overflow missed |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    for key, label in [("errsvc", "errsvc"), ("litellm", "LiteLLM"), ("openai", "openai-python"), ("vercel", "Vercel AI SDK")]:
        cls = sum(1 for fx in fixtures if results[fx["name"]][key]["class"] == fx["want"]["class"])
        retry = sum(1 for fx in fixtures if (results[fx["name"]][key]["class"] == "transient") == (fx["want"]["class"] == "transient"))
        wok = sum(1 for fx in waits if wait_ok(fx, results[fx["name"]][key]))
        kinds = [costly(fx, results[fx["name"]][key]) for fx in fixtures]
        cnt = lambda p: sum(1 for k in kinds if k.startswith(p))
        total = sum(1 for k in kinds if k)
        lines.append("| %s | %d / %d | %d / %d | %d / %d | **%d** | %d | %d | %d | %d |" % (
            label, cls, n, retry, n, wok, len(waits), total, cnt("billing"), cnt("auth"), cnt("transient"), cnt("overflow")))
    lines.append("")
    lines.append("*Costly* errors are the expensive directions of the Error Class Contract: billing exhaustion or a bad credential retried, a transient answer given up on (a healthy model marked dead), a context overflow not recognised (no compaction). "
                 "*Wait right* counts the fixtures with an expected wait where the system's wait is the producer's (within two seconds for the peers, which read the machine's clock and may floor); a wait a system refuses to honour (openai-python above 120 s, the Vercel AI SDK above 60 s) counts as missed.\n")
    lines.append("<details><summary>Every fixture where a peer disagrees with errsvc (class, or wait where one is expected)</summary>\n")
    lines.append("| fixture | expected | errsvc | LiteLLM | openai-python | Vercel AI SDK |")
    lines.append("|---|---|---|---|---|---|")
    def cell(r, fx):
        s = r["class"]
        if r["wait"] is not None:
            s += " %d s" % r["wait"]
        c = costly(fx, r)
        if c:
            s = "**%s**" % s
        return s
    rows = 0
    for fx in fixtures:
        r = results[fx["name"]]
        e = r["errsvc"]
        differs = any(r[k]["class"] != e["class"] or (fx["want"].get("retry_after_secs") is not None and r[k]["wait"] != e["wait"]) for k in ("litellm", "openai", "vercel"))
        if not differs:
            continue
        rows += 1
        want = fx["want"]["class"] + (" %d s" % fx["want"]["retry_after_secs"] if fx["want"].get("retry_after_secs") is not None else "")
        lines.append("| `%s` | %s | %s | %s (%s) | %s (%s) | %s |" % (fx["name"], want, cell(e, fx), cell(r["litellm"], fx), r["litellm"]["detail"],
                                                                cell(r["openai"], fx), r["openai"]["detail"], cell(r["vercel"], fx)))
    lines.append("\n%d of %d fixtures disagree; a **bold** cell is a costly error.\n\n</details>\n" % (rows, n))
    block = "\n".join(lines)

    with open(DOC) as f:
        doc = f.read()
    i, j = doc.index(BEGIN) + len(BEGIN), doc.index(END)
    doc = doc[:i] + "\n" + block + doc[j:]
    with open(DOC, "w") as f:
        f.write(doc)
    print("\n".join(lines[1:7]))


def litellm_version():
    from importlib.metadata import version
    return version("litellm")


def vercel_version():
    base = os.path.join(ROOT, "bench", "peer", "node_modules")
    out = []
    for pkg in ("ai", "@ai-sdk/provider"):
        with open(os.path.join(base, pkg, "package.json")) as f:
            out.append(json.load(f)["version"])
    return out


if __name__ == "__main__":
    main()
