// Package version names the build of errsvc: the release version and VCS
// revision stamped by the linker, or, for `go run` and `go install`, what
// the Go toolchain recorded in the binary's build information.
//
// Stamp a release build with
//
//	go build -ldflags "-X github.com/errsvc/errsvc/internal/version.version=v0.2.0 \
//	  -X github.com/errsvc/errsvc/internal/version.revision=$(git rev-parse HEAD)" ./cmd/errsvc
//
// as the Makefile's build target and the Dockerfile do.
package version

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// Set by the linker (-X); empty in a plain build.
var (
	version  string
	revision string
)

// Unknown is the version or revision of a build that recorded neither.
const Unknown = "unknown"

// Info is the build of the running binary.
type Info struct {
	// Version is a semantic version with a leading "v" (v0.2.0,
	// v0.2.1-0.20261201101500-4aa70fe1c2d3 for a build between releases),
	// "(devel)" for a build from a source tree without a stamp, or Unknown.
	Version string
	// Revision is the VCS commit the binary was built from, with a
	// "-dirty" suffix when the tree had uncommitted changes, or Unknown.
	Revision string
	// GoVersion is the toolchain that built the binary (go1.26.0).
	GoVersion string
}

// Get returns the build of the running binary.
var Get = sync.OnceValue(func() Info {
	bi, _ := debug.ReadBuildInfo()
	return resolve(version, revision, bi)
})

// resolve prefers the linker's stamps, then the build information: the main
// module's version (set by `go install module@version`, or derived from the
// VCS tag by `go build` since Go 1.24) and the vcs.revision setting.
func resolve(ldVersion, ldRevision string, bi *debug.BuildInfo) Info {
	info := Info{Version: ldVersion, Revision: ldRevision, GoVersion: runtime.Version()}
	if bi != nil {
		if info.Version == "" && bi.Main.Version != "" {
			info.Version = bi.Main.Version
		}
		var rev string
		var dirty bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if info.Revision == "" && rev != "" {
			info.Revision = rev
			if dirty {
				info.Revision += "-dirty"
			}
		}
		if bi.GoVersion != "" {
			info.GoVersion = bi.GoVersion
		}
	}
	if info.Version == "" {
		info.Version = Unknown
	}
	if info.Revision == "" {
		info.Revision = Unknown
	}
	return info
}

// String is the one-line form `errsvc --version` prints.
func (i Info) String() string {
	return "errsvc " + i.Version + " (revision " + i.Revision + ", " + i.GoVersion + ")"
}
