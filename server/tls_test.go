package server

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	errsvcv1 "github.com/errsvc/errsvc/gen/errsvc/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// testCA is a throwaway certificate authority made in the test: nothing is
// read from or committed to the repository.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pem  []byte
}

var serial int64

func newKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func newCA(t *testing.T, name string) *testCA {
	t.Helper()
	key := newKey(t)
	serial++
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// issue signs a leaf for a server (127.0.0.1, localhost) or a client.
func (ca *testCA) issue(t *testing.T, name string, server bool) (certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t)
	serial++
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		tmpl.IPAddresses = []net.IP{net.IPv4(127, 0, 0, 1)}
		tmpl.DNSNames = []string{"localhost"}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

func (ca *testCA) pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(ca.cert)
	return p
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// serverTLS writes a server certificate signed by ca, and clientCA when not
// nil, to files and loads them the way the --tls-* flags do.
func serverTLS(t *testing.T, ca, clientCA *testCA) *tls.Config {
	t.Helper()
	dir := t.TempDir()
	certPEM, keyPEM := ca.issue(t, "errsvc", true)
	caFile := ""
	if clientCA != nil {
		caFile = writeFile(t, dir, "client-ca.pem", clientCA.pem)
	}
	cfg, err := LoadTLSConfig(writeFile(t, dir, "server.pem", certPEM), writeFile(t, dir, "server-key.pem", keyPEM), caFile)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// clientTLS trusts serverCA and presents a certificate from clientCA, or
// none when clientCA is nil.
func clientTLS(t *testing.T, serverCA, clientCA *testCA) *tls.Config {
	t.Helper()
	cfg := &tls.Config{RootCAs: serverCA.pool(), MinVersion: tls.VersionTLS12}
	if clientCA != nil {
		certPEM, keyPEM := clientCA.issue(t, "client", false)
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			t.Fatal(err)
		}
		// Sent whatever CAs the server asks for, so a foreign certificate
		// reaches the server's verification instead of being held back.
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return &cert, nil }
	}
	return cfg
}

// grpcTranslate makes one Translate call with the given transport
// credentials.
func grpcTranslate(t *testing.T, addr string, creds credentials.TransportCredentials) error {
	t.Helper()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = errsvcv1.NewTranslationServiceClient(conn).Translate(ctx, validRequest())
	return err
}

// restTranslate makes one POST /v1/translate; cfg nil means plaintext.
func restTranslate(t *testing.T, addr string, cfg *tls.Config) error {
	t.Helper()
	scheme := "http"
	tr := &http.Transport{}
	if cfg != nil {
		scheme = "https"
		tr.TLSClientConfig = cfg
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	resp, err := client.Post(scheme+"://"+addr+"/v1/translate", "application/json", strings.NewReader(validJSON))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return &httpStatusError{resp.StatusCode}
	}
	return nil
}

type httpStatusError struct{ code int }

func (e *httpStatusError) Error() string { return http.StatusText(e.code) }

func TestTLS(t *testing.T) {
	ca, stranger := newCA(t, "errsvc test CA"), newCA(t, "some other CA")
	r := start(t, Options{TLS: serverTLS(t, ca, nil)})
	grpcAddr, httpAddr := r.srv.GRPCAddr(), r.srv.HTTPAddr()

	if err := grpcTranslate(t, grpcAddr, credentials.NewTLS(clientTLS(t, ca, nil))); err != nil {
		t.Errorf("gRPC over TLS: %v", err)
	}
	if err := restTranslate(t, httpAddr, clientTLS(t, ca, nil)); err != nil {
		t.Errorf("REST over TLS: %v", err)
	}
	if err := grpcTranslate(t, grpcAddr, insecure.NewCredentials()); err == nil {
		t.Error("plaintext gRPC client served by a TLS server")
	}
	if err := restTranslate(t, httpAddr, nil); err == nil {
		t.Error("plaintext REST client served by a TLS server")
	}
	// The client checks the server's certificate: one from another CA fails.
	if err := grpcTranslate(t, grpcAddr, credentials.NewTLS(clientTLS(t, stranger, nil))); err == nil {
		t.Error("gRPC client accepted a server certificate it does not trust")
	}
	if err := restTranslate(t, httpAddr, clientTLS(t, stranger, nil)); err == nil {
		t.Error("REST client accepted a server certificate it does not trust")
	}
}

