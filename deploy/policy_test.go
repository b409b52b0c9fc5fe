package deploy

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/errsvc/errsvc/policy"
)

// TestExamplePolicyFiles: each example policy passes `errsvc policy check` on
// its own, and the folder (which Compose and the docs mount) as one.
func TestExamplePolicyFiles(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("policy", "*.yaml"))
	if len(files) < 3 {
		t.Fatalf("only %d example policies", len(files))
	}
	for _, f := range append(files, "policy") {
		p, err := policy.Load(f)
		if err != nil {
			t.Errorf("%s:\n%v", f, err)
			continue
		}
		if len(p.Rules()) == 0 {
			t.Errorf("%s: no rules", f)
		}
	}
}

// position is the 1-based line and column of the first occurrence of s in
// text, plus offset bytes.
func position(t *testing.T, text, s string, offset int) string {
	t.Helper()
	i := strings.Index(text, s)
	if i < 0 {
		t.Fatalf("%q not found", s)
	}
	i += offset
	line := strings.Count(text[:i], "\n") + 1
	col := i - strings.LastIndexByte(text[:i], '\n')
	return fmt.Sprintf("%d:%d", line, col)
}

// TestExamplePolicyFilesBroken: copies of the examples with one mistake each
// are refused with the file, line and column, and the nearest valid key or
// term.
func TestExamplePolicyFilesBroken(t *testing.T) {
	for _, tc := range []struct {
		name, file, old, new string
		// at is the text the error points at in the broken copy, and
		// want the rest of the error after "FILE:LINE:COL: ".
		at   string
		want string
	}{
		{
			name: "misspelt key", file: "10-self-hosted-fleet.yaml",
			old: "wait_secs: 30", new: "wait_sec: 30", at: "wait_sec: 30",
			want: `/providers/0/rules/1/wait_sec: unknown key "wait_sec" (did you mean "wait_secs"?)`,
		},
		{
			name: "misspelt top-level key", file: "20-internal-service.yaml",
			old: "\ndecisions:", new: "\ndecisons:", at: "decisons:",
			want: `/decisons: unknown key "decisons" (did you mean "decisions"?)`,
		},
		{
			name: "wrong class", file: "10-self-hosted-fleet.yaml",
			old: "class: context_overflow", new: "class: context_overflw", at: "context_overflw",
			want: `/providers/0/rules/0/class: "context_overflw" is not one of these (did you mean "context_overflow"?)`,
		},
		{
			name: "bad regex", file: "30-provider-overrides.yaml",
			old: `"itk_[A-Za-z0-9]{32}"`, new: `"itk_[A-Za-z0-9{32}"`, at: `"itk_[A-Za-z0-9{32}"`,
			want: `/secrets/redact/0/regex: not an RE2 regular expression`,
		},
		{
			name: "duplicate rule name", file: "20-internal-service.yaml",
			old: "name: repohost_write_pacing", new: "name: never_retry_delete_repository", at: "service: repohost",
			want: `/decisions/1: rule name "never_retry_delete_repository" is also used at `,
		},
		{
			name: "unknown limit kind", file: "10-self-hosted-fleet.yaml",
			old: "kind: concurrency", new: "kind: concurency", at: "concurency",
			want: `/providers/1/rules/0/limit/kind: "concurency" is not one of these (did you mean "concurrency"?)`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("policy", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			src := string(data)
			if !strings.Contains(src, tc.old) {
				t.Fatalf("%s lacks %q", tc.file, tc.old)
			}
			broken := strings.Replace(src, tc.old, tc.new, 1)
			path := filepath.Join(t.TempDir(), tc.file)
			if err := os.WriteFile(path, []byte(broken), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err = policy.Load(path)
			if err == nil {
				t.Fatal("loaded")
			}
			at := position(t, broken, tc.at, 0)
			if tc.name == "duplicate rule name" {
				// The decision's own position: its first key.
				at = position(t, broken, "name: never_retry_delete_repository\n    service", 0)
			}
			want := path + ":" + at + ": " + tc.want
			if !strings.Contains(err.Error(), want) {
				t.Errorf("got  %v\nwant %s", err, want)
			}
		})
	}
}

// policyMount is where the manifests mount the policy and what
// ERRSVC_POLICY names: the folder, so every file the ConfigMap or the
// volume holds is read, and a ConfigMap update reaches the pod.
const policyMount = "/etc/errsvc/policy"

// TestPolicyComponent: the Kubernetes component mounts a ConfigMap whose
// every key is a valid policy file at policyMount and points ERRSVC_POLICY
// at it; built with kustomize when kubectl is here.
func TestPolicyComponent(t *testing.T) {
	dir := filepath.Join("kubernetes", "components", "policy")
	var cm struct {
		Kind     string            `yaml:"kind"`
		Metadata meta              `yaml:"metadata"`
		Data     map[string]string `yaml:"data"`
	}
	data, err := os.ReadFile(filepath.Join(dir, "configmap.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Kind != "ConfigMap" || len(cm.Data) == 0 {
		t.Fatalf("configmap.yaml: kind %s, %d keys", cm.Kind, len(cm.Data))
	}
	for key, text := range cm.Data {
		switch strings.ToLower(filepath.Ext(key)) {
		case ".yaml", ".yml", ".json":
		default:
			t.Errorf("key %s: a policy folder reads only .yaml, .yml and .json files", key)
		}
		if _, err := policy.Parse(key, []byte(text)); err != nil {
			t.Errorf("configmap.yaml key %s:\n%v", key, err)
		}
	}

	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl not found: the component is not built")
	}
	// An overlay beside the manifests' copy, as an operator writes one.
	overlay := t.TempDir()
	abs, _ := filepath.Abs("kubernetes")
	rel, err := filepath.Rel(overlay, abs)
	if err != nil {
		t.Fatal(err)
	}
	k := fmt.Sprintf("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - %s\ncomponents:\n  - %s\n",
		rel, filepath.Join(rel, "components", "policy"))
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(k), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(kubectl, "kustomize", overlay).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl kustomize: %v\n%s", err, out)
	}
	type volume struct {
		Name      string `yaml:"name"`
		ConfigMap *struct {
			Name string `yaml:"name"`
		} `yaml:"configMap"`
	}
	var dep struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Name string `yaml:"name"`
						Env  []struct {
							Name  string `yaml:"name"`
							Value string `yaml:"value"`
						} `yaml:"env"`
						VolumeMounts []struct {
							Name      string `yaml:"name"`
							MountPath string `yaml:"mountPath"`
							SubPath   string `yaml:"subPath"`
							ReadOnly  bool   `yaml:"readOnly"`
						} `yaml:"volumeMounts"`
					} `yaml:"containers"`
					Volumes []volume `yaml:"volumes"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(out))
	for {
		var node yaml.Node
		if err := dec.Decode(&node); err != nil {
			break
		}
		var probe struct {
			Kind string `yaml:"kind"`
		}
		_ = node.Decode(&probe)
		if probe.Kind == "Deployment" {
			if err := node.Decode(&dep); err != nil {
				t.Fatal(err)
			}
		}
	}
	if dep.Kind != "Deployment" || len(dep.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("no one-container Deployment in the build:\n%s", out)
	}
	c := dep.Spec.Template.Spec.Containers[0]
	env := ""
	for _, e := range c.Env {
		if e.Name == "ERRSVC_POLICY" {
			env = e.Value
		}
	}
	if env != policyMount {
		t.Errorf("ERRSVC_POLICY %q, want %s", env, policyMount)
	}
	mounted := ""
	for _, m := range c.VolumeMounts {
		if m.MountPath == policyMount {
			mounted = m.Name
			if m.SubPath != "" || !m.ReadOnly {
				t.Errorf("mount %+v: want the whole folder (a subPath never sees an update), read-only", m)
			}
		}
	}
	found := false
	for _, v := range dep.Spec.Template.Spec.Volumes {
		if v.Name == mounted && v.ConfigMap != nil && v.ConfigMap.Name == cm.Metadata.Name {
			found = true
		}
	}
	if mounted == "" || !found {
		t.Errorf("no volume from ConfigMap %s mounted at %s", cm.Metadata.Name, policyMount)
	}
}

// TestComposePolicy: the Compose override mounts the example policies
// read-only at policyMount and points ERRSVC_POLICY at them; compose.yaml
// itself stays without a policy.
func TestComposePolicy(t *testing.T) {
	type composeFile struct {
		Services map[string]struct {
			Environment map[string]string `yaml:"environment"`
			Volumes     []struct {
				Type     string `yaml:"type"`
				Source   string `yaml:"source"`
				Target   string `yaml:"target"`
				ReadOnly bool   `yaml:"read_only"`
			} `yaml:"volumes"`
		} `yaml:"services"`
	}
	read := func(name string) composeFile {
		var f composeFile
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := yaml.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return f
	}
	base, over := read("compose.yaml"), read("compose.policy.yaml")
	if _, ok := base.Services["errsvc"]; !ok {
		t.Fatal("compose.yaml has no errsvc service")
	}
	if base.Services["errsvc"].Environment["ERRSVC_POLICY"] != "" {
		t.Error("compose.yaml sets a policy; the default stays without one")
	}
	s, ok := over.Services["errsvc"]
	if !ok || len(over.Services) != 1 {
		t.Fatalf("compose.policy.yaml: services %v, want errsvc only", over.Services)
	}
	if s.Environment["ERRSVC_POLICY"] != policyMount {
		t.Errorf("ERRSVC_POLICY %q, want %s", s.Environment["ERRSVC_POLICY"], policyMount)
	}
	found := false
	for _, v := range s.Volumes {
		if v.Target != policyMount {
			continue
		}
		found = true
		if v.Type != "bind" || !v.ReadOnly {
			t.Errorf("volume %+v: want a read-only bind mount", v)
		}
		// Relative to the project directory, deploy/.
		if _, err := policy.Load(filepath.FromSlash(v.Source)); err != nil {
			t.Errorf("the mounted %s:\n%v", v.Source, err)
		}
	}
	if !found {
		t.Errorf("nothing mounted at %s", policyMount)
	}
}
