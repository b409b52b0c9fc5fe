package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// peerResult is what bench/peer/throughput.py writes (peer-throughput.json).
type peerResult struct {
	Started       string            `json:"started"`
	Machine       map[string]any    `json:"machine"`
	Versions      map[string]string `json:"versions"`
	ErrorFixtures int               `json:"error_fixtures"`
	Fixtures      int               `json:"fixtures"`
	Skipped       []struct {
		Name string `json:"name"`
		Why  string `json:"why"`
	} `json:"skipped"`
	ReplayAgrees  int `json:"litellm_replay_agrees_with_route"`
	ReplayDiffers []struct {
		Name   string  `json:"name"`
		Route  string  `json:"route"`
		Replay *string `json:"replay"`
	} `json:"litellm_replay_differs"`
	Seconds     float64   `json:"seconds_per_system"`
	Warmup      float64   `json:"warmup_seconds"`
	Rounds      int       `json:"rounds"`
	Concurrency int       `json:"concurrency"`
	LoadAvg     []float64 `json:"loadavg"`
	Idle        struct {
		Client float64 `json:"client_cpu_s_per_s"`
		Server float64 `json:"server_cpu_s_per_s"`
	} `json:"idle"`
	Rows []peerRow `json:"rows"`
}

type peerRow struct {
	ID              string  `json:"id"`
	System          string  `json:"system"`
	Transport       string  `json:"transport"`
	Targets         string  `json:"targets"`
	Passes          int     `json:"passes"`
	Attempts        int     `json:"attempts"`
	Classifications int     `json:"classifications"`
	Failed          int     `json:"failed"`
	WallS           float64 `json:"wall_s"`
	ClientCPUs      float64 `json:"client_cpu_s"`
	ServerCPUs      float64 `json:"server_cpu_s"`
	PerSec          float64 `json:"per_sec"`
	CPUus           float64 `json:"cpu_us_per_class"`
	ClientCPUus     float64 `json:"client_cpu_us_per_class"`
	ServerCPUus     float64 `json:"server_cpu_us_per_class"`
	SpeedVsLiteLLM  float64 `json:"speed_vs_litellm"`
	CPUVsLiteLLM    float64 `json:"cpu_vs_litellm"`
	ClassRight      int     `json:"class_right"`
}

const peerTitle = "## Peer figure: LiteLLM in-process against errsvc from the Python SDK\n\n"

