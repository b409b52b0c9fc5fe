package deploy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// One release version, written once in VERSION: the image tag of the
// Kubernetes manifest and every SDK's version are the same, so a release
// cannot ship a Python 0.2.0 beside a TypeScript 0.1.9.
func TestVersionsAgreeWithTheVersionFile(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join("..", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := strings.TrimSpace(read("VERSION"))
	if !regexp.MustCompile(`^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$`).MatchString(want) {
		t.Fatalf("VERSION %q is not a semantic version without a leading v", want)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal([]byte(read("clients/typescript/package.json")), &pkg); err != nil {
		t.Fatal(err)
	}
	found := map[string]string{
		"clients/typescript/package.json":   pkg.Version,
		"clients/python/pyproject.toml":     firstMatch(read("clients/python/pyproject.toml"), `(?m)^version = "([^"]+)"`),
		"clients/java/pom.xml":              firstMatch(read("clients/java/pom.xml"), `<artifactId>errsvc-client</artifactId>\s*(?:<!--[^>]*-->\s*)?<version>([^<]+)</version>`),
		"deploy/kubernetes/deployment.yaml": firstMatch(read("deploy/kubernetes/deployment.yaml"), `image: errsvc:(\S+)`),
	}
	for file, got := range found {
		if got != want {
			t.Errorf("%s says %q, VERSION says %q", file, got, want)
		}
	}
}

func firstMatch(s, re string) string {
	m := regexp.MustCompile(re).FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	return m[1]
}
