package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/errsvc/errsvc/bench/internal/floors"
	"github.com/errsvc/errsvc/codec/errjson"
	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"github.com/errsvc/errsvc/translate"
	"github.com/google/pprof/profile"
	_ "google.golang.org/genproto/googleapis/rpc/errdetails" // resolves the ErrorInfo Any for protojson
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

type reportFiles struct {
	results, core, benchstat, machine, commands string
	coreGOGC100                                 string
	profiles, profCore, profProvider            string
	topA, topC, topCore                         string
	peer                                        string
	// growthCoreOn, growthCoreOff and growthAB are the growth ablation's
	// (report_growth.go).
	growthCoreOn, growthCoreOff, growthAB string
	out, detailOut                        string
	// sameCodeAs is the commit of the report at out when the code the core
	// benchmarks run is unchanged since (bench/run.sh asks git; "": changed,
	// or not known).
	sameCodeAs string
	// prev is what the report at out measured, before this run replaces it.
	prev previousRun
}

func readOr(path, def string) string {
	if path == "" {
		return def
	}
	b, err := os.ReadFile(path)
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return def
	}
	return strings.TrimRight(string(b), "\n")
}

// coreBench is the median of one benchmark's runs; texts and
// perTranslation are a benchmark's own texts/op metric (the sanitiser's
// 64 KiB handed over in pieces) and ns/translation metric (one translation
// timed alone, BenchmarkTranslateAfterIdle).
type coreBench struct{ ns, bytes, allocs, mbs, texts, perTranslation float64 }

func parseCore(text string) map[string]coreBench {
	runs := map[string][]coreBench{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			name = name[:i]
		}
		var b coreBench
		for i := 2; i+1 < len(f); i += 2 {
			v, _ := strconv.ParseFloat(f[i], 64)
			switch f[i+1] {
			case "ns/op":
				b.ns = v
			case "B/op":
				b.bytes = v
			case "allocs/op":
				b.allocs = v
			case "MB/s":
				b.mbs = v
			case "texts/op":
				b.texts = v
			case "ns/translation":
				b.perTranslation = v
			}
		}
		runs[name] = append(runs[name], b)
	}
	out := map[string]coreBench{}
	for name, rs := range runs {
		med := func(get func(coreBench) float64) float64 {
			v := make([]float64, len(rs))
			for i, r := range rs {
				v[i] = get(r)
			}
			slices.Sort(v)
			return v[len(v)/2]
		}
		out[name] = coreBench{
			ns: med(func(b coreBench) float64 { return b.ns }), bytes: med(func(b coreBench) float64 { return b.bytes }),
			allocs: med(func(b coreBench) float64 { return b.allocs }), mbs: med(func(b coreBench) float64 { return b.mbs }),
			texts:          med(func(b coreBench) float64 { return b.texts }),
			perTranslation: med(func(b coreBench) float64 { return b.perTranslation }),
		}
	}
	return out
}

// category splits a server CPU profile: each sample goes to the first
// category with a frame matching one of its substrings. A leaf category
// only looks at the sample's innermost frame outside the runtime: errsvc's
// REST middleware is an ancestor of every REST sample, and must only count
// its own work.
type category struct {
	name  string
	match []string
	leaf  bool
}

// catCore and catCodec are the work a canned-answer floor does not do.
const (
	catCore  = "translate core (errsvc/translate/...)"
	catCodec = "errsvc JSON codec (codec/errjson, codec/jsonwire, generated OpenJSON methods)"
)

var serverCategories = []category{
	{catCore, []string{"errsvc/errsvc/translate."}, false},
	{catCodec, []string{"errsvc/errsvc/codec/errjson.", "errsvc/errsvc/codec/jsonwire.", "OpenJSON"}, false},
	{"answer cache (lookups and stores, golang-lru)", []string{"errsvc/errsvc/server.(*answerCache)", "hashicorp/golang-lru"}, false},
	{"Prometheus metrics (client_golang)", []string{"prometheus/client_golang"}, false},
	{"protojson (Any details only)", []string{"protobuf/encoding/protojson"}, false},
	{"protobuf binary (generated code and its wire check; protobuf-go for google.rpc.Status)", []string{"google.golang.org/protobuf/",
		"MarshalToSizedBufferVT", "UnmarshalVT", "SizeVT", "errsvc/errsvc/codec.", "planetscale/vtprotobuf"}, false},
	{"errsvc server layers (interceptors, call record, limits, logging)", []string{"errsvc/errsvc/server.", "log/slog"}, true},
	{"background GC (gcBgMarkWorker)", []string{"runtime.gcBgMarkWorker"}, false},
	{"other allocation (mallocgc outside the above)", []string{"runtime.mallocgc"}, false},
	// The same reads and writes cost more per call when the server does
	// more work per call (its caches are colder): these are counted apart
	// from the code that asks for them.
	{"syscalls (reads, writes, the poller)", []string{"syscall.", "internal/runtime/syscall", "internal/poll.", "runtime.netpoll"}, false},
	// Every REST handler runs under grpc-gateway's mux, the floors' too:
	// what no category above claims there is the mux's matching, the
	// generated handler's context metadata and answer forwarding, and the
	// body's read; what is left of REST is net/http's connection loop.
	{"grpc-gateway (under its mux, the rest: matching, the generated handler's metadata and forwarding, reading the body)", []string{"grpc-gateway"}, false},
	{"transport (grpc-go, x/net/http2, net/http)", []string{"google.golang.org/grpc", "golang.org/x/net/http2", "net/http.", "net/textproto.", "bufio."}, false},
}

// providerCategories split the CPU profile of BenchmarkTranslate/provider
// (a raw provider answer), first match from the top of the list.
//
// The later additions have rows of their own, so the table shows what each
// adds to the translation: the secrets' second layer (contextPass) and the
// limit facet (the provider's header windows, their settling and their
// targets). An operator policy adds nothing here: the benchmark runs none.
var providerCategories = []category{
	{"sanitiser, second layer (translate/sanitize: contextPass)", []string{"errsvc/errsvc/translate/sanitize.contextPass"}, false},
	{"sanitiser, first layer (translate/sanitize: the provider's message and names)", []string{"errsvc/errsvc/translate/sanitize."}, false},
	{"limit facet (provider.readLimit, settling, the limit and quota targets)", []string{"errsvc/errsvc/translate/provider.readLimit",
		"errsvc/errsvc/translate.settleLimit", "errsvc/errsvc/translate.limitFromProvider", "errsvc/errsvc/translate.readErrsvcLimit",
		"errsvc/errsvc/translate.encodeLimit", "errsvc/errsvc/translate.quotaFailureDetail"}, false},
	{"provider classifier (translate/provider, with its JSON reading)", []string{"errsvc/errsvc/translate/provider."}, false},
	{"targets (translate: the encoders of every vocabulary)", []string{"errsvc/errsvc/translate.encode"}, false},
	{"background GC (gcBgMarkWorker)", []string{"runtime.gcBgMarkWorker"}, false},
	{"allocation (mallocgc: the response storage, the detail's map)", []string{"runtime.mallocgc"}, false},
	{"the rest of the translation (decoding the classified reading, the model, the lease)", []string{"errsvc/errsvc/translate."}, false},
}

// clientCategories split the load generator's own CPU profile.
var clientCategories = []category{
	{"decoding answers (generated code, package codec)", []string{"UnmarshalVT", "errsvc/errsvc/codec.vtCodec.Unmarshal", "planetscale/vtprotobuf"}, false},
	{"encoding requests", []string{"MarshalToSizedBufferVT", "SizeVT", "vtCodec.Marshal", "google.golang.org/protobuf/"}, false},
	{"background GC (gcBgMarkWorker)", []string{"runtime.gcBgMarkWorker"}, false},
	{"other allocation (mallocgc outside the above)", []string{"runtime.mallocgc"}, false},
	{"gRPC client transport (grpc-go, x/net/http2, syscalls)", []string{"google.golang.org/grpc", "golang.org/x/net/http2", "syscall", "internal/poll", "runtime.netpoll"}, false},
	{"load generator (workers, histograms)", []string{"main.", "hdrhistogram"}, false},
}