// peerSection renders the peer figure from the JSON of
// bench/peer/throughput.py; without one it says so, and why.
func peerSection(path string) string {
	var w strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&w, format, a...) }
	p(peerTitle)
	if path == "" {
		p("Not run (no `-peer` file given).\n\n")
		return w.String()
	}
	b, err := os.ReadFile(path)
	if err != nil {
		p("Not run: %v (its log: `bench/out/peer-throughput.log`).\n\n", err)
		return w.String()
	}
	var r peerResult
	if err := json.Unmarshal(b, &r); err != nil || len(r.Rows) == 0 || r.Rows[0].ID != "litellm" {
		p("Not run: `%s` is not a result of `bench/peer/throughput.py`.\n\n", path)
		return w.String()
	}
	v := r.Versions
	p("Measured by `bench/peer/throughput.py` (run by `bench/run.sh` through `bench/peer/throughput.sh`) at %s, with LiteLLM %s\n", r.Started, v["litellm"])
	p("in-process and errsvc's Python SDK (`errsvc_client` %s, grpcio %s, protobuf %s, httpx %s) on Python %v against one errsvc\n",
		v["errsvc_client"], v["grpcio"], v["protobuf"], v["httpx"], r.Machine["python"])
	p("process on 127.0.0.1 (its defaults, free ports). Both sides classify the same %d error fixtures of `testdata/providers/`:\n", r.Fixtures)
	p("those of the %d for which LiteLLM's own route reaches `exception_type`", r.ErrorFixtures)
	if len(r.Skipped) > 0 {
		var s []string
		for _, k := range r.Skipped {
			s = append(s, fmt.Sprintf("`%s`: %s", k.Name, k.Why))
		}
		p(" (left out: %s)", strings.Join(s, "; "))
	}
	p(". One call at a time (one Python caller); every system warmed up for %.0f s, then timed over whole passes of\n", r.Warmup)
	p("the fixtures for %.0f s, in %d rounds taken in turn by all systems. Only successful classifications count: for LiteLLM a call\n", r.Seconds, r.Rounds)
	p("that produced one of its exception types, for errsvc an answer with a class and no item error.\n\n")

	p("- **LiteLLM** is handed, for each fixture, the arguments its own provider route hands `exception_type` (captured once\n")
	p("  before timing by running `litellm.completion`/`litellm.responses` against a mock upstream that answers the fixture, as\n")
	p("  in `docs/PROVIDERS.md`); `exception_type` reads the provider exception (status, message, headers as its handler parsed\n")
	p("  them) and builds an OpenAI-style exception object, whose type is its class. Replayed this way it answers the class\n")
	p("  its whole route answered for %d of the %d fixtures", r.ReplayAgrees, r.Fixtures)
	if len(r.ReplayDiffers) > 0 {
		var s []string
		for _, d := range r.ReplayDiffers {
			got := "nothing"
			if d.Replay != nil {
				got = *d.Replay
			}
			s = append(s, fmt.Sprintf("`%s`: %s for the route's %s", d.Name, got, d.Route))
		}
		p(" (%s)", strings.Join(s, "; "))
	}
	p(". The HTTP call and the\n  provider handler's parsing are not timed. CPU is the Python process's own.\n")
	p("- **errsvc** is handed the fixture's raw answer (provider, status, headers, body, `received_at`) as a `TranslateRequest`\n")
	p("  built before timing, sent by the SDK: `Translate` over gRPC, `TranslateBatch` over gRPC (every fixture in one call\n")
	p("  per pass), and `POST /v1/translate` over REST (`translate_rest_json`: a dict in, the parsed body out). errsvc parses\n")
	p("  the body, classifies, and answers every vocabulary it answers by default (targets empty, *all* below: the Labby and\n")
	p("  Code Mode envelopes, the Agent Surface payload, the classification, the HTTP and gRPC status, the notes) or only the\n")
	p("  classification (targets `classification`, the like-for-like match for what LiteLLM answers). CPU is the Python\n")
	p("  process's plus the errsvc server's (`/proc/<pid>/stat`), client + server. Each request carries one more header,\n")
	p("  `x-peer-call`, numbered per call, so no two requests are the same bytes and no answer cache answers: the cold path.\n\n")

	p("| system | transport | targets | classifications/s | CPU µs per classification (client + server) | speed vs LiteLLM | CPU vs LiteLLM | class right |\n")
	p("|---|---|---|---:|---:|---:|---:|---:|\n")
	for _, x := range r.Rows {
		cpu := fmt.Sprintf("%.0f", x.CPUus)
		if x.ServerCPUs > 0 {
			cpu += fmt.Sprintf(" (%.0f + %.0f)", x.ClientCPUus, x.ServerCPUus)
		}
		targets := x.Targets
		if targets == "" {
			targets = "–"
		}
		p("| %s | %s | %s | %.0f | %s | %.2f× | %.2f× | %d / %d |\n", x.System, x.Transport, targets, x.PerSec, cpu,
			x.SpeedVsLiteLLM, x.CPUVsLiteLLM, x.ClassRight, r.Fixtures)
	}
	p("\n")
	failed := 0
	for _, x := range r.Rows {
		failed += x.Failed
	}
	p("*Speed vs LiteLLM* is classifications per second over LiteLLM's, *CPU vs LiteLLM* CPU per classification over LiteLLM's\n")
	p("(below 1: cheaper). *Class right* scores one pass against each fixture's expected class, as the peer comparison of\n")
	p("`docs/PROVIDERS.md` does. %d calls failed in all. Idle, the Python process used %.1f ms and errsvc %.1f ms of CPU per\n", failed, 1e3*r.Idle.Client, 1e3*r.Idle.Server)
	p("second (not subtracted).\n\n")
	p("**CPU per classification is the figure to compare.** Classifications per second move with the machine's load")
	if len(r.LoadAvg) == 2 {
		p(" (1-minute\nload average %.1f before and %.1f after, on %v cores)", r.LoadAvg[0], r.LoadAvg[1], r.Machine["nproc"])
	}
	p(", and not evenly: on a busy machine the\nscheduler favours processes that sleep between calls (errsvc's client and server wait on each other) over a\n")
	p("loop that never sleeps (`exception_type`), so a loaded run flatters errsvc's unary rows against LiteLLM's. On an idle\n")
	p("machine each side's classifications per second is close to 10⁶ / its CPU µs")
	if lite := r.Rows[0]; lite.WallS > 0 {
		share := lite.ClientCPUs / lite.WallS
		p("; in this run LiteLLM's loop was on a CPU %.0f %% of its time", 100*share)
		if share < 0.8 {
			p(", so **its speed column measures the machine's load, not LiteLLM**")
		}
	}
	p(". A unary call pays a loopback round trip\n")
	p("and the encoding on both ends, which `exception_type`, a function call, does not; a batch spreads that over every fixture.\n\n")
	return w.String()
}

// peerGoal is the goals-table row of the peer figure: errsvc's CPU per
// classification against LiteLLM's, per errsvc row, or "not run".
func peerGoal(path string) (string, bool) {
	b, err := os.ReadFile(path)
	if err != nil || path == "" {
		return "not run", false
	}
	var r peerResult
	if json.Unmarshal(b, &r) != nil || len(r.Rows) == 0 {
		return "not run", false
	}
	var parts []string
	for _, row := range r.Rows {
		if row.ID == "litellm" || strings.HasPrefix(row.System, "LiteLLM") || row.CPUVsLiteLLM == 0 {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s (%s, targets %s) %.2f×", row.System, row.Transport, row.Targets, row.CPUVsLiteLLM))
	}
	return "CPU per classification against LiteLLM's: " + strings.Join(parts, ", "), true
}
