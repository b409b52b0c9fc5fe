package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log/slog"
	"math/big"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/errsvc/errsvc/server"
	"go.yaml.in/yaml/v3"
)

func TestOperationalFlags(t *testing.T) {
	opts, err := parseServeFlags([]string{
		"--max-concurrent-requests", "7", "--max-concurrent-streams", "3", "--stream-rate", "2.5", "--stream-burst", "4",
		"--drain-delay", "5s", "--shutdown-timeout", "20s", "--max-connection-age", "5m", "--log-level", "warn",
	}, os.Getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if opts.MaxConcurrentRequests != 7 || opts.MaxConcurrentStreams != 3 || opts.StreamRate != 2.5 || opts.StreamBurst != 4 ||
		opts.DrainDelay != 5*time.Second || opts.ShutdownTimeout != 20*time.Second || opts.MaxConnectionAge != 5*time.Minute {
		t.Errorf("limits: %+v", opts)
	}
	if opts.Logger == nil || opts.Logger.Enabled(t.Context(), slog.LevelInfo) || !opts.Logger.Enabled(t.Context(), slog.LevelWarn) {
		t.Error("--log-level warn not applied")
	}
	if opts.TLS != nil {
		t.Error("TLS without --tls-cert")
	}

	defaults, err := parseServeFlags(nil, os.Getenv, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if defaults.MaxConcurrentRequests != server.DefaultMaxConcurrentRequests || defaults.StreamRate != server.DefaultStreamRate ||
		defaults.MaxRequestBytes != server.DefaultMaxRequestBytes || defaults.ShutdownTimeout != server.DefaultShutdownTimeout {
		t.Errorf("defaults: %+v", defaults)
	}

	var help strings.Builder
	_, _ = parseServeFlags([]string{"-h"}, os.Getenv, &help)
	for _, flag := range []string{"max-request-bytes", "max-batch-items", "max-concurrent-requests", "max-concurrent-streams",
		"stream-rate", "stream-burst", "tls-cert", "tls-key", "tls-client-ca", "drain-delay", "shutdown-timeout", "log-level", "allow-plaintext"} {
		if !strings.Contains(help.String(), "-"+flag) {
			t.Errorf("--help lacks --%s", flag)
		}
	}
}

func TestTLSFlags(t *testing.T) {
	dir := t.TempDir()
	cert, key := selfSigned(t, dir)
	opts, err := parseServeFlags([]string{"--tls-cert", cert, "--tls-key", key}, os.Getenv, io.Discard)
	if err != nil || opts.TLS == nil || opts.TLS.ClientAuth != tls.NoClientCert {
		t.Fatalf("TLS: %v %v", opts.TLS, err)
	}
	opts, err = parseServeFlags([]string{"--tls-cert", cert, "--tls-key", key, "--tls-client-ca", cert}, os.Getenv, io.Discard)
	if err != nil || opts.TLS == nil || opts.TLS.ClientAuth != tls.RequireAndVerifyClientCert {
		t.Fatalf("mutual TLS: %v %v", opts.TLS, err)
	}
	for _, args := range [][]string{
		{"--tls-client-ca", cert},
		{"--tls-cert", cert},
		{"--tls-key", key},
		{"--tls-cert", filepath.Join(dir, "missing.pem"), "--tls-key", key},
		{"--tls-cert", cert, "--tls-key", key, "--tls-client-ca", filepath.Join(dir, "missing.pem")},
	} {
		if _, err := parseServeFlags(args, os.Getenv, io.Discard); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

// selfSigned writes a throwaway self-signed certificate and key.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "errsvc"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// TestDeploymentArgs parses the container args of the Kubernetes Deployment
// with the real flag set, so a renamed or mistyped flag fails here rather
// than in a crash-looping pod.
func TestDeploymentArgs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "deploy", "kubernetes", "deployment.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var dep struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []struct {
						Args []string `yaml:"args"`
					} `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal(data, &dep); err != nil {
		t.Fatal(err)
	}
	if len(dep.Spec.Template.Spec.Containers) == 0 {
		t.Fatal("no container")
	}
	var errOut strings.Builder
	opts, err := parseServeFlags(dep.Spec.Template.Spec.Containers[0].Args, func(string) string { return "" }, &errOut)
	if err != nil {
		t.Fatalf("deployment args rejected: %v\n%s", err, errOut.String())
	}
	if opts.GRPCAddr != "0.0.0.0:9090" || opts.HTTPAddr != "0.0.0.0:8080" {
		t.Errorf("addresses %s %s", opts.GRPCAddr, opts.HTTPAddr)
	}
}

// Every hostile-input bound has a flag and an ERRSVC_ variable; the flag
// beats the variable, which beats the default.
func TestHostileInputFlags(t *testing.T) {
	env := map[string]string{"ERRSVC_RECEIVE_TIMEOUT": "3s", "ERRSVC_MAX_HEALTH_WATCHES": "7", "ERRSVC_DRAIN_DELAY": "4s"}
	opts, err := parseServeFlags([]string{"--max-health-watches", "9", "--write-timeout", "2s", "--stream-idle-timeout", "1m",
		"--max-streams-per-connection", "5", "--max-header-bytes", "1024", "--max-receive-buffer-bytes", "1048576",
		"--max-connection-idle", "30s", "--keepalive-min-time", "20s"}, func(k string) string { return env[k] }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if opts.ReceiveTimeout != 3*time.Second || opts.MaxHealthWatches != 9 || opts.DrainDelay != 4*time.Second ||
		opts.WriteTimeout != 2*time.Second || opts.StreamIdleTimeout != time.Minute || opts.MaxStreamsPerConnection != 5 ||
		opts.MaxHeaderBytes != 1024 || opts.MaxReceiveBufferBytes != 1<<20 || opts.MaxConnectionIdle != 30*time.Second ||
		opts.KeepaliveMinTime != 20*time.Second {
		t.Errorf("flags and env: %+v", opts)
	}
	defaults, err := parseServeFlags(nil, func(string) string { return "" }, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if defaults.DrainDelay != server.DefaultDrainDelay || defaults.ReceiveTimeout != server.DefaultReceiveTimeout ||
		defaults.MaxReceiveBufferBytes != server.DefaultMaxReceiveBufferBytes {
		t.Errorf("defaults: %+v", defaults)
	}
	if _, err := parseServeFlags(nil, func(k string) string { return map[string]string{"ERRSVC_WRITE_TIMEOUT": "soon"}[k] }, io.Discard); err == nil {
		t.Error("a malformed ERRSVC_WRITE_TIMEOUT accepted")
	}
	var help strings.Builder
	_, _ = parseServeFlags([]string{"-h"}, func(string) string { return "" }, &help)
	// Every flag --help lists names its variable, and the variable sets it.
	flags := regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`).FindAllStringSubmatch(help.String(), -1)
	if len(flags) < 25 {
		t.Fatalf("--help lists %d flags", len(flags))
	}
	for _, m := range flags {
		name, key := m[1], envKey(m[1])
		if !strings.Contains(help.String(), "(env "+key) {
			t.Errorf("--help gives --%s no variable (%s)", name, key)
		}
	}
	for key, want := range map[string]func(server.Options) bool{
		"ERRSVC_LOG_LEVEL":          func(o server.Options) bool { return !o.Logger.Enabled(context.Background(), slog.LevelInfo) },
		"ERRSVC_MAX_CONNECTION_AGE": func(o server.Options) bool { return o.MaxConnectionAge == 7*time.Minute },
		"ERRSVC_STREAM_BURST":       func(o server.Options) bool { return o.StreamBurst == 77 },
	} {
		v := map[string]string{"ERRSVC_LOG_LEVEL": "ERROR", "ERRSVC_MAX_CONNECTION_AGE": "7m", "ERRSVC_STREAM_BURST": "77"}[key]
		o, err := parseServeFlags(nil, func(k string) string {
			if k == key {
				return v
			}
			return ""
		}, io.Discard)
		if err != nil || !want(o) {
			t.Errorf("%s=%s does not set its flag (%v)", key, v, err)
		}
	}
}

// The answer cache is on by default, bounded by both flags (or their
// variables); 0 in either turns it off.
func TestAnswerCacheFlags(t *testing.T) {
	cases := []struct {
		args           []string
		env            map[string]string
		entries, bytes int64
	}{
		{nil, nil, server.DefaultAnswerCacheEntries, server.DefaultAnswerCacheBytes},
		{[]string{"--answer-cache-entries", "10", "--answer-cache-bytes", "65536"}, nil, 10, 65536},
		{nil, map[string]string{"ERRSVC_ANSWER_CACHE_ENTRIES": "12", "ERRSVC_ANSWER_CACHE_BYTES": "4096"}, 12, 4096},
		{[]string{"--answer-cache-entries", "3"}, map[string]string{"ERRSVC_ANSWER_CACHE_ENTRIES": "12"}, 3, server.DefaultAnswerCacheBytes},
		{[]string{"--answer-cache-entries", "0"}, nil, -1, -1},
		{nil, map[string]string{"ERRSVC_ANSWER_CACHE_BYTES": "0"}, -1, -1},
	}
	for _, c := range cases {
		opts, err := parseServeFlags(c.args, func(k string) string { return c.env[k] }, io.Discard)
		if err != nil {
			t.Fatalf("%v %v: %v", c.args, c.env, err)
		}
		if int64(opts.AnswerCacheEntries) != c.entries || opts.AnswerCacheBytes != c.bytes {
			t.Errorf("%v %v: entries %d, bytes %d; want %d, %d", c.args, c.env, opts.AnswerCacheEntries, opts.AnswerCacheBytes, c.entries, c.bytes)
		}
	}
}

// CORS is off unless asked for; the flag and the environment give an
// allowlist, the flag winning.
func TestCORSOriginsFlag(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want []string
	}{
		{nil, nil, nil},
		{[]string{"--cors-origins", "https://a.example, https://*.b.example,"}, nil, []string{"https://a.example", "https://*.b.example"}},
		{nil, map[string]string{"ERRSVC_CORS_ORIGINS": "https://env.example"}, []string{"https://env.example"}},
		{[]string{"--cors-origins", "https://flag.example"}, map[string]string{"ERRSVC_CORS_ORIGINS": "https://env.example"}, []string{"https://flag.example"}},
	} {
		opts, err := parseServeFlags(tc.args, env(tc.env), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(opts.CORSOrigins, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%v %v: CORSOrigins %q, want %q", tc.args, tc.env, opts.CORSOrigins, tc.want)
		}
	}
}