func TestMutualTLS(t *testing.T) {
	serverCA, clientCA, stranger := newCA(t, "server CA"), newCA(t, "client CA"), newCA(t, "stranger CA")
	r := start(t, Options{TLS: serverTLS(t, serverCA, clientCA)})
	grpcAddr, httpAddr := r.srv.GRPCAddr(), r.srv.HTTPAddr()

	for _, tc := range []struct {
		name   string
		client *testCA // CA of the client certificate; nil: no certificate
		ok     bool
	}{
		{"client certificate from the trusted CA", clientCA, true},
		{"no client certificate", nil, false},
		{"client certificate from another CA", stranger, false},
		{"client certificate from the server's CA", serverCA, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			grpcErr := grpcTranslate(t, grpcAddr, credentials.NewTLS(clientTLS(t, serverCA, tc.client)))
			restErr := restTranslate(t, httpAddr, clientTLS(t, serverCA, tc.client))
			if tc.ok {
				if grpcErr != nil || restErr != nil {
					t.Fatalf("refused: gRPC %v, REST %v", grpcErr, restErr)
				}
				return
			}
			if status.Code(grpcErr) != codes.Unavailable {
				t.Errorf("gRPC: %v, want UNAVAILABLE from the failed handshake", grpcErr)
			}
			var httpErr *httpStatusError
			if restErr == nil || errors.As(restErr, &httpErr) {
				t.Errorf("REST: %v, want the handshake to fail", restErr)
			}
		})
	}
	t.Run("plaintext", func(t *testing.T) {
		if err := grpcTranslate(t, grpcAddr, insecure.NewCredentials()); err == nil {
			t.Error("plaintext gRPC served")
		}
		if err := restTranslate(t, httpAddr, nil); err == nil {
			t.Error("plaintext REST served")
		}
	})
	t.Run("probes over mutual TLS", func(t *testing.T) {
		tr := &http.Transport{TLSClientConfig: clientTLS(t, serverCA, clientCA)}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Get("https://" + httpAddr + "/readyz")
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("/readyz: HTTP %d", resp.StatusCode)
		}
	})
}

func TestLoadTLSConfigErrors(t *testing.T) {
	dir := t.TempDir()
	ca := newCA(t, "ca")
	certPEM, keyPEM := ca.issue(t, "errsvc", true)
	cert, key := writeFile(t, dir, "c.pem", certPEM), writeFile(t, dir, "k.pem", keyPEM)
	junk := writeFile(t, dir, "junk.pem", []byte("not a certificate"))
	for _, tc := range []struct{ name, cert, key, ca string }{
		{"no key", cert, "", ""},
		{"key for the cert missing", cert, filepath.Join(dir, "nope.pem"), ""},
		{"cert is junk", junk, key, ""},
		{"client CA missing", cert, key, filepath.Join(dir, "nope.pem")},
		{"client CA is junk", cert, key, junk},
	} {
		if _, err := LoadTLSConfig(tc.cert, tc.key, tc.ca); err == nil {
			t.Errorf("%s: loaded", tc.name)
		}
	}
	cfg, err := LoadTLSConfig(cert, key, writeFile(t, dir, "ca.pem", ca.pem))
	if err != nil || cfg.ClientAuth != tls.RequireAndVerifyClientCert || cfg.MinVersion < tls.VersionTLS12 {
		t.Errorf("mutual TLS config: %+v %v", cfg, err)
	}
}
