package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testCA is a certificate authority of this test binary's own: TestMain
// makes it the system's only root (SSL_CERT_FILE, read by crypto/x509 at
// the first https call), so that a Taasky run in process trusts the https
// servers tests start with tlsServer, as it would trust a real client's
// host. Nothing here reaches the internet, so no other root is needed.
var testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
}

func TestMain(m *testing.M) {
	if os.Getenv(asMainEnv) == "1" {
		main() // this binary started as taasky by a test (asMainEnv)
		os.Exit(0)
	}
	dir, err := os.MkdirTemp("", "taasky-test-ca-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
		defer os.RemoveAll(dir)
		if err := makeTestCA(filepath.Join(dir, "ca.pem")); err != nil {
			fmt.Fprintln(os.Stderr, "test CA:", err)
			return 1
		}
		return m.Run()
	}()
	os.Exit(code)
}

func makeTestCA(file string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "taasky test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	if testCA.cert, err = x509.ParseCertificate(der); err != nil {
		return err
	}
	testCA.key = key
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.Setenv("SSL_CERT_FILE", file)
}

// tlsServer starts an https server on 127.0.0.1 with a certificate of
// testCA's.
func tlsServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	der, key := testCert(t)
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// testCert is a server certificate of testCA's for 127.0.0.1 and
// localhost, valid for an hour.
func testCert(t *testing.T) ([]byte, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, testCA.cert, &key.PublicKey, testCA.key)
	if err != nil {
		t.Fatal(err)
	}
	return der, key
}