type share struct {
	name string
	pct  float64
}

// costColumn is one scenario of a cost table: its result and the splits
// of the server's and the client's CPU profiles taken during it (nil when
// not profiled).
type costColumn struct {
	name           string
	r              *Result
	server, client []share
}

// writeCosts writes where the machine's time per item goes in each column
// (server, client, idle, the rest), then the server's and the client's CPU
// split by category, in µs per item; diff names a last column, the first
// column less the second.
func writeCosts(p func(string, ...any), unit string, cols []costColumn, diff string) {
	cores := float64(runtime.NumCPU())
	head := func(what string) {
		p("| %s, µs %s |", what, unit)
		for _, c := range cols {
			p(" %s |", c.name)
		}
		p(" %s |\n|---|", diff)
		for range cols {
			p("---:|")
		}
		p("---:|\n")
	}
	row := func(name string, v func(costColumn) (float64, bool)) {
		var vals []float64
		cells := ""
		ok := true
		for _, c := range cols {
			x, has := v(c)
			if !has {
				cells += " – |"
				ok = false
				continue
			}
			vals = append(vals, x)
			cells += fmt.Sprintf(" %.1f |", x)
		}
		d := "–"
		if ok && len(vals) >= 2 {
			d = fmt.Sprintf("%+.1f", vals[0]-vals[1])
		}
		p("| %s |%s %s |\n", name, cells, d)
	}
	per := func(c costColumn, cpu float64) float64 { return cpu * 1e6 / c.r.ItemsPerSec }
	head("machine time")
	row("machine (cores ÷ translations/s)", func(c costColumn) (float64, bool) { return per(c, cores), true })
	row("server CPU", func(c costColumn) (float64, bool) { return c.r.ServerCPUus, c.r.ServerCPUus > 0 })
	row("client CPU ("+cols[0].r.Tool+")", func(c costColumn) (float64, bool) { return c.r.ClientCPUus, c.r.ClientCPUus > 0 })
	row("idle", func(c costColumn) (float64, bool) { return per(c, c.r.IdleCores), c.r.IdleCores > 0 })
	row("the rest (kernel threads, other processes)", func(c costColumn) (float64, bool) {
		if c.r.ServerCPUus <= 0 || c.r.ClientCPUus <= 0 {
			return 0, false
		}
		return per(c, cores) - c.r.ServerCPUus - c.r.ClientCPUus - per(c, c.r.IdleCores), true
	})
	p("\n")
	split := func(what string, pick func(costColumn) ([]share, float64)) {
		var names []string
		for _, c := range cols {
			if sh, _ := pick(c); sh != nil {
				for _, s := range sh {
					names = append(names, s.name)
				}
				break
			}
		}
		if names == nil {
			return
		}
		head(what)
		for _, name := range names {
			row(name, func(c costColumn) (float64, bool) {
				sh, cpu := pick(c)
				for _, s := range sh {
					if s.name == name {
						return s.pct / 100 * cpu, cpu > 0
					}
				}
				return 0, false
			})
		}
		p("\n")
	}
	split("server CPU", func(c costColumn) ([]share, float64) { return c.server, c.r.ServerCPUus })
	split("client CPU", func(c costColumn) ([]share, float64) { return c.client, c.r.ClientCPUus })
}

// largestCosts names the n largest categories of c's server and client
// profiles, in µs per item, largest first.
func largestCosts(c costColumn, n int) []string {
	type cost struct {
		what string
		us   float64
	}
	var all []cost
	for _, side := range []struct {
		name string
		sh   []share
		cpu  float64
	}{{"server", c.server, c.r.ServerCPUus}, {"client", c.client, c.r.ClientCPUus}} {
		for _, s := range side.sh {
			all = append(all, cost{side.name + ": " + s.name, s.pct / 100 * side.cpu})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].us > all[j].us })
	var out []string
	for _, x := range all[:min(n, len(all))] {
		out = append(out, fmt.Sprintf("%s %.1f µs", x.what, x.us))
	}
	return out
}

// The sections of docs/BENCHMARKS.md that split each ratio's gap, as the
// goals table names them.
const (
	causeGRPC   = "\"Where the time goes\", gRPC (a/b*)"
	causeREST   = "\"Where the time goes\", REST (c/d*)"
	causeStream = "\"Where the time goes\", Streaming against unary"
)

// streamProfiled is the stream count loadgen profiles: the highest.
func streamProfiled(res Results) int {
	n := 0
	for _, r := range res.Scenarios {
		if r.ID == "e" && r.Window > 0 {
			n = max(n, r.Concurrency)
		}
	}
	return n
}

func profileShares(path string, cats []category) ([]share, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, err
	}
	vi := len(p.SampleType) - 1
	sums := make([]float64, len(cats)+1)
	var total float64
	for _, s := range p.Sample {
		v := float64(s.Value[vi])
		total += v
		idx := len(cats)
	find:
		for ci, c := range cats {
			for li, loc := range s.Location {
				if c.leaf && li != innermost(s) {
					continue
				}
				for _, ln := range loc.Line {
					if ln.Function == nil {
						continue
					}
					for _, m := range c.match {
						if strings.Contains(ln.Function.Name, m) {
							idx = ci
							break find
						}
					}
				}
			}
		}
		sums[idx] += v
	}
	out := make([]share, 0, len(sums))
	for i, s := range sums {
		name := "other (scheduler, runtime)"
		if i < len(cats) {
			name = cats[i].name
		}
		if total > 0 {
			out = append(out, share{name, 100 * s / total})
		}
	}
	return out, nil
}

// workPerCall is what the translate core and the JSON codec cost the
// column's server per call (false: the profile is missing).
func workPerCall(c costColumn) (float64, bool) {
	var pct float64
	for _, sh := range c.server {
		if sh.name == catCore || sh.name == catCodec {
			pct += sh.pct
		}
	}
	return pct / 100 * c.r.ServerCPUus, len(c.server) > 0
}

// profiledColumn is a cost column of r with the splits of the server's and
// (for the gRPC harness) the client's CPU profiles loadgen took during it
// as <profiles>-<letter>.pprof and <profiles>-client-<letter>.pprof.
func profiledColumn(rf reportFiles, name, letter string, r *Result) costColumn {
	c := costColumn{name: name, r: r}
	if rf.profiles != "" {
		c.server, _ = profileShares(rf.profiles+"-"+letter+".pprof", serverCategories)
		if r.Tool != "wrk" {
			c.client, _ = profileShares(rf.profiles+"-client-"+letter+".pprof", clientCategories)
		}
	}
	return c
}

// innermost is the index of the sample's leaf-most location outside the
// Go runtime and the standard library's helpers (its first location when
// all are): a context.WithValue or a map assignment is the work of the code
// that calls it.
func innermost(s *profile.Sample) int {
	for i, loc := range s.Location {
		for _, ln := range loc.Line {
			if ln.Function != nil && !isHelper(ln.Function.Name) {
				return i
			}
		}
	}
	return 0
}

// helperPrefixes are the runtime and the standard library packages whose
// work a leaf category charges to their caller.
var helperPrefixes = []string{"runtime.", "internal/", "context.", "sync.", "sync/atomic.", "time.", "strings.",
	"strconv.", "bytes.", "fmt.", "errors.", "sort.", "slices.", "maps.", "unicode/", "math.", "io."}

func isHelper(fn string) bool {
	for _, p := range helperPrefixes {
		if strings.HasPrefix(fn, p) {
			return true
		}
	}
	return false
}

