package main

import (
	"strings"
	"testing"
)

// Every source bench/footprint.sh names has a benchmark request that
// translates, back to back and after the writes.
func TestEverySourceTranslates(t *testing.T) {
	for source := range sourceKeys {
		for _, evict := range []bool{false, true} {
			if err := run(source, 2, evict); err != nil {
				t.Errorf("run(%s, evict %v): %v", source, evict, err)
			}
		}
	}
}

func TestUnknownSourceIsNamed(t *testing.T) {
	err := run("openai", 1, false)
	if err == nil || !strings.Contains(err.Error(), `-source "openai"`) {
		t.Fatalf("run(openai) = %v, want an error naming -source", err)
	}
}
