package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// The subset of the Kubernetes objects the checks read.
type (
	meta struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	}
	object struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
		Metadata   meta   `yaml:"metadata"`
	}
	selector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	}
	probe struct {
		GRPC *struct {
			Port    int     `yaml:"port"`
			Service *string `yaml:"service"`
		} `yaml:"grpc"`
		PeriodSeconds    int `yaml:"periodSeconds"`
		FailureThreshold int `yaml:"failureThreshold"`
	}
	container struct {
		Name  string   `yaml:"name"`
		Image string   `yaml:"image"`
		Args  []string `yaml:"args"`
		Env   []struct {
			Name  string `yaml:"name"`
			Value string `yaml:"value"`
		} `yaml:"env"`
		Ports []struct {
			Name          string `yaml:"name"`
			ContainerPort int    `yaml:"containerPort"`
		} `yaml:"ports"`
		StartupProbe   *probe `yaml:"startupProbe"`
		ReadinessProbe *probe `yaml:"readinessProbe"`
		LivenessProbe  *probe `yaml:"livenessProbe"`
		Lifecycle      struct {
			PreStop *struct {
				Sleep *struct {
					Seconds int `yaml:"seconds"`
				} `yaml:"sleep"`
			} `yaml:"preStop"`
		} `yaml:"lifecycle"`
		Resources struct {
			Requests map[string]string `yaml:"requests"`
			Limits   map[string]string `yaml:"limits"`
		} `yaml:"resources"`
		SecurityContext struct {
			RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
			AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
			ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
			Capabilities             struct {
				Drop []string `yaml:"drop"`
			} `yaml:"capabilities"`
		} `yaml:"securityContext"`
	}
	deployment struct {
		object `yaml:",inline"`
		Spec   struct {
			Replicas *int     `yaml:"replicas"`
			Selector selector `yaml:"selector"`
			Template struct {
				Metadata meta `yaml:"metadata"`
				Spec     struct {
					TerminationGracePeriodSeconds int `yaml:"terminationGracePeriodSeconds"`
					SecurityContext               struct {
						RunAsNonRoot *bool `yaml:"runAsNonRoot"`
						RunAsUser    int   `yaml:"runAsUser"`
					} `yaml:"securityContext"`
					Containers []container `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	service struct {
		object `yaml:",inline"`
		Spec   struct {
			ClusterIP string            `yaml:"clusterIP"`
			Selector  map[string]string `yaml:"selector"`
			Ports     []struct {
				Name       string `yaml:"name"`
				Port       int    `yaml:"port"`
				TargetPort any    `yaml:"targetPort"`
			} `yaml:"ports"`
		} `yaml:"spec"`
	}
	hpa struct {
		object `yaml:",inline"`
		Spec   struct {
			ScaleTargetRef struct {
				APIVersion string `yaml:"apiVersion"`
				Kind       string `yaml:"kind"`
				Name       string `yaml:"name"`
			} `yaml:"scaleTargetRef"`
			MinReplicas int `yaml:"minReplicas"`
			MaxReplicas int `yaml:"maxReplicas"`
			Metrics     []struct {
				Type     string `yaml:"type"`
				Resource struct {
					Name   string `yaml:"name"`
					Target struct {
						Type               string `yaml:"type"`
						AverageUtilization int    `yaml:"averageUtilization"`
					} `yaml:"target"`
				} `yaml:"resource"`
			} `yaml:"metrics"`
		} `yaml:"spec"`
	}
	pdb struct {
		object `yaml:",inline"`
		Spec   struct {
			MinAvailable   *int     `yaml:"minAvailable"`
			MaxUnavailable *int     `yaml:"maxUnavailable"`
			Selector       selector `yaml:"selector"`
		} `yaml:"spec"`
	}
)

// decodeAll decodes every YAML document of a manifest file into the subset
// above; what the subset does not name is ignored.
func decodeAll[T any](t *testing.T, file string) []T {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("kubernetes", file))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []T
	for {
		var v T
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		out = append(out, v)
	}
	if len(out) == 0 {
		t.Fatalf("%s holds no document", file)
	}
	return out
}

func one[T any](t *testing.T, file string) T {
	t.Helper()
	all := decodeAll[T](t, file)
	if len(all) != 1 {
		t.Fatalf("%s: %d documents, want 1", file, len(all))
	}
	return all[0]
}

// matches reports whether a label selector selects the labels.
func matches(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// argValue finds --name=value in args.
func argValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

func argDuration(t *testing.T, args []string, name string, def time.Duration) time.Duration {
	t.Helper()
	v, ok := argValue(args, name)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("--%s=%s: %v", name, v, err)
	}
	return d
}

func TestManifests(t *testing.T) {
	dep := one[deployment](t, "deployment.yaml")
	services := decodeAll[service](t, "service.yaml")
	scaler := one[hpa](t, "hpa.yaml")
	budget := one[pdb](t, "pdb.yaml")
	podLabels := dep.Spec.Template.Metadata.Labels

	t.Run("deployment", func(t *testing.T) {
		if dep.APIVersion != "apps/v1" || dep.Kind != "Deployment" {
			t.Errorf("%s %s", dep.APIVersion, dep.Kind)
		}
		// The HPA owns the replica count; a replicas field here would
		// reset it to that number on every apply.
		if dep.Spec.Replicas != nil {
			t.Errorf("replicas %d beside the HPA", *dep.Spec.Replicas)
		}
		if !matches(dep.Spec.Selector.MatchLabels, podLabels) {
			t.Errorf("selector %v does not select the pod labels %v", dep.Spec.Selector.MatchLabels, podLabels)
		}
		pod := dep.Spec.Template.Spec
		if len(pod.Containers) != 1 {
			t.Fatalf("%d containers", len(pod.Containers))
		}
		c := pod.Containers[0]
		for _, want := range []string{"--grpc-addr=0.0.0.0:9090", "--http-addr=0.0.0.0:8080", "--allow-plaintext"} {
			found := false
			for _, a := range c.Args {
				found = found || a == want
			}
			if !found {
				t.Errorf("args %v lack %s", c.Args, want)
			}
		}
		ports := map[string]int{}
		for _, p := range c.Ports {
			ports[p.Name] = p.ContainerPort
		}
		grpcPort, httpPort := ports["grpc"], ports["http"]
		if grpcPort != 9090 || httpPort != 8080 {
			t.Errorf("container ports %v, want grpc 9090 and http 8080", ports)
		}
		if v, _ := argValue(c.Args, "grpc-addr"); !strings.HasSuffix(v, ":9090") {
			t.Errorf("--grpc-addr %q does not listen on the grpc container port", v)
		}
		for name, p := range map[string]*probe{"startup": c.StartupProbe, "readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
			if p == nil || p.GRPC == nil {
				t.Errorf("%s probe is not a grpc probe", name)
				continue
			}
			if p.GRPC.Port != grpcPort {
				t.Errorf("%s probe on port %d, the gRPC container port is %d", name, p.GRPC.Port, grpcPort)
			}
		}
		if s := c.ReadinessProbe.GRPC.Service; s != nil && *s != "" && *s != "errsvc.v1.TranslationService" {
			t.Errorf("readiness probe asks for service %q, which errsvc does not report", *s)
		}

		// Shutdown fits in the grace period, and liveness cannot kill a
		// draining pod.
		if c.Lifecycle.PreStop == nil || c.Lifecycle.PreStop.Sleep == nil || c.Lifecycle.PreStop.Sleep.Seconds <= 0 {
			t.Fatal("no preStop sleep")
		}
		preStop := time.Duration(c.Lifecycle.PreStop.Sleep.Seconds) * time.Second
		drain := argDuration(t, c.Args, "drain-delay", 0) + argDuration(t, c.Args, "shutdown-timeout", 15*time.Second)
		grace := time.Duration(pod.TerminationGracePeriodSeconds) * time.Second
		if grace <= preStop+drain {
			t.Errorf("terminationGracePeriodSeconds %v is not above preStop %v + drain %v", grace, preStop, drain)
		}
		if lp := c.LivenessProbe; time.Duration(lp.PeriodSeconds*lp.FailureThreshold)*time.Second <= drain {
			t.Errorf("liveness gives up after %ds, within the drain (%v)", lp.PeriodSeconds*lp.FailureThreshold, drain)
		}

		// GOMEMLIMIT is a soft limit below the hard one: about 90 %.
		limit, err := quantityBytes(c.Resources.Limits["memory"])
		if err != nil {
			t.Fatalf("limits.memory: %v", err)
		}
		var gomemlimit string
		for _, e := range c.Env {
			if e.Name == "GOMEMLIMIT" {
				gomemlimit = e.Value
			}
		}
		soft, err := goMemLimitBytes(gomemlimit)
		if err != nil {
			t.Fatalf("GOMEMLIMIT %q: %v", gomemlimit, err)
		}
		if r := float64(soft) / float64(limit); r < 0.85 || r > 0.92 {
			t.Errorf("GOMEMLIMIT %s is %.0f %% of limits.memory %s, want about 90 %%", gomemlimit, 100*r, c.Resources.Limits["memory"])
		}

		if c.Resources.Requests["cpu"] == "" || c.Resources.Requests["memory"] == "" || c.Resources.Limits["memory"] == "" {
			t.Errorf("resources %+v: want cpu and memory requests and a memory limit (the HPA needs the cpu request)", c.Resources)
		}
		sc := c.SecurityContext
		if !isTrue(sc.RunAsNonRoot) && !isTrue(pod.SecurityContext.RunAsNonRoot) {
			t.Error("not runAsNonRoot")
		}
		if pod.SecurityContext.RunAsUser == 0 {
			t.Error("runAsUser is root")
		}
		if !isTrue(sc.ReadOnlyRootFilesystem) {
			t.Error("root filesystem is writable")
		}
		if sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
			t.Error("privilege escalation allowed")
		}
		if len(sc.Capabilities.Drop) != 1 || sc.Capabilities.Drop[0] != "ALL" {
			t.Errorf("capabilities drop %v, want [ALL]", sc.Capabilities.Drop)
		}
	})

	t.Run("services", func(t *testing.T) {
		containerPorts := map[string]int{}
		for _, p := range dep.Spec.Template.Spec.Containers[0].Ports {
			containerPorts[p.Name] = p.ContainerPort
		}
		headless := false
		for _, s := range services {
			if s.APIVersion != "v1" || s.Kind != "Service" {
				t.Errorf("%s: %s %s", s.Metadata.Name, s.APIVersion, s.Kind)
			}
			if !matches(s.Spec.Selector, dep.Spec.Template.Metadata.Labels) {
				t.Errorf("%s: selector %v does not select the pods", s.Metadata.Name, s.Spec.Selector)
			}
			headless = headless || s.Spec.ClusterIP == "None"
			for _, p := range s.Spec.Ports {
				switch tp := p.TargetPort.(type) {
				case string:
					if _, ok := containerPorts[tp]; !ok {
						t.Errorf("%s: targetPort %q names no container port", s.Metadata.Name, tp)
					}
				case int:
					found := false
					for _, cp := range containerPorts {
						found = found || cp == tp
					}
					if !found {
						t.Errorf("%s: targetPort %d is no container port", s.Metadata.Name, tp)
					}
				default:
					t.Errorf("%s: targetPort %v", s.Metadata.Name, p.TargetPort)
				}
			}
		}
		if !headless {
			t.Error("no headless Service for client-side round_robin")
		}
	})

	t.Run("hpa", func(t *testing.T) {
		if scaler.APIVersion != "autoscaling/v2" || scaler.Kind != "HorizontalPodAutoscaler" {
			t.Errorf("%s %s", scaler.APIVersion, scaler.Kind)
		}
		ref := scaler.Spec.ScaleTargetRef
		if ref.Kind != "Deployment" || ref.Name != dep.Metadata.Name || ref.APIVersion != dep.APIVersion {
			t.Errorf("scaleTargetRef %+v does not name the Deployment", ref)
		}
		if scaler.Spec.MinReplicas < 2 || scaler.Spec.MaxReplicas <= scaler.Spec.MinReplicas {
			t.Errorf("replicas %d..%d", scaler.Spec.MinReplicas, scaler.Spec.MaxReplicas)
		}
		cpu := false
		for _, m := range scaler.Spec.Metrics {
			cpu = cpu || (m.Type == "Resource" && m.Resource.Name == "cpu" && m.Resource.Target.AverageUtilization > 0)
		}
		if !cpu {
			t.Error("no CPU utilisation metric")
		}
	})

	t.Run("pdb", func(t *testing.T) {
		if budget.APIVersion != "policy/v1" || budget.Kind != "PodDisruptionBudget" {
			t.Errorf("%s %s", budget.APIVersion, budget.Kind)
		}
		// One pod at a time whatever the replica count; a minAvailable
		// would let all but that many go at once at the HPA's maximum.
		if budget.Spec.MinAvailable != nil || budget.Spec.MaxUnavailable == nil || *budget.Spec.MaxUnavailable != 1 {
			t.Errorf("PDB minAvailable %v maxUnavailable %v, want only maxUnavailable: 1", budget.Spec.MinAvailable, budget.Spec.MaxUnavailable)
		}
		if !matches(budget.Spec.Selector.MatchLabels, podLabels) {
			t.Errorf("selector %v does not select the Deployment's pods %v", budget.Spec.Selector.MatchLabels, podLabels)
		}
		// A PDB that the smallest fleet cannot satisfy blocks node drains.
		if scaler.Spec.MinReplicas-*budget.Spec.MaxUnavailable < 1 {
			t.Errorf("with %d replicas a disruption of %d leaves none serving", scaler.Spec.MinReplicas, *budget.Spec.MaxUnavailable)
		}
	})

	t.Run("kustomizations list every manifest", func(t *testing.T) {
		dirs := []string{"kubernetes"}
		comps, _ := filepath.Glob(filepath.Join("kubernetes", "components", "*"))
		dirs = append(dirs, comps...)
		for _, dir := range dirs {
			var k struct {
				Kind      string   `yaml:"kind"`
				Resources []string `yaml:"resources"`
			}
			data, err := os.ReadFile(filepath.Join(dir, "kustomization.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(data, &k); err != nil {
				t.Fatal(err)
			}
			if want := map[bool]string{true: "Kustomization", false: "Component"}[dir == "kubernetes"]; k.Kind != want {
				t.Errorf("%s: kind %s, want %s", dir, k.Kind, want)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
			for _, f := range files {
				name := filepath.Base(f)
				if name != "kustomization.yaml" && !slices.Contains(k.Resources, name) {
					t.Errorf("%s/kustomization.yaml lacks %s", dir, name)
				}
			}
			for _, r := range k.Resources {
				if _, err := os.Stat(filepath.Join(dir, r)); err != nil {
					t.Errorf("%s/kustomization.yaml: %v", dir, err)
				}
			}
		}
	})
}

// quantityBytes reads a Kubernetes memory quantity with a binary suffix.
func quantityBytes(q string) (int64, error) {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}} {
		if v, ok := strings.CutSuffix(q, u.suffix); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			return n * u.mult, err
		}
	}
	return strconv.ParseInt(q, 10, 64)
}

// goMemLimitBytes reads a GOMEMLIMIT value as the Go runtime does (a
// number with an optional B, KiB, MiB or GiB suffix).
func goMemLimitBytes(v string) (int64, error) {
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"B", 1}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			x, err := strconv.ParseInt(n, 10, 64)
			return x * u.mult, err
		}
	}
	return strconv.ParseInt(v, 10, 64)
}

func isTrue(b *bool) bool { return b != nil && *b }