// cumShares lists the functions whose name contains pkg by cumulative share.
func cumShares(path, pkg string, n int) ([]share, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, err
	}
	vi := len(p.SampleType) - 1
	cum := map[string]float64{}
	var total float64
	for _, s := range p.Sample {
		v := float64(s.Value[vi])
		total += v
		seen := map[string]bool{}
		for _, loc := range s.Location {
			for _, ln := range loc.Line {
				if ln.Function == nil || seen[ln.Function.Name] {
					continue
				}
				seen[ln.Function.Name] = true
				cum[ln.Function.Name] += v
			}
		}
	}
	var out []share
	for name, v := range cum {
		if strings.Contains(name, pkg) && !strings.Contains(name, "Benchmark") {
			out = append(out, share{strings.TrimPrefix(name, "github.com/errsvc/errsvc/"), 100 * v / total})
		}
	}
	// By share, then name: the map's order must not decide between ties.
	sort.Slice(out, func(i, j int) bool {
		if out[i].pct != out[j].pct {
			return out[i].pct > out[j].pct
		}
		return out[i].name < out[j].name
	})
	return out[:min(n, len(out))], nil
}

func reportCmd(args []string) error {
	var rf reportFiles
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.StringVar(&rf.results, "results", "results.json", "loadgen run output")
	fs.StringVar(&rf.core, "core", "", "raw go test -bench output of the core benchmarks (at errsvc's GOGC)")
	fs.StringVar(&rf.coreGOGC100, "core-gogc100", "", "raw go test -bench output of the Labby benchmark at GOGC=100")
	fs.StringVar(&rf.benchstat, "benchstat", "", "benchstat summary of -core")
	fs.StringVar(&rf.machine, "machine", "", "machine description")
	fs.StringVar(&rf.commands, "commands", "", "the commands the script ran")
	fs.StringVar(&rf.profiles, "profiles", "", "the -profile-out prefix of loadgen run: <prefix>-<scenario>.pprof (server), <prefix>-client-<scenario>.pprof")
	fs.StringVar(&rf.profCore, "profile-core", "", "CPU profile of BenchmarkTranslate/labby")
	fs.StringVar(&rf.profProvider, "profile-provider", "", "CPU profile of BenchmarkTranslate/provider")
	fs.StringVar(&rf.topA, "top-a", "", "go tool pprof -top excerpt of -profile-a")
	fs.StringVar(&rf.topC, "top-c", "", "go tool pprof -top excerpt of -profile-c")
	fs.StringVar(&rf.topCore, "top-core", "", "go tool pprof -top excerpt of -profile-core")
	fs.StringVar(&rf.peer, "peer", "", "peer figure: the JSON of bench/peer/throughput.py")
	fs.StringVar(&rf.growthCoreOn, "growth-core-on", "", "growth ablation: go test -bench output of BenchmarkTranslate as built")
	fs.StringVar(&rf.growthCoreOff, "growth-core-off", "", "growth ablation: the same, built with -tags errsvc_ablate_growth")
	fs.StringVar(&rf.growthAB, "growth-ab", "", "growth ablation: bench/ab.sh's summary.json, base the build with the tag")
	fs.StringVar(&rf.out, "out", "docs/BENCHMARKS.md", "output: the first screen")
	fs.StringVar(&rf.detailOut, "detail-out", "", "output: the appendix (default: -out with -DETAIL.md for .md)")
	fs.StringVar(&rf.sameCodeAs, "same-code-as", "", "the commit of the report at -out, when the core benchmarks' code is unchanged since")
	if err := fs.Parse(args); err != nil {
		return err
	}
	b, err := os.ReadFile(rf.results)
	if err != nil {
		return err
	}
	var res Results
	if err := json.Unmarshal(b, &res); err != nil {
		return err
	}
	if rf.detailOut == "" {
		rf.detailOut = detailPath(rf.out)
	}
	// The rows the previous run is read from are in the appendix (and,
	// before it existed, in the one report).
	prev, _ := os.ReadFile(rf.out)
	if detail, err := os.ReadFile(rf.detailOut); err == nil {
		prev = append(prev, detail...)
	}
	if len(prev) > 0 {
		rf.prev = readPreviousRun(string(prev))
	}
	first, detail := render(rf, res)
	if err := os.WriteFile(rf.detailOut, []byte(detail), 0o644); err != nil {
		return err
	}
	return os.WriteFile(rf.out, []byte(first), 0o644)
}

func find(res Results, id string, conc int) *Result {
	for i := range res.Scenarios {
		if res.Scenarios[i].ID == id && res.Scenarios[i].Concurrency == conc {
			return &res.Scenarios[i]
		}
	}
	return nil
}

// firstRound is res with only its first round's scenarios.
func firstRound(res Results) Results {
	out := res
	out.Scenarios = nil
	for _, r := range res.Scenarios {
		if r.Round == 0 {
			out.Scenarios = append(out.Scenarios, r)
		}
	}
	return out
}

// rounds is how many rounds res ran (loadgen run's -rounds).
func rounds(res Results) int {
	n := 0
	for _, r := range res.Scenarios {
		n = max(n, r.Round+1)
	}
	return n
}

// roundRatios is num's calls/s over den's at concurrency c in each round
// that measured both, in round order.
func roundRatios(res Results, num, den string, c int) []float64 {
	nums, dens := map[int]float64{}, map[int]float64{}
	for _, r := range res.Scenarios {
		switch {
		case r.Concurrency != c:
		case r.ID == num:
			nums[r.Round] = r.CallsPerSec
		case r.ID == den:
			dens[r.Round] = r.CallsPerSec
		}
	}
	var out []float64
	for round := range rounds(res) {
		if n, ok := nums[round]; ok && dens[round] > 0 {
			out = append(out, n/dens[round])
		}
	}
	return out
}

