// Command loadgen drives a running benchserver (bench/cmd/benchserver) over
// loopback and reports throughput and latency, then renders
// docs/BENCHMARKS.md (one screen) and its appendix docs/BENCHMARKS-DETAIL.md.
// bench/run.sh is the one way to run it.
//
//	loadgen run    -out results.json [flags]   # the load scenarios, the light load and the RSS run
//	loadgen report -results results.json ...   # docs/BENCHMARKS.md and docs/BENCHMARKS-DETAIL.md
//
// gRPC load comes from a harness on grpc-go's own client (one call per
// worker at a time, a fixed number of workers sharing a fixed number of
// connections); REST load comes from wrk (a C load generator), driven with
// a Lua script that rotates real request bodies and prints its HDR
// percentiles. Every scenario runs a fixed warm-up and a fixed measured
// window and stops by itself; every address must be loopback.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: loadgen run|report [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = runCmd(os.Args[2:])
	case "report":
		err = reportCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}
