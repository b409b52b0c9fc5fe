package deploy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// The Kubernetes versions the manifests support: the oldest (the preStop
// sleep action is on by default from 1.30) and the newest whose schemas
// the pinned kubernetes-validate ships. Raise both together with
// kubernetesValidate.
const (
	oldestKubernetes   = "1.30.0"
	newestKubernetes   = "1.37.0"
	kubernetesValidate = "kubernetes-validate==1.37.0"
	// The Prometheus Operator whose CRD schemas check the ServiceMonitor
	// and PrometheusRule components, from the Go module proxy.
	prometheusOperator = "github.com/prometheus-operator/prometheus-operator@v0.85.0"
)

// manifest is one YAML document of deploy/kubernetes.
type manifest struct {
	file       string
	apiVersion string
	kind       string
	doc        map[string]any
}

func manifests(t *testing.T) []manifest {
	t.Helper()
	var out []manifest
	err := filepath.WalkDir("kubernetes", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var doc map[string]any
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			av, _ := doc["apiVersion"].(string)
			kind, _ := doc["kind"].(string)
			out = append(out, manifest{file: path, apiVersion: av, kind: kind, doc: doc})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// needTool fails under CI (make test) and skips elsewhere when a tool the
// check installs from cannot be found.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s not found: the check installs its validator with it (see README, Requirements)", name)
		}
		t.Skipf("%s not found; make test (CI=true) fails here", name)
	}
	return p
}

// validatorPython returns a Python with kubernetes-validate, installing it
// from PyPI into a virtual environment in the user cache on first use.
// The schemas ship in the wheel, so validation itself is offline.
func validatorPython(t *testing.T) string {
	t.Helper()
	python3 := needTool(t, "python3")
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "errsvc", strings.ReplaceAll(kubernetesValidate, "==", "-"))
	py := filepath.Join(dir, "bin", "python")
	if err := exec.Command(py, "-c", "import kubernetes_validate").Run(); err == nil {
		return py
	}
	// Built aside and renamed into place, so a concurrent run never sees a
	// half-made environment (`python -m` works from a moved venv).
	tmp := dir + fmt.Sprintf(".tmp%d", os.Getpid())
	_ = os.RemoveAll(tmp)
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{python3, "-m", "venv", tmp},
		{filepath.Join(tmp, "bin", "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", kubernetesValidate},
	} {
		if out, err := exec.Command(args[0], args[1:]...).CombinedOutput(); err != nil {
			_ = os.RemoveAll(tmp)
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.RemoveAll(tmp) // another run won the race
	}
	return py
}

// isKustomize tells kustomize's own files, which are no Kubernetes objects.
func isKustomize(m manifest) bool {
	return strings.HasPrefix(m.apiVersion, "kustomize.config.k8s.io/")
}

// operatorCRDs are the Prometheus Operator kinds the optional components
// use, with the file of their CRD in the operator's module.
var operatorCRDs = map[string]string{
	"ServiceMonitor": "monitoring.coreos.com_servicemonitors.yaml",
	"PrometheusRule": "monitoring.coreos.com_prometheusrules.yaml",
}

func isOperatorKind(m manifest) bool {
	return m.apiVersion == "monitoring.coreos.com/v1" && operatorCRDs[m.kind] != ""
}

