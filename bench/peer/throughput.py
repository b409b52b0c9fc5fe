"""throughput.py: the peer figure of docs/BENCHMARKS.md, in one run.

Classifications per second and CPU per classification of LiteLLM's
`exception_type` in-process against errsvc called from its Python SDK
(errsvc_client), on the same provider fixtures, one after the other in one
process. Run by bench/peer/throughput.sh (and by bench/run.sh), which builds
errsvc and installs LiteLLM and the SDK into bench/peer/.venv.

What each side is handed, and what it does:

- LiteLLM: the exact arguments its own provider route hands
  `exception_type` for the fixture. They are captured once, before any
  timing, by running the route of bench/peer/peer.py (litellm.completion or
  litellm.responses through the provider LiteLLM has for the fixture)
  against a mock upstream on 127.0.0.1 that answers the fixture, with
  `exception_type` wrapped to record its first call whose original exception
  is not already one of LiteLLM's (the call that maps). The timed loop
  replays those calls: `exception_type` reads the provider's exception
  (status, message, headers, body as its handler parsed them) and raises an
  OpenAI-style exception object; the class is read off that object as
  peer.py reads it. The HTTP call and the provider handler's parsing are not
  timed.
- errsvc: the fixture's raw answer (provider, status, headers, body,
  received_at) as a TranslateRequest built before the timed loop, sent by
  the SDK over gRPC (Translate, one call per fixture; TranslateBatch, one
  call per pass with every fixture) and over REST (POST /v1/translate
  through translate_rest_json: a dict in, the parsed JSON body out). errsvc
  parses the body, classifies, and answers every vocabulary that applies
  (targets empty), or only the classification (targets ["classification"]).
  Each request carries one more header, x-peer-call, numbered per call, so
  that no two requests are the same bytes: an answer cache never answers,
  and the figure is the cold path.

Only successful classifications count: for LiteLLM a call that produced one
of LiteLLM's exception types, for errsvc an answer without an item error
and with a class. Both run the same fixtures: the error fixtures of
testdata/providers for which LiteLLM's route reaches `exception_type` (the
rest are listed with the reason). Every system gets a warm-up, then whole
passes over the fixtures until its measuring time is used up (so each
fixture weighs the same), that time split into rounds taken in turn by
all systems (the machine is shared: a busy moment lands on all of them);
one call at a time (concurrency 1), as one Python caller classifies.

CPU: the Python process's own (time.process_time: every thread, grpcio's
included) and, for errsvc, the server's utime+stime from /proc/<pid>/stat
before and after. CPU per classification is client+server for errsvc and
in-process for LiteLLM. errsvc is a real process on 127.0.0.1 (free ports,
its defaults otherwise), stopped at the end.

Writes bench/out/peer-throughput.json (or --out) and a Markdown table
beside it (.md), and prints the table.
"""

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import threading
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import peer  # noqa: E402  (sets LiteLLM's offline switches, imports litellm)

import litellm  # noqa: E402
from litellm.litellm_core_utils import exception_mapping_utils as emu  # noqa: E402

import errsvc_client  # noqa: E402
from errsvc_client import ErrsvcClient  # noqa: E402

ROOT = peer.ROOT
REAL_EXCEPTION_TYPE = emu.exception_type
LITELLM_TYPES = tuple(litellm.LITELLM_EXCEPTION_TYPES)
CLK_TCK = os.sysconf("SC_CLK_TCK")
CAPTURE_SECONDS = 240
FRESH = "x-peer-call"


# --- capturing LiteLLM's calls ----------------------------------------------

class Recorder:
    """Stands in for exception_type wherever a module imported it, and
    records each call before handing it on."""

    def __init__(self):
        self.calls = []

    def __call__(self, *args, **kwargs):
        self.calls.append((args, kwargs))
        return REAL_EXCEPTION_TYPE(*args, **kwargs)

    def install(self):
        # Modules import exception_type by name (from ... import), some
        # lazily: patch every module holding it, again before each fixture.
        for m in list(sys.modules.values()):
            try:
                if getattr(m, "exception_type", None) is REAL_EXCEPTION_TYPE:
                    setattr(m, "exception_type", self)
            except Exception:
                pass


def original(call):
    args, kwargs = call
    if "original_exception" in kwargs:
        return kwargs["original_exception"]
    return args[1] if len(args) > 1 else None


