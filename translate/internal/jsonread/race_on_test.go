//go:build race

package jsonread

// raceEnabled: under the race detector sync.Pool drops items at random,
// so allocation counts say nothing there.
const raceEnabled = true
