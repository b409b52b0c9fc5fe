//go:build errsvc_ablate_growth

package ablation

import "os"

// Growth is false in the ablation build only: the second secrets layer and
// the limit facet are off, so secrets only the second layer finds reach
// the output. Such a binary is for bench/run.sh and bench/ab.sh alone.
const Growth = false

// A binary built so refuses to start unless the benchmark that built it
// says it knows (ERRSVC_ABLATION=growth-off), so no one serves it by mistake.
func init() {
	if os.Getenv("ERRSVC_ABLATION") != "growth-off" {
		panic("built with the errsvc_ablate_growth tag: the second secrets layer and the limit facet are off; " +
			"only bench/run.sh's ablation runs this (set ERRSVC_ABLATION=growth-off)")
	}
}
