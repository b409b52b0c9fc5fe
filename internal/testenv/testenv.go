// Package testenv decides what a test does when something it needs (a
// server, ../shared, a tool) is missing: under CI (CI=true) or with
// ERRSVC_REQUIRE_ALL set it fails, so `make test` never passes by skipping;
// elsewhere it skips and says what was missing.
package testenv

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/errsvc/errsvc/internal/golden"
)

// Strict reports whether missing prerequisites must fail the test.
func Strict() bool {
	return os.Getenv("CI") == "true" || os.Getenv("ERRSVC_REQUIRE_ALL") != ""
}

// Missing fails (strict) or skips (otherwise) the test, naming what is missing.
func Missing(t testing.TB, what string) {
	t.Helper()
	if Strict() {
		t.Fatalf("%s: required under CI=true (or ERRSVC_REQUIRE_ALL), so this is a failure, not a skip", what)
	}
	t.Skipf("SKIP (not CI): %s", what)
}

// SharedDir is the contracts folder: $ERRSVC_SHARED_DIR, else ../shared
// beside the module root (where CI and every worktree place it).
func SharedDir() (string, error) {
	if d := os.Getenv("ERRSVC_SHARED_DIR"); d != "" {
		return checkShared(d)
	}
	root, err := golden.ModuleRoot()
	if err != nil {
		return "", err
	}
	return checkShared(filepath.Join(root, "..", "shared"))
}

func checkShared(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(abs, "reference", "README.md")); err != nil {
		return "", fmt.Errorf("no contracts folder at %s (set ERRSVC_SHARED_DIR): %w", abs, errors.Unwrap(err))
	}
	return abs, nil
}

// Shared returns SharedDir or, when it is missing, fails or skips the test.
func Shared(t testing.TB) string {
	t.Helper()
	dir, err := SharedDir()
	if err != nil {
		Missing(t, err.Error())
	}
	return dir
}