// median is the middle of vs (the mean of the two middle ones for an even
// count); vs is not changed.
func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n == 0 {
		return 0
	}
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// roundsText is a ratio's median against its goal and, over more than one
// round, each round's value in order.
func roundsText(rs []float64, goal float64) string {
	m := ratioText(median(rs), goal)
	if len(rs) < 2 {
		return m
	}
	each := make([]string, len(rs))
	for i, v := range rs {
		each[i] = fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%s (median of %d rounds: %s)", m, len(rs), strings.Join(each, ", "))
}

func best(res Results, id, nameHas string) *Result {
	var b *Result
	for i := range res.Scenarios {
		r := &res.Scenarios[i]
		if r.ID == id && strings.Contains(r.Name, nameHas) && (b == nil || r.ItemsPerSec > b.ItemsPerSec) {
			b = r
		}
	}
	return b
}

func us(v float64) string {
	if v >= 10000 {
		return fmt.Sprintf("%.1f ms", v/1000)
	}
	return fmt.Sprintf("%.0f µs", v)
}

func metStr(ok bool) string {
	if ok {
		return "**met**"
	}
	return "**not met**"
}

// responseSizes is the average size of the answers to floors.Sources, in
// binary protobuf and as the REST face writes them (errjson: protojson's
// own output varies its spacing from build to build).
func responseSizes() (bin, js float64) {
	for _, s := range floors.Sources {
		req := &errsvcv1.TranslateRequest{}
		_ = protojson.Unmarshal([]byte(s), req)
		resp, err := translate.Translate(req)
		if err != nil {
			continue
		}
		bin += float64(proto.Size(resp))
		j, _ := errjson.Marshal(errjson.Options{ProtoNames: true, TopLevelLists: true}, resp)
		js += float64(len(j))
	}
	n := float64(len(floors.Sources))
	return bin / n, js / n
}

// render writes the report: its first screen (docs/BENCHMARKS.md) and the
// appendix beside it.
func render(rf reportFiles, res Results) (string, string) {
	// Every table shows the first round (the profiled one); the ratio
	// goals read all rounds.
	all := res
	res = firstRound(res)
	var w strings.Builder
	sum := summary{started: res.Started.Format("2006-01-02 15:04"), machine: machineSummary(readOr(rf.machine, "")),
		peer: peerSummary(rf.peer), detail: filepath.Base(detailPath(rf.out))}
	if rf.detailOut != "" {
		sum.detail = filepath.Base(rf.detailOut)
	}
	p := func(format string, a ...any) { fmt.Fprintf(&w, format, a...) }
	core := parseCore(readOr(rf.core, ""))
	core100 := parseCore(readOr(rf.coreGOGC100, ""))
	binSize, jsonSize := responseSizes()
	goLine := goLineOf(readOr(rf.machine, ""))

	p("# errsvc benchmarks: detail\n\n")
	p("The appendix of [BENCHMARKS.md](%s), whose first screen gives the goals, the peer figure and the core table.\n", filepath.Base(rf.out))
	p("Generated by `bench/run.sh` in one run (%s UTC); do not edit by hand, rerun the script.\n", sum.started)
	p("Speed is reported as ratios against floors measured in the same run, on the same server process;\n")
	p("absolute figures only describe this machine. CI runs none of this.\n\n")

	p("## Machine\n\n```\n%s\n```\n\n", readOr(rf.machine, "(unknown)"))
	p("Client and server run on the same machine as separate processes and **compete for its CPU**: every load\n")
	p("figure below includes the load generator's own cost (for gRPC, grpc-go's client encoding requests and\n")
	p("decoding answers; for REST, wrk, which is cheap). The server's CPU per item (`/proc/<pid>/stat`), the\n")
	p("client's (the load generator's `/proc/self/stat`, or wrk's own rusage) and the machine's idle cores (`/proc/stat`),\n")
	p("each over the scenario's window, are given separately.\n\n")
	if b, ok := core["BenchmarkMachine"]; ok {
		p(machineLine, b.ns)
		sum.speed = fmt.Sprintf("Reference workload %.0f ns", b.ns)
		if sp := machineSpeed(rf, core); sp > 0 {
			sum.speed += fmt.Sprintf(": this machine ran at %.2f× the speed of the run this one replaced (the absolute goals move with it)", sp)
			p(" The report this run replaced measured %.0f ns: this machine ran at %.2f of that run's speed. The absolute\n", rf.prev.machine, sp)
			p("goals (ns per translation, MB/s) move with it; the ratios, measured in one run, do not.")
		}
		sum.speed += "."
		p("\n\n")
	}
	if cs, ss := sameCodeSpeed(rf, core, goLine); cs > 0 || ss > 0 {
		var speeds []string
		if cs > 0 {
			speeds = append(speeds, fmt.Sprintf("%.2f for the per-source translations (geometric mean of the GOGC=400 column)", cs))
		}
		if ss > 0 {
			speeds = append(speeds, fmt.Sprintf("and %.2f for the sanitiser (of its inputs' MB/s)", ss))
		}
		p("The code the core benchmarks run (the non-test Go files of `translate/`, `codec/` and `gen/`, `go.mod`, `go.sum`) is\n")
		p("unchanged since %s, the commit of the report this run replaced, and built by the same Go. On errsvc's own\n", rf.sameCodeAs)
		p("benchmarks, as a share of that run's speed, this machine ran at %s.\nThe absolute goals move with it.\n\n", strings.Join(speeds, ",\n"))
	}

	p("## How it was run\n\n```sh\n%s\n```\n\n", readOr(rf.commands, "bench/run.sh"))
	p("- Server: `bench/cmd/benchserver`, the errsvc stack built by `server.New` with errsvc's default options (so the\n")
	p("  answer cache is on, at its default bound), plus floors added through `Options.RegisterGRPC` /\n")
	p("  `Options.RegisterGateway`: `b`, `grpc.testing.TestService/EmptyCall` (an empty handler behind the same\n")
	p("  interceptors); `d`, `POST /v1/bench/empty` (the same gateway mux, body limit, concurrency limit, metrics and\n")
	p("  logging; it reads the body and answers `{}`); and the **canned-answer floors** the goals are measured against\n")
	p("  (package `bench/internal/floors`): `b*`, gRPC `errsvc.bench.v1.Canned/Translate`, decodes the `TranslateRequest`\n")
	p("  with errsvc's codec and returns the answer computed for its source at start-up; `d*`, REST `POST /v1/bench/canned`,\n")
	p("  reads the body and writes errsvc's JSON answer for its source. A canned floor does everything Translate does except\n")
	p("  computing the answer (and, for REST, decoding the request): between it and Translate lie the JSON codec and the\n")
	p("  translation. `--stream-rate -1` (errsvc's default of 500 messages/s per stream would measure the limiter). Log level\n")
	p("  WARN: successful calls log nothing, as at errsvc's default INFO. GOGC unset: errsvc's `server.DefaultGCPercent`.\n")
	p("- **Cold path** (`a`, `c`, streams, batches): every request is distinct, one of the four sources below\n")
	p("  with its own `context.service` (`svc-<n>`, carried into the answer), over %d distinct gRPC requests or a wrk\n", floors.ColdPool)
	p("  counter, far more than the cache holds: the cache never hits, so these figures are the cost of translating. (The cache\n")
	p("  stores an answer when its request's bytes miss a second time, so here it stores nothing.) The RSS run sends each cold\n")
	p("  request twice in a row instead, so that the caches store every answer.\n")
	p("- **Storm path** (`f` gRPC, `g` REST): a rate-limit storm, %d requests in 10 repeat one of the four bodies byte for byte\n", floors.StormHotShare)
	p("  (a fleet's identical 429s), the tenth is distinct.\n")
	p("- gRPC load: `bench/cmd/loadgen`, a harness on grpc-go's client: a fixed number of workers, each with one\n")
	p("  call in flight, sharing 4 connections, with the codec and the static flow-control windows of errsvc's Go SDK\n")
	p("  (`codec.Client`, `internal/clientconn`: no BDP ping after each answer); latency of every\n")
	p("  call in an HDR histogram (hdrhistogram-go, µs, 3 significant digits). It profiles itself alongside the server.\n")
	p("  Each request is built when it is sent, sharing its source message with the others and owning only its context,\n")
	p("  and encoded by the call, as a caller does; the harness keeps no 80 MiB pool of decoded requests for its\n")
	p("  collector to rescan (a cost no caller has).\n")
	p("  Every call carries the scenario's deadline (the end of its measured window plus 5 s, sent as `grpc-timeout`): from\n")
	p("  the middle of the window on, it comes before errsvc's 10 s receive timeout, so errsvc adds no timer of its own, as\n")
	p("  for a Go SDK call with its default 10 s deadline; before that, errsvc arms one per call.\n")
	p("- REST load: wrk (Debian package), 2 threads, `-c` connections, a Lua script writing the same bodies and\n")
	p("  printing wrk's own HDR percentiles.\n")
	p("- Bodies: one request per source vocabulary: Labby `{\"labby_error\":{\"kind\":\"rate_limited\",\"message\":\"slow down\"}}`,\n")
	p("  an Agent Surface error, a classified error and an MCP tool result (those of `translate/bench_test.go`).\n")
	p("  The full answer averages %.0f bytes in binary protobuf and %.0f bytes as JSON.\n", binSize, jsonSize)
	p("- Each scenario: %.0f s warm-up, then %.0f s measured; scenarios run one after another against one server.\n", res.Warmup, res.Duration)
	if n := rounds(all); n > 1 {
		p("- The ratio goals' scenarios (a, b*, f, c, d*, g) run in %d rounds, each round both sides of every ratio back to back;\n", n)
		p("  a ratio's verdict is its median over the rounds. The tables show the first round, the one profiled.\n")
	}
	p("- Streaming: N concurrent bidi `TranslateStream`s, each pipelining a window of requests (a sender waits for\n")
	p("  a free slot, the receiver frees one per answer); latency is send-to-answer, so it includes the window's queue.\n")
	p("- Batch: `TranslateBatch` with the item count shown, one call in flight per worker.\n\n")

	// Core.
	p("## Core benchmarks\n\n")
	p("`GOGC=400 go test ./translate/... ./codec/... -run '^$' -bench . -benchmem -count $COUNT` (5 unless bench/run.sh is given another COUNT), summarised by benchstat;\n")
	p("GOGC=400 is the collector target errsvc runs with (`server.DefaultGCPercent`). `BenchmarkTranslate` again at Go's\n")
	p("default GOGC=100 for the per-source table.\n\n")
	p("```\n%s\n```\n\n", readOr(rf.benchstat, readOr(rf.core, "(not run)")))

	var sources []sourceRow
	coreOK := true
	for _, name := range coreSourceOrder(core) {
		b := core["BenchmarkTranslate/"+name]
		b100, has100 := core100["BenchmarkTranslate/"+name]
		limit := sourceLimitNs(name)
		ok := b.ns <= limit && b.allocs <= 12 && has100 && b100.ns <= limit && b100.allocs <= 12
		coreOK = coreOK && ok
		sources = append(sources, sourceRow{name, b.ns, b.allocs, b100.ns, b100.allocs, b.bytes, core["BenchmarkTranslateOwned/"+name].ns, ok})
	}
	if len(sources) > 0 {
		p("Every source (`BenchmarkTranslate/<source>`, the default answer, medians of the COUNT runs). It is the server's\n")
		p("translation: into storage leased from a pool (`translate.TranslateLeased`) and given back once the transport has\n")
		p("encoded the answer. The owned column is `BenchmarkTranslateOwned`, `translate.Translate`, whose answer the caller\n")
		p("keeps (the CLI, a Go program): a fresh 3 KiB storage block each time, which the processor has not touched for a\n")
		p("while, so its first writes miss the cache.\n\n")
		p("| source | GOGC=400 | allocs | GOGC=100 | allocs | B/op | owned, GOGC=400 | goal | verdict |\n|---|---:|---:|---:|---:|---:|---:|---|---|\n")
		for _, r := range sources {
			goal := sourceGoal(r.name)
			p("| %s | %.0f ns | %.0f | %.0f ns | %.0f | %.0f | %.0f ns | %s | %s |\n", r.name, r.ns, r.allocs, r.ns100, r.allocs100, r.bytes, r.owned, goal, metStr(r.ok))
		}
		// The measured cause of the difference between the two columns.
		var gcMin, gcMax, perKiB float64
		allocating := 0
		for i, r := range sources {
			d := r.ns100 - r.ns
			if i == 0 || d < gcMin {
				gcMin = d
			}
			gcMax = max(gcMax, d)
			if r.bytes >= 256 {
				perKiB += d / (r.bytes / 1024)
				allocating++
			}
		}
		perKiB /= float64(max(allocating, 1))
		p("\nAt Go's default GOGC=100 the collector runs four times as often: %.0f–%.0f ns more per translation, about %.0f ns\n", max(gcMin, 0), gcMax, perKiB)
		p("per KiB the translation allocates (the B/op column: what the leased storage does not hold).\n")
		p("\n")
	}

	sanOK := true
	var sanMin, sanMax float64
	sizes := []string{"1KiB", "16KiB", "64KiB", "1MiB"}
	p("Sanitiser (`translate/sanitize`, gitleaks' default rules, errsvc's rules and the hand rules, on the mixed text of\n")
	p("`bench_test.go`, a third of whose lines carry a secret):\n\n| input | MB/s | allocs |\n|---|---:|---:|\n")
	for _, size := range sizes {
		b, ok := core["BenchmarkText"+size]
		if !ok {
			continue
		}
		p("| %s | %.1f | %.0f |\n", size, b.mbs, b.allocs)
		sanOK = sanOK && b.mbs >= 200
		if sanMin == 0 || b.mbs < sanMin {
			sanMin = b.mbs
		}
		sanMax = max(sanMax, b.mbs)
	}
	if b, ok := core["BenchmarkTextClean"]; ok {
		p("| a short clean line (%s) | %.1f | %.0f (%.0f ns) |\n", "119 B", b.mbs, b.allocs, b.ns)
	}
	first, okFirst := core["BenchmarkTextFirstPass64KiB"]
	if okFirst {
		p("| 64KiB, the first redaction pass and the filter only | %.1f | %.0f |\n", first.mbs, first.allocs)
	}
	pieces, okPieces := core["BenchmarkText64KiBAs1KiB"]
	okPieces = okPieces && pieces.texts > 0
	if okPieces {
		p("| 64KiB as %.0f texts of at most 1 KiB, cut at line ends | %.1f | %.0f |\n", pieces.texts, pieces.mbs, pieces.allocs)
	}
	p("\n")
	if whole, ok := core["BenchmarkText64KiB"]; ok && !sanOK {
		// The measured split of a miss: the stages' own benchmarks on the
		// same 64 KiB of mixed text, in this run.
		var parts []string
		for _, st := range []struct{ bench, name string }{
			{"BenchmarkHandScan64KiB", "the hand rules' scan"},
			{"BenchmarkKeywordFind64KiB", "the keyword pre-filter"},
			{"BenchmarkFilter64KiB", "the character filter"},
		} {
			if b, ok := core[st.bench]; ok {
				parts = append(parts, fmt.Sprintf("%s %.0f µs (%.0f %%)", st.name, b.ns/1000, 100*b.ns/whole.ns))
			}
		}
		if len(parts) > 0 {
			p("Where a text's time goes (each stage's own benchmark on the same 64 KiB, %.0f µs in all; the rest is the rules\n", whole.ns/1000)
			p("the keywords select, and merging): %s. 200 MB/s allows %.0f µs per 64 KiB.", strings.Join(parts, ", "), 65536/200.0)
			if small, ok := core["BenchmarkText1KiB"]; ok && small.mbs < 200 {
				p(" At 1 KiB a text takes %.2f µs (200 MB/s allows %.2f), %.2f µs more than a 64th of the 64 KiB text: what\n", small.ns/1000, 1024/200.0, (small.ns-whole.ns/64)/1000)
				p("misses there is per text, not per byte, and the split at 64 KiB does not show it.")
				if okPieces {
					// The measured cost of a text as a text: the same bytes
					// in pieces, against the whole, in this run.
					p(" Measured: the same 64 KiB as %.0f texts takes %.0f µs, %.0f µs more than as one text, so %.2f µs per\n", pieces.texts, pieces.ns/1000, (pieces.ns-whole.ns)/1000, (pieces.ns-whole.ns)/pieces.texts/1000)
					p("text.")
				}
			}
			p("\n\n")
		}
	}
	first1, ok1 := core["BenchmarkTextFirstLayer64KiB"]
	second, ok2 := core["BenchmarkTextSecondLayer64KiB"]
	if whole, ok := core["BenchmarkText64KiB"]; ok && ok1 && ok2 && whole.mbs < 200 {
		// The measured split between the two detection layers, in this run.
		p("The two detection layers, each alone on the same 64 KiB: the first (the secret rules, the filter, redacted\n")
		p("until stable) %.0f µs (%.0f MB/s), the second (credential context, transcripts, shapes and bare tokens on every\n", first1.ns/1000, first1.mbs)
		p("decoded and unwrapped reading, `translate/sanitize/context.go`) %.0f µs (%.0f MB/s); 200 MB/s allows %.0f µs in all.\n\n", second.ns/1000, second.mbs, 65536/200.0)
	}
	// Hostile repetition: one credential head repeated over an evidence
	// string's window, every keyword hit inside one long token.
	type repeated struct {
		head string
		b    coreBench
	}
	var reps []repeated
	for name, b := range core {
		if head, ok := strings.CutPrefix(name, "BenchmarkTextRepeated/"); ok {
			reps = append(reps, repeated{head, b})
		}
	}
	if len(reps) > 0 {
		slices.SortFunc(reps, func(a, b repeated) int { return cmp.Compare(a.b.mbs, b.b.mbs) })
		var parts []string
		for _, r := range reps[:min(3, len(reps))] {
			parts = append(parts, fmt.Sprintf("`%s` %.1f MB/s (%.1f ms)", strings.TrimSpace(r.head), r.b.mbs, r.b.ns/1e6))
		}
		p("Hostile repetition (`BenchmarkTextRepeated`: one 32 KiB evidence window of one credential's head repeated, every\n")
		p("keyword hit inside one long token), the slowest of %d heads: %s; the rest %.0f MB/s or more.\n\n",
			len(reps), strings.Join(parts, ", "), reps[min(3, len(reps)-1)].b.mbs)
	}
	if whole, ok := core["BenchmarkText64KiB"]; ok && okFirst && whole.mbs < 200 {
		// The measured split of a miss: the first pass against the passes
		// that follow a redaction until the text is stable.
		p("On this mix every input has something redacted, so the text is redacted again until it is stable (the second\n")
		p("pass finds what the first pass's replacements and removed characters uncover, e.g. a token between escaped\n")
		p("quotes). Of the %.0f µs per 64 KiB, the first pass and the filter take %.0f µs (%.0f MB/s) and the passes to a\n", whole.ns/1000, first.ns/1000, first.mbs)
		p("fixed point %.0f µs; 200 MB/s allows %.0f µs in all.\n\n", (whole.ns-first.ns)/1000, 65536/200.0)
	}

	// Load.
	p("## Load\n\n")
	p("| | scenario | tool | concurrency | calls/s | translations/s | p50 | p99 | server CPU per translation | server cores busy | client CPU per translation | idle cores |\n")
	p("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range res.Scenarios {
		if isLight(r.ID) {
			continue // their own table, "Light load"
		}
		conc := fmt.Sprintf("%d", r.Concurrency)
		switch {
		case r.Window > 0:
			conc = fmt.Sprintf("%d streams × window %d (%d conns)", r.Concurrency, r.Window, r.Conns)
		case r.Tool == "wrk":
			conc = fmt.Sprintf("%d connections", r.Concurrency)
		default:
			conc = fmt.Sprintf("%d workers / %d conns", r.Concurrency, r.Conns)
		}
		items := "–"
		if !strings.Contains(r.Name, "floor") {
			items = fmt.Sprintf("%.0f", r.ItemsPerSec)
		}
		client := "–"
		if r.ClientCPUus > 0 {
			client = fmt.Sprintf("%.1f µs", r.ClientCPUus)
		}
		p("| %s | %s | %s | %s | %.0f | %s | %s | %s | %s | %.2f | %s | %.2f |\n", r.ID, r.Name, r.Tool, conc, r.CallsPerSec, items,
			us(r.P50us), us(r.P99us), fmt.Sprintf("%.1f µs", r.ServerCPUus), r.ServerCores, client, r.IdleCores)
	}
	p("\n`a*` is a diagnostic: the same Translate asking only for `targets: [classification, http_status]`.\n\n")
	p("%s", lightSection(rf, res, core))
	sum.light = lightSummary(res)

	// Ratios.
	var concs []int
	for _, r := range res.Scenarios {
		if r.ID == "a" {
			concs = append(concs, r.Concurrency)
		}
	}
	type ratioGoal struct {
		label, num, den string
		goal            float64
		ok              bool
		vals            []string
		rounds          int    // the most rounds a value is the median of
		cause           string // the section that splits a miss
	}
	goals := []*ratioGoal{
		{label: "REST Translate, cold / canned answer (c/d*)", num: "c", den: "d*", goal: 0.80, ok: true, cause: causeREST},
		{label: "gRPC Translate, cold / canned answer (a/b*)", num: "a", den: "b*", goal: 0.90, ok: true, cause: causeGRPC},
		{label: "gRPC Translate, storm / canned answer (f/b*)", num: "f", den: "b*", goal: 0.90, ok: true, cause: causeGRPC},
		{label: "REST Translate, storm / canned answer (g/d*)", num: "g", den: "d*", goal: 0.90, ok: true, cause: causeREST},
	}
	p("## Ratios\n\n| ratio | concurrency | value | goal |\n|---|---|---:|---|\n")
	for _, g := range goals {
		for _, c := range concs {
			rs := roundRatios(all, g.num, g.den, c)
			if len(rs) == 0 {
				g.ok = false
				continue
			}
			v := median(rs)
			g.rounds = max(g.rounds, len(rs))
			g.ok = g.ok && v >= g.goal
			g.vals = append(g.vals, fmt.Sprintf("%s (c=%d)", ratioText(v, g.goal), c))
			p("| %s | %d | %s | ≥ %.2f |\n", g.label, c, roundsText(rs, g.goal), g.goal)
		}
	}
	for _, c := range concs {
		if a, b := find(res, "a", c), find(res, "b", c); a != nil && b != nil {
			p("| a/b (diagnostic: against the empty RPC) | %d | %.2f | – |\n", c, a.CallsPerSec/b.CallsPerSec)
		}
		if bc, b := find(res, "b*", c), find(res, "b", c); bc != nil && b != nil {
			p("| b*/b (diagnostic: carrying the full answer) | %d | %.2f | – |\n", c, bc.CallsPerSec/b.CallsPerSec)
		}
		if cc, d := find(res, "c", c), find(res, "d", c); cc != nil && d != nil {
			p("| c/d (diagnostic: against the empty route) | %d | %.2f | – |\n", c, cc.CallsPerSec/d.CallsPerSec)
		}
	}
	bestA := best(res, "a", "Translate")
	bestS := best(res, "e", "Stream")
	bestB := best(res, "e", "Batch")
	var streamRatio, batchRatio float64
	if bestA != nil && bestS != nil {
		streamRatio = bestS.ItemsPerSec / bestA.ItemsPerSec
		p("| stream/unary: best TranslateStream translations/s / best cold gRPC Translate calls/s | %d streams vs %d workers | %.2f× | ≥ 5× |\n",
			bestS.Concurrency, bestA.Concurrency, streamRatio)
	}
	if bestA != nil && bestB != nil {
		batchRatio = bestB.ItemsPerSec / bestA.ItemsPerSec
		p("| batch/unary: best TranslateBatch translations/s / best cold gRPC Translate calls/s | %d workers vs %d | %.2f× | (reported) |\n",
			bestB.Concurrency, bestA.Concurrency, batchRatio)
	}
	p("\n")

	// RSS.
	rssOK := false
	if r := res.RSS; r != nil {
		growthOK := r.FittedGrowth <= 5
		rssOK = r.MaxMiB <= 100 && growthOK
		p("## RSS under sustained load\n\n")
		p("%.0f s of cold gRPC Translate (%d workers, %.0f calls/s, p99 %s) and cold REST Translate at the same time (wrk, %d\n",
			r.Seconds, r.GRPC.Concurrency, r.GRPC.CallsPerSec, us(r.GRPC.P99us), r.HTTP.Concurrency)
		p("connections, %.0f calls/s, p99 %s), %d errors: each distinct request is sent twice in a row, so the answer cache stores\n",
			r.HTTP.CallsPerSec, us(r.HTTP.P99us), r.GRPC.Errors+r.HTTP.Errors)
		p("every answer (on its second miss), fills to its bound and evicts all along. The server's VmRSS (`/proc/<pid>/status`) sampled every %.0f s after the warm-up:\n\n", r.IntervalSec)
		p("| start | end | max | least-squares slope | fitted growth over the run |\n|---:|---:|---:|---:|---:|\n")
		p("| %.1f MiB | %.1f MiB | %.1f MiB | %+.2f MiB/min | %+.1f MiB |\n\n", r.StartMiB, r.EndMiB, r.MaxMiB, r.SlopeMiBMin, r.FittedGrowth)
		var ss []string
		for _, v := range r.SamplesMiB {
			ss = append(ss, fmt.Sprintf("%.1f", v))
		}
		p("Samples (MiB): %s.\n\n", strings.Join(ss, ", "))
		p("\"No growth\" means a fitted growth of at most 5 MiB over the run.\n\n")
	}

	p("%s", peerSection(rf.peer))
	growthRes, growthOK, growthFound, growthSection := growthGoal(rf)
	p("%s", growthSection)

	// Goals.
	p("## Goals (issue \"Performance\")\n\n")
	p("| goal | result | verdict |\n|---|---|---|\n")
	verdict := func(ok bool, cause string) string {
		if ok {
			return metStr(true)
		}
		return metStr(false) + "; measured cause: " + cause
	}
	// An absolute goal also names the machine when it ran more than 15 %
	// slower than the run of the report it replaced.
	coreSlower, sanSlower := slowerCauses(rf, core, goLine)
	for _, g := range goals {
		vals := strings.Join(g.vals, ", ")
		if g.rounds > 1 {
			vals += fmt.Sprintf(", medians of %d rounds", g.rounds)
		}
		p("| %s ≥ %.2f at 16 and 64 | %s | %s |\n", g.label, g.goal, vals, verdict(g.ok, g.cause))
		sum.goals = append(sum.goals, summaryGoal{fmt.Sprintf("%s ≥ %.2f at 16 and 64", g.label, g.goal), vals, g.ok})
	}
	p("| TranslateStream ≥ 5× unary translations/s | %.2f× | %s |\n", streamRatio, verdict(streamRatio >= 5, causeStream))
	sum.goals = append(sum.goals, summaryGoal{"TranslateStream ≥ 5× unary translations/s", fmt.Sprintf("%.2f×", streamRatio), streamRatio >= 5})
	if len(sources) > 0 {
		var worst []string
		cause := coreSlower
		for _, r := range sources {
			if !r.ok {
				worst = append(worst, fmt.Sprintf("%s %.0f/%.0f ns, %.0f allocs", r.name, r.ns, r.ns100, r.allocs))
				if r.name == "provider" && rf.profProvider != "" {
					// Profiled below ("Where the time goes").
					cause = joinCause(`"Where the time goes", Core: where a raw provider answer spends`, coreSlower)
				}
			}
		}
		res := "all within"
		if len(worst) > 0 {
			res = "over: " + strings.Join(worst, "; ")
		}
		coreVerdict := metStr(coreOK)
		if !coreOK && cause != "" {
			coreVerdict = verdict(false, cause)
		}
		p("| every source ≤ 3 µs and ≤ 12 allocs, Labby ≤ 1 µs (GOGC 400 and 100) | %s | %s |\n", res, coreVerdict)
		sum.goals = append(sum.goals, summaryGoal{"every source ≤ 3 µs and ≤ 12 allocs, Labby ≤ 1 µs (GOGC 400 and 100)", res, coreOK})
	}
	if res, ok, found := policyOverhead(core); found {
		p("| an operator policy of 1,000 rules costs ≤ 10%% more per translation | %s | %s |\n", res, metStr(ok))
		sum.goals = append(sum.goals, summaryGoal{"an operator policy of 1,000 rules costs ≤ 10% more per translation", res, ok})
	}
	if growthFound {
		const goal = "the second secrets layer and the limit facet push no core source over its goal and no ratio down by more than the noise"
		p("| %s | %s | %s |\n", goal, growthRes, verdict(growthOK, `"Growth"`))
		sum.goals = append(sum.goals, summaryGoal{goal, growthRes, growthOK})
	}
	if sanMax > 0 {
		p("| sanitiser ≥ 200 MB/s, flat from 1 KiB to 1 MiB | %.0f–%.0f MB/s | %s |\n", sanMin, sanMax, verdict(sanOK, joinCause("the sanitiser's table, \"Where a text's time goes\"", sanSlower)))
		sum.goals = append(sum.goals, summaryGoal{"sanitiser ≥ 200 MB/s, flat from 1 KiB to 1 MiB", fmt.Sprintf("%.0f–%.0f MB/s", sanMin, sanMax), sanOK})
	}
	if txt, ok := peerGoal(rf.peer); ok {
		p("| the peer figure beside LiteLLM's | %s | shown |\n", txt)
	} else {
		p("| the peer figure beside LiteLLM's | not run | **not met** |\n")
	}
	if r := res.RSS; r != nil {
		p("| RSS ≤ 100 MiB, no growth (cache included) | max %.1f MiB, fitted growth %+.1f MiB | %s |\n", r.MaxMiB, r.FittedGrowth, metStr(rssOK))
		sum.goals = append(sum.goals, summaryGoal{"RSS ≤ 100 MiB, no growth (cache included)", fmt.Sprintf("max %.1f MiB, fitted growth %+.1f MiB", r.MaxMiB, r.FittedGrowth), rssOK})
	}
	p("\n")

	// Causes of what is missed, measured in this run.
	top := 0
	if len(concs) > 0 {
		top = concs[len(concs)-1]
	}
	a, bb, cc, dd := find(res, "a", top), find(res, "b", top), find(res, "c", top), find(res, "d", top)
	bc, dc := find(res, "b*", top), find(res, "d*", top)
	coreHot, errCore := cumShares(rf.profCore, "errsvc/errsvc/translate", 12)
	cores := float64(runtime.NumCPU())
	perCall := func(r *Result) float64 { return cores * 1e6 / r.CallsPerSec }

	// writeBudget says what a ratio goal leaves for the translation: the
	// machine CPU per call it allows, against what is spent now, and the
	// ratio the server's own CPU would give (the client's cost, shared by
	// numerator and floor, pulls the machine ratio towards 1); then what it
	// leaves between the route (column c) and its floor against what the
	// work itself (the translate core, and the JSON codec for REST: what the
	// floor does not do) costs the route's server in this run's profile.
	writeBudget := func(num, den string, goal float64, c costColumn, floor *Result, what string) {
		numCall, denCall := perCall(c.r), perCall(floor)
		if numCall*goal <= denCall {
			p("\n")
			return
		}
		p("%s/%s ≥ %.2f allows at most %.1f µs of machine time per call, %.1f µs less than now; on the server's CPU alone the ratio\n", num, den, goal, denCall/goal, numCall-denCall/goal)
		p("would be %.2f.\n\n", floor.ServerCPUus/c.r.ServerCPUus)
		if work, ok := workPerCall(c); ok {
			p("The goal leaves %.1f µs of machine time per call between %s and %s; in this run's profile of %s, %s\n", denCall/goal-denCall, num, den, num, what)
			p("%.1f µs of the server's CPU per call (the server table below).\n\n", work)
		}
	}
	p("## Where the time goes\n\n")
	p("Each gap is split with the floors of the same run. Client and server share %d cores, so throughput follows the\n", int(cores))
	p("machine's time per translation (cores ÷ translations/s). Each scenario measures how that time divides: the server's CPU\n")
	p("(`/proc/<pid>/stat`), the client's (the load generator's own, or wrk's), the machine's idle time (`/proc/stat`) and\n")
	p("the rest (kernel threads, other processes). The CPU profiles of server and client, taken in the measured window at\n")
	p("the highest concurrency, split each process's share by where it goes.\n\n")
	col := func(name, letter string, r *Result) costColumn { return profiledColumn(rf, name, letter, r) }
	// splitBelowTop writes the split of num against den at each
	// concurrency below the highest, with the profiles loadgen took there
	// in the first round (<letter>-<concurrency>), where it took them.
	splitBelowTop := func(num, den, numLetter, denLetter, unit string) {
		for _, c := range concs[:max(0, len(concs)-1)] {
			if n, d := find(res, num, c), find(res, den, c); n != nil && d != nil {
				p("At %d %s (the first round): %s/%s %.3f.\n\n", c, unit, num, den, n.CallsPerSec/d.CallsPerSec)
				at := fmt.Sprintf("-%d", c)
				writeCosts(p, "per call", []costColumn{col(num, numLetter+at, n), col(den, denLetter+at, d)}, num+" − "+den)
			}
		}
	}
	if a != nil && bc != nil && bb != nil {
		p("### gRPC (a/b*)\n\n")
		p("At %d workers: machine time per call %.1f µs for cold Translate (server %.1f µs), %.1f µs for the canned answer\n", top, perCall(a), a.ServerCPUus, perCall(bc))
		p("(server %.1f µs) and %.1f µs for EmptyCall (server %.1f µs). Computing the answer costs %.1f µs of machine time per call,\n",
			bc.ServerCPUus, perCall(bb), bb.ServerCPUus, perCall(a)-perCall(bc))
		p("%.1f µs of it in the server; carrying it (b*/b) costs %.1f µs more than the empty RPC.\n", a.ServerCPUus-bc.ServerCPUus, perCall(bc)-perCall(bb))
		ca := col("a", "a", a)
		writeBudget("a", "b*", 0.90, ca, bc, "translating takes")
		writeCosts(p, "per call", []costColumn{ca, col("b*", "bcanned", bc)}, "a − b*")
		splitBelowTop("a", "b*", "a", "bcanned", "workers")
		if _, err := os.Stat(rf.topA); err == nil {
			p("The server's hottest functions during a:\n\n```\n%s\n```\n\n", readOr(rf.topA, ""))
		}
	}
	if cc != nil && dc != nil && dd != nil {
		p("### REST (c/d*)\n\n")
		p("At %d connections: server CPU per call %.1f µs for cold Translate, %.1f µs for the canned answer and %.1f µs for the\n", top, cc.ServerCPUus, dc.ServerCPUus, dd.ServerCPUus)
		p("empty route: decoding the request, translating and encoding the answer cost the server %.1f µs per call.\n", cc.ServerCPUus-dc.ServerCPUus)
		ccol := col("c", "c", cc)
		writeBudget("c", "d*", 0.80, ccol, dc, "translating and the JSON codec take")
		writeCosts(p, "per call", []costColumn{ccol, col("d*", "dcanned", dc)}, "c − d*")
		splitBelowTop("c", "d*", "c", "dcanned", "connections")
		if _, err := os.Stat(rf.topC); err == nil {
			p("The server's hottest functions during c:\n\n```\n%s\n```\n\n", readOr(rf.topC, ""))
		}
	}
	if bestS != nil && bestA != nil {
		p("### Streaming against unary\n\n")
		p("Best stream: %.0f translations/s (%d streams), server %.1f µs per translation; best cold unary: %.0f calls/s (%d workers),\n",
			bestS.ItemsPerSec, bestS.Concurrency, bestS.ServerCPUus, bestA.ItemsPerSec, bestA.Concurrency)
		p("server %.1f µs per call", bestA.ServerCPUus)
		if bestB != nil {
			p("; a batch item: %.1f µs", bestB.ServerCPUus)
		}
		p(". Streaming saves only the per-call part (HTTP/2 HEADERS, HPACK, stream setup, interceptors, the call record),\n")
		p("on both sides; the machine's time per streamed translation is %.1f µs against %.1f µs per unary call, so the ratio is\n",
			cores*1e6/bestS.ItemsPerSec, perCall(bestA))
		p("bounded by (per-call + per-item) / per-item cost on this shared machine.")
		item, call := cores*1e6/bestS.ItemsPerSec, perCall(bestA)
		if item*5 > call {
			p(" 5× needs at most %.1f µs of machine time per streamed translation, %.1f µs less than now.", call/5, item-call/5)
			p(" On the server's CPU alone the ratio would be %.2f×.", bestA.ServerCPUus/bestS.ServerCPUus)
		}
		p("\n\n")
		// The profiles are of the most streams and the most workers; when
		// the best of either ran at fewer, the split is of the profiled
		// run, so that every bound is shown with its profile, and it says
		// so.
		profiled := func(id string, best *Result, n int, unit string) costColumn {
			if best.Concurrency == n {
				return col(id, id, best)
			}
			r := find(res, id, n)
			if r == nil {
				return costColumn{name: id, r: best}
			}
			p("The profiles were taken at %d %s (%.0f translations/s, server %.1f µs per translation): the %s column is that run's.\n\n",
				n, unit, r.ItemsPerSec, r.ServerCPUus, id)
			return col(id, id, r)
		}
		ce, ca := profiled("e", bestS, streamProfiled(res), "streams"), profiled("a", bestA, top, "workers")
		// a − e is what streaming saves per translation: the per-call part.
		writeCosts(p, "per translation", []costColumn{ca, ce}, "a − e")
		if top := largestCosts(ce, 4); len(top) > 0 {
			p("What a streamed translation still costs, largest first: %s.\n\n", strings.Join(top, "; "))
		}
	}
	if sh, err := profileShares(rf.profProvider, providerCategories); err == nil {
		ns := core["BenchmarkTranslate/provider"].ns
		p("### Core: where a raw provider answer spends (CPU profile of `BenchmarkTranslate/provider`)\n\n")
		p("| where | share | ≈ per translation |\n|---|---:|---:|\n")
		for _, s := range sh {
			p("| %s | %.1f %% | %.0f ns |\n", s.name, s.pct, s.pct/100*ns)
		}
		p("\nThe goal allows 3000 ns in all; this translation took %.0f ns in the table above.", ns)
		// What the issue "Lean and fast" asks the later additions not to
		// push over 3 µs: their rows, and the translation without them.
		var added float64
		for _, s := range sh {
			if strings.HasPrefix(s.name, "sanitiser, second layer") || strings.HasPrefix(s.name, "limit facet") {
				added += s.pct / 100 * ns
			}
		}
		if added > 0 {
			p(" The second secrets layer and the limit facet, added after the goal was set, take %.0f ns of it; without them it would take about %.0f ns.", added, ns-added)
		}
		p("\n\n")
	}
	if errCore == nil {
		p("### Core: where a Labby translation spends (CPU profile of `BenchmarkTranslate/labby`)\n\n")
		p("| function (translate/...) | cumulative share |\n|---|---:|\n")
		for _, s := range coreHot {
			p("| `%s` | %.1f %% |\n", s.name, s.pct)
		}
		p("\n```\n%s\n```\n\n", readOr(rf.topCore, "(no profile)"))
	}
	sum.sources = sources
	return writeSummary(sum), w.String()
}

// coreSourceOrder lists the sources BenchmarkTranslate measured, in the
// order translate/bench_test.go runs them.
func coreSourceOrder(core map[string]coreBench) []string {
	var out []string
	for _, name := range []string{"labby", "agent", "classified", "mcp", "provider", "grpc_status", "jsonrpc", "http_error"} {
		if _, ok := core["BenchmarkTranslate/"+name]; ok {
			out = append(out, name)
		}
	}
	return out
}

// ratioText is a ratio to two places, or, where those would round it up
// to its goal, to three cut short (0.7999 against 0.80 reads "0.799", not
// a "0.80" beside "not met").
func ratioText(v, goal float64) string {
	if v < goal && math.Round(v*100)/100 >= goal {
		return fmt.Sprintf("%.3f", math.Floor(v*1000)/1000)
	}
	return fmt.Sprintf("%.2f", v)
}
