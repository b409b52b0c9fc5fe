//go:build race

package translate

const raceEnabled = true
