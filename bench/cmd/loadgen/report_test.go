package main

import "testing"

// A ratio a hair under its goal never reads as the goal beside "not met".
func TestRatioTextKeepsItsSideOfTheGoal(t *testing.T) {
	for _, c := range []struct {
		v, goal float64
		want    string
	}{
		{0.7999, 0.80, "0.799"}, {0.7951, 0.80, "0.795"}, {0.8038, 0.80, "0.80"}, {0.80, 0.80, "0.80"},
		{0.7949, 0.80, "0.79"}, {1.02, 0.90, "1.02"}, {0.8999, 0.90, "0.899"},
	} {
		if got := ratioText(c.v, c.goal); got != c.want {
			t.Errorf("ratioText(%v, %v) = %q, want %q", c.v, c.goal, got, c.want)
		}
	}
}