// TestManifestSchemas validates every Kubernetes object in deploy/kubernetes
// strictly (no unknown field anywhere) against the OpenAPI schemas of the
// oldest and the newest Kubernetes supported, and refuses a manifest of a
// kind it has no schema for.
func TestManifestSchemas(t *testing.T) {
	py := validatorPython(t)
	all := manifests(t)
	files := map[string]bool{}
	for _, m := range all {
		switch {
		case isKustomize(m), isOperatorKind(m): // see TestOperatorSchemas
		case strings.Contains(m.apiVersion, "."):
			if !strings.HasSuffix(strings.SplitN(m.apiVersion, "/", 2)[0], ".k8s.io") {
				t.Errorf("%s: %s %s has no schema to check it against", m.file, m.apiVersion, m.kind)
			}
			files[m.file] = true
		default:
			files[m.file] = true
		}
	}
	if len(files) < 5 {
		t.Fatalf("only %d manifest files found", len(files))
	}
	var args []string
	for f := range files {
		args = append(args, f)
	}
	for _, v := range []string{oldestKubernetes, newestKubernetes} {
		t.Run(v, func(t *testing.T) {
			out, err := exec.Command(py, append([]string{"-m", "kubernetes_validate", "--strict", "-k", v}, args...)...).CombinedOutput()
			if err != nil || bytes.Contains(out, []byte("WARN")) || bytes.Contains(out, []byte("ERROR")) {
				t.Errorf("kubernetes-validate --strict -k %s: %v\n%s", v, err, out)
			}
			if n := bytes.Count(out, []byte(" passed ")); n < len(files) {
				t.Errorf("%d objects passed for %d files:\n%s", n, len(files), out)
			}
		})
	}

	// The check can fail: a misspelt field and a wrong type are refused.
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	data, _ := os.ReadFile(filepath.Join("kubernetes", "pdb.yaml"))
	planted := strings.Replace(string(data), "maxUnavailable: 1", "maxUnavailable: 1\n  maxUnavialable: 1", 1)
	if err := os.WriteFile(bad, []byte(planted), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(py, "-m", "kubernetes_validate", "--strict", "-k", newestKubernetes, bad).CombinedOutput(); err == nil {
		t.Errorf("a misspelt field passed strict validation:\n%s", out)
	}
}

// TestOperatorSchemas validates the optional ServiceMonitor and
// PrometheusRule against the CRD schemas the Prometheus Operator publishes
// (its Go module carries the CRDs), made strict as kubeconform's
// openapi2jsonschema --strict does: every object that lists its properties
// allows no other.
func TestOperatorSchemas(t *testing.T) {
	goTool := needTool(t, "go")
	out, err := exec.Command(goTool, "mod", "download", "-json", prometheusOperator).Output()
	if err != nil {
		t.Fatalf("go mod download %s: %v", prometheusOperator, err)
	}
	var mod struct{ Dir string }
	if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
		t.Fatalf("go mod download: %s", out)
	}
	schemas := map[string]*jsonschema.Schema{}
	for kind, file := range operatorCRDs {
		schemas[kind] = crdSchema(t, filepath.Join(mod.Dir, "example", "prometheus-operator-crd", file))
	}

	found := map[string]int{}
	for _, m := range manifests(t) {
		if !isOperatorKind(m) {
			if strings.HasPrefix(m.apiVersion, "monitoring.coreos.com/") {
				t.Errorf("%s: %s %s has no schema to check it against", m.file, m.apiVersion, m.kind)
			}
			continue
		}
		found[m.kind]++
		sch := schemas[m.kind]
		if err := sch.Validate(jsonRoundTrip(t, m.doc)); err != nil {
			t.Errorf("%s: %v", m.file, err)
		}
		// The check can fail: a misspelt field is refused.
		m.doc["spec"].(map[string]any)["endpointz"] = []any{}
		if err := sch.Validate(jsonRoundTrip(t, m.doc)); err == nil {
			t.Errorf("%s: a misspelt field passed", m.file)
		}
	}
	for kind := range operatorCRDs {
		if found[kind] != 1 {
			t.Errorf("%d %s manifests, want 1", found[kind], kind)
		}
	}
}

func crdSchema(t *testing.T, file string) *jsonschema.Schema {
	t.Helper()
	crdData, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Name   string `yaml:"name"`
				Schema struct {
					OpenAPIV3Schema map[string]any `yaml:"openAPIV3Schema"`
				} `yaml:"schema"`
			} `yaml:"versions"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(crdData, &crd); err != nil {
		t.Fatal(err)
	}
	var schema map[string]any
	for _, v := range crd.Spec.Versions {
		if v.Name == "v1" {
			schema = v.Schema.OpenAPIV3Schema
		}
	}
	if schema == nil {
		t.Fatalf("%s: no v1 schema", file)
	}
	strict(schema)
	c := jsonschema.NewCompiler()
	name := filepath.Base(file) + ".json"
	if err := c.AddResource(name, jsonRoundTrip(t, schema)); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// strict forbids unlisted properties in every object schema that lists
// properties and does not ask to keep unknown fields.
func strict(s map[string]any) {
	if props, ok := s["properties"].(map[string]any); ok {
		if _, set := s["additionalProperties"]; !set && s["x-kubernetes-preserve-unknown-fields"] != true {
			s["additionalProperties"] = false
		}
		for _, p := range props {
			if ps, ok := p.(map[string]any); ok {
				strict(ps)
			}
		}
	}
	for _, key := range []string{"items", "additionalProperties"} {
		if sub, ok := s[key].(map[string]any); ok {
			strict(sub)
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf"} {
		if subs, ok := s[key].([]any); ok {
			for _, sub := range subs {
				if ss, ok := sub.(map[string]any); ok {
					strict(ss)
				}
			}
		}
	}
}

// jsonRoundTrip turns YAML-decoded values into what encoding/json yields,
// the shape the validator expects.
func jsonRoundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return out
}