def capture(fixtures):
    """For each fixture, the call of exception_type that LiteLLM's route
    makes (or why there is none) and the class the whole route answered."""
    srv = peer.Server(("127.0.0.1", 0), peer.Upstream)
    base = "http://127.0.0.1:%d" % srv.server_address[1]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    vcreds = peer.vertex_credentials(base)
    rec = Recorder()
    out = {}
    deadline = time.time() + CAPTURE_SECONDS
    try:
        with peer.collector_between_calls():
            for fx in fixtures:
                if time.time() > deadline:
                    # A route that hangs costs 3 * TIMEOUT; the whole capture
                    # stays bounded, and what it did not reach is listed.
                    out[fx["name"]] = {"skip": "capture time (%d s) used up before this fixture" % CAPTURE_SECONDS}
                    continue
                if os.environ.get("PEER_TRACE"):
                    print("  " + fx["name"], file=sys.stderr, flush=True)
                t0 = time.time()
                rec.install()
                rec.calls = []
                peer.STATE["fx"], peer.STATE["headers"] = fx, peer.shifted_headers(fx, time.time())
                box = {}
                t = threading.Thread(target=lambda: box.setdefault("r", peer.run_litellm(fx, base, vcreds)), daemon=True)
                t.start()
                t.join(3 * peer.TIMEOUT)
                peer.collect_abandoned_streams()
                if t.is_alive():
                    # Where the route hangs, so that the next reader can see why.
                    frame = sys._current_frames().get(t.ident)
                    if frame is not None:
                        print("   %s hangs at:\n%s" % (fx["name"], "".join(traceback.format_stack(frame)[-12:])), file=sys.stderr)
                route = box.get("r", {"class": "none", "detail": "harness timeout"})
                if time.time() - t0 > 5:
                    print("   slow LiteLLM route: %s (%.0f s)" % (fx["name"], time.time() - t0), file=sys.stderr)
                calls = [c for c in rec.calls if not isinstance(original(c), LITELLM_TYPES)]
                if route["class"] == "none":
                    why = "" if route["detail"] == "no exception" else " (%s)" % route["detail"]
                    out[fx["name"]] = {"skip": "LiteLLM's route raised no exception" + why}
                elif not calls:
                    out[fx["name"]] = {"skip": "LiteLLM's route raised %s without calling exception_type" % route["detail"]}
                else:
                    out[fx["name"]] = {"call": calls[0], "route_class": route["class"]}
    finally:
        srv.shutdown()
        srv.server_close()
    return out


def litellm_once(call):
    """One classification by exception_type: the class, or None when it
    produced nothing of LiteLLM's."""
    args, kwargs = call
    try:
        e = REAL_EXCEPTION_TYPE(*args, **kwargs)
    except Exception as raised:  # exception_type raises its answer
        e = raised
    if not isinstance(e, LITELLM_TYPES):
        return None
    return peer.litellm_class(e)[0]


# --- errsvc -----------------------------------------------------------------

