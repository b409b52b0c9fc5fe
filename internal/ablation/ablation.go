//go:build !errsvc_ablate_growth

// Package ablation says whether this build carries what issue 42 calls
// growth: the second secrets layer (translate/sanitize's contextPass) and
// the limit facet (the classifier's reading of it in provider answers, and
// the facet any answer carries: translate's settleLimit). Every build does
// but one: bench/run.sh builds a second benchserver and the core
// benchmarks with the errsvc_ablate_growth tag, so that one run measures
// what the growth costs a caller against the same code without it
// (docs/BENCHMARKS-DETAIL.md, "Growth"). The constant lets the compiler
// drop the switch from every other build.
package ablation

// Growth is true: the second secrets layer and the limit facet run.
const Growth = true
