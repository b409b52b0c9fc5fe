package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// CheckGenerated fails t when the committed file at rel (from the module
// root) differs from want; with update it rewrites the file first. The
// generated docs' drift tests share it.
func CheckGenerated(t testing.TB, rel, want string, update bool, howToUpdate string) {
	t.Helper()
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, rel)
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is out of date: %s", rel, howToUpdate)
	}
}