def start_errsvc(binary):
    """errsvc on free loopback ports; its addresses from its listening line."""
    p = subprocess.Popen([binary, "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 30
    addrs = None
    while time.time() < deadline:
        line = p.stderr.readline()
        if not line:
            break
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if rec.get("msg") == "errsvc listening":
            addrs = rec["grpc_addr"], rec["http_addr"]
            break
    if addrs is None:
        p.kill()
        sys.exit("errsvc printed no listening line")
    # Keep reading its log so it never blocks on a full pipe.
    threading.Thread(target=lambda: [None for _ in p.stderr], daemon=True).start()
    return p, addrs


def proc_cpu(pid):
    """utime+stime of a process, in seconds."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def errsvc_request(fx, targets):
    a = fx["answer"]
    req = {"provider_response": {"provider": a["provider"], "status": a["status"], "headers": dict(a["headers"]),
                                 "body": a["body"], "received_at": a.get("received_at") or fx["now"]}}
    if targets:
        req["targets"] = list(targets)
    return req


def pb_class(resp):
    if resp.HasField("error") or not resp.HasField("classification"):
        return None
    return getattr(resp.classification, "class") or None


def json_class(body):
    if "error" in body:
        return None
    return (body.get("classification") or {}).get("class") or None


# --- measuring --------------------------------------------------------------

def measure(one_pass, seconds, server_pid=None):
    """Whole passes for at least seconds, timed. one_pass returns
    (attempts, classes: a class or None per fixture)."""
    s0 = proc_cpu(server_pid) if server_pid else 0.0
    c0, t0 = time.process_time(), time.perf_counter()
    attempts = ok = passes = 0
    first = None
    while True:
        n, classes = one_pass()
        if first is None:
            first = classes
        attempts += n
        ok += sum(1 for c in classes if c is not None)
        passes += 1
        if time.perf_counter() - t0 >= seconds:
            break
    wall = time.perf_counter() - t0
    client = time.process_time() - c0
    server = proc_cpu(server_pid) - s0 if server_pid else 0.0
    return {"passes": passes, "attempts": attempts, "classifications": ok, "failed": attempts - ok, "wall_s": wall,
            "client_cpu_s": client, "server_cpu_s": server, "first_pass": first}


def warm(one_pass, seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        one_pass()


def add(total, m):
    if total is None:
        return m
    for k in ("passes", "attempts", "classifications", "failed", "wall_s", "client_cpu_s", "server_cpu_s"):
        total[k] += m[k]
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--errsvc", default=os.environ.get("ERRSVC_BIN", os.path.join(ROOT, "bench", "peer", "out", "errsvc")))
    ap.add_argument("--out", default=os.path.join(ROOT, "bench", "out", "peer-throughput.json"))
    ap.add_argument("--seconds", type=float, default=float(os.environ.get("PEER_SECONDS", "4")), help="measured time per system")
    ap.add_argument("--warmup", type=float, default=float(os.environ.get("PEER_WARMUP", "1")), help="warm-up per system")
    ap.add_argument("--rounds", type=int, default=int(os.environ.get("PEER_ROUNDS", "2")),
                    help="the measured time of each system is split into this many rounds, taken in turn")
    args = ap.parse_args()
    started = datetime.datetime.now(datetime.timezone.utc)

    all_fx = peer.load_fixtures()
    print("== capturing LiteLLM's exception_type calls (%d error fixtures, mock upstream on loopback)" % len(all_fx), file=sys.stderr)
    t = time.time()
    captured = capture(all_fx)
    print("   %.0f s" % (time.time() - t), file=sys.stderr)
    fixtures = [fx for fx in all_fx if "call" in captured[fx["name"]]]
    skipped = [{"name": fx["name"], "why": captured[fx["name"]]["skip"]} for fx in all_fx if "skip" in captured[fx["name"]]]
    calls = [captured[fx["name"]]["call"] for fx in fixtures]
    # The replay must answer what the whole route answered.
    replay = [litellm_once(c) for c in calls]
    route_differs = [{"name": fx["name"], "route": captured[fx["name"]]["route_class"], "replay": c}
                     for fx, c in zip(fixtures, replay) if c != captured[fx["name"]]["route_class"]]

    load_before = os.getloadavg()[0]
    proc, (grpc_addr, http_addr) = start_errsvc(args.errsvc)
    rows = []
    try:
        client = ErrsvcClient(grpc_addr, http_addr, timeout=10.0)
        reqs = {
            "all": [errsvc_request(fx, ()) for fx in fixtures],
            "classification": [errsvc_request(fx, ("classification",)) for fx in fixtures],
        }
        # The messages are built before timing, as LiteLLM's exceptions are.
        msgs = {k: [errsvc_client.client.to_request(r) for r in v] for k, v in reqs.items()}
        client.translate(msgs["all"][0])  # connected before anything is timed

        # Idle CPU of both processes, so a reader can tell what a row's
        # CPU would be without any work (not subtracted).
        s0, c0, t0 = proc_cpu(proc.pid), time.process_time(), time.perf_counter()
        time.sleep(1.0)
        idle_wall = time.perf_counter() - t0
        idle = {"client_cpu_s_per_s": (time.process_time() - c0) / idle_wall,
                "server_cpu_s_per_s": (proc_cpu(proc.pid) - s0) / idle_wall}

        def litellm_pass():
            return len(calls), [litellm_once(c) for c in calls]

        # Every errsvc request is distinct: a header errsvc does not read
        # carries a call number, so no answer cache can answer it (the cold
        # path; a storm of repeats is another figure). Setting it costs the
        # client about a microsecond.
        seq = iter(range(1 << 62))

        def fresh_pb(m):
            m.provider_response.headers[FRESH] = str(next(seq))
            return m

        def fresh_dict(r):
            r["provider_response"]["headers"][FRESH] = str(next(seq))
            return r

        def grpc_pass(k):
            return lambda: (len(msgs[k]), [pb_class(client.translate(fresh_pb(m))) for m in msgs[k]])

        def rest_pass(k):
            return lambda: (len(reqs[k]), [json_class(client.translate_rest_json(fresh_dict(r))) for r in reqs[k]])

        def batch_pass(k):
            return lambda: (len(msgs[k]), [pb_class(r) for r in client.translate_batch([fresh_pb(m) for m in msgs[k]])])

        plan = [
            ("litellm", "LiteLLM `exception_type`", "in-process", "", litellm_pass, False),
            ("grpc", "errsvc `Translate`", "gRPC, unary", "all", grpc_pass("all"), True),
            ("grpc-class", "errsvc `Translate`", "gRPC, unary", "classification", grpc_pass("classification"), True),
            ("rest", "errsvc `Translate`", "REST, unary", "all", rest_pass("all"), True),
            ("rest-class", "errsvc `Translate`", "REST, unary", "classification", rest_pass("classification"), True),
            ("batch", "errsvc `TranslateBatch`", "gRPC, one batch per pass", "all", batch_pass("all"), True),
            ("batch-class", "errsvc `TranslateBatch`", "gRPC, one batch per pass", "classification", batch_pass("classification"), True),
        ]
        # On a shared machine the load of other processes comes and goes:
        # every system is measured in turns (rounds), so a busy moment
        # does not land on one system only.
        for rid, system, transport, targets, fn, server in plan:
            print("== warm-up: %s (%s%s)" % (system, transport, ", targets " + targets if targets else ""), file=sys.stderr)
            warm(fn, args.warmup)
        totals = {}
        for rnd in range(args.rounds):
            for rid, system, transport, targets, fn, server in plan:
                m = measure(fn, args.seconds / args.rounds, proc.pid if server else None)
                if rnd == 0:
                    first = m["first_pass"]
                    right = sum(1 for fx, c in zip(fixtures, first) if c == fx["want"]["class"])
                m.pop("first_pass")
                totals[rid] = add(totals.get(rid), m)
                if rnd == 0:
                    totals[rid]["class_right"] = right
        for rid, system, transport, targets, fn, server in plan:
            m = totals[rid]
            cpu = m["client_cpu_s"] + m["server_cpu_s"]
            n = max(m["classifications"], 1)
            m.update({"id": rid, "system": system, "transport": transport, "targets": targets,
                      "per_sec": m["classifications"] / m["wall_s"], "cpu_us_per_class": 1e6 * cpu / n,
                      "client_cpu_us_per_class": 1e6 * m["client_cpu_s"] / n, "server_cpu_us_per_class": 1e6 * m["server_cpu_s"] / n})
            rows.append(m)
            print("   %s, %s: %.0f/s, %.0f µs CPU each (%d of %d ok)" % (system, transport + (", " + targets if targets else ""),
                  m["per_sec"], m["cpu_us_per_class"], m["classifications"], m["attempts"]), file=sys.stderr)
        client.close()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()

    lite = rows[0]
    for r in rows:
        r["speed_vs_litellm"] = r["per_sec"] / lite["per_sec"] if lite["per_sec"] else 0.0
        r["cpu_vs_litellm"] = r["cpu_us_per_class"] / lite["cpu_us_per_class"] if lite["cpu_us_per_class"] else 0.0

    from importlib.metadata import version
    result = {
        "started": started.isoformat(timespec="seconds"),
        "machine": {"nproc": os.cpu_count(), "python": platform.python_version()},
        "versions": {"litellm": version("litellm"), "errsvc_client": version("errsvc-client"), "grpcio": version("grpcio"),
                     "protobuf": version("protobuf"), "httpx": version("httpx")},
        "error_fixtures": len(all_fx),
        "fixtures": len(fixtures),
        "skipped": skipped,
        "litellm_replay_agrees_with_route": len(fixtures) - len(route_differs),
        "litellm_replay_differs": route_differs,
        "seconds_per_system": args.seconds,
        "warmup_seconds": args.warmup,
        "rounds": args.rounds,
        "concurrency": 1,
        # The 1-minute load average before and after the measurement: other
        # work on the machine shows in classifications per second.
        "loadavg": [load_before, os.getloadavg()[0]],
        "idle": idle,
        "rows": rows,
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    md = table(result)
    with open(os.path.splitext(args.out)[0] + ".md", "w") as f:
        f.write(md)
    print(md)


def table(res):
    """The Markdown table (the loadgen report renders the same columns)."""
    lines = ["| system | transport | targets | classifications/s | CPU µs per classification (client + server) | speed vs LiteLLM | CPU vs LiteLLM | class right |",
             "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in res["rows"]:
        cpu = "%.0f" % r["cpu_us_per_class"]
        if r["server_cpu_s"]:
            cpu += " (%.0f + %.0f)" % (r["client_cpu_us_per_class"], r["server_cpu_us_per_class"])
        lines.append("| %s | %s | %s | %.0f | %s | %.2f× | %.2f× | %d / %d |" % (
            r["system"], r["transport"], r["targets"] or "—", r["per_sec"], cpu, r["speed_vs_litellm"], r["cpu_vs_litellm"],
            r["class_right"], res["fixtures"]))
    lite = res["rows"][0]
    lines.append("")
    lines.append("Same %d fixtures for every row; one call at a time. Load average %.1f before, %.1f after; LiteLLM's loop was on a CPU "
                 "%.0f %% of its time (below 80 %%, its speed column measures the machine's load: compare CPU per classification)." % (
                     res["fixtures"], res["loadavg"][0], res["loadavg"][1], 100 * lite["client_cpu_s"] / lite["wall_s"]))
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
