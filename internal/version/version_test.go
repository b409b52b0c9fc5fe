package version

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	bi := &debug.BuildInfo{
		GoVersion: "go1.26.0",
		Main:      debug.Module{Path: "github.com/errsvc/errsvc", Version: "v0.2.1-0.20261201101500-4aa70fe1c2d3+dirty"},
		Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "4aa70fe1c2d3"},
			{Key: "vcs.modified", Value: "true"},
		},
	}
	for _, tc := range []struct {
		name          string
		ldVer, ldRev  string
		bi            *debug.BuildInfo
		wantV, wantR  string
		wantGoVersion string
	}{
		{"linker stamps win", "v0.2.0", "abc", bi, "v0.2.0", "abc", "go1.26.0"},
		{"go build from a clone", "", "", bi, bi.Main.Version, "4aa70fe1c2d3-dirty", "go1.26.0"},
		{"go run without VCS", "", "", &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "(devel)"}}, "(devel)", Unknown, "go1.26.0"},
		{"no build info", "", "", nil, Unknown, Unknown, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := resolve(tc.ldVer, tc.ldRev, tc.bi)
			if got.Version != tc.wantV || got.Revision != tc.wantR {
				t.Errorf("got %+v, want version %q revision %q", got, tc.wantV, tc.wantR)
			}
			if tc.wantGoVersion != "" && got.GoVersion != tc.wantGoVersion {
				t.Errorf("go version %q", got.GoVersion)
			}
			if got.GoVersion == "" {
				t.Error("no go version")
			}
		})
	}
}

// The test binary itself has build information: Get never answers empty.
func TestGet(t *testing.T) {
	i := Get()
	if i.Version == "" || i.Revision == "" || i.GoVersion == "" {
		t.Errorf("%+v", i)
	}
}
