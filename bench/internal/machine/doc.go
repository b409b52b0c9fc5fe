// Package machine holds BenchmarkMachine, the reference workload of
// bench/run.sh: standard-library work only (JSON decoding and encoding,
// a regular expression, sorting) on fixed data, so that its time moves
// with the machine and the Go release and never with errsvc's code. The
// report compares it with the run it replaces: the absolute goals (µs per
// translation, MB/s) move with the machine, the ratios do not.
package machine
