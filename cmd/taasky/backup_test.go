package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taasky/taasky/internal/pgtest"
)

// TestBackupRestore follows docs/operations.md "Backup and restore" as an
// operator would: pg_dump of a database in use, pg_restore --no-owner into
// a new one; started on it with the same SECRET_KEY and BASE_URL, Taasky
// passes `taasky check`, and the receipt signed before the dump verifies
// against the restored service's key set; with another key, it refuses.
func TestBackupRestore(t *testing.T) {
	t.Parallel()
	for _, prog := range []string{"pg_dump", "pg_restore"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("%s not found (Debian: postgresql-client-15)", prog)
		}
	}
	e := env{"DATABASE_URL": pgtest.NewDSN(t), "BASE_URL": "http://127.0.0.1", "SECRET_KEY": testSecret}
	srv, agent := acmeServer(t, e)
	jws := agreedReceipt(t, srv, agent) // the service keeps running: the dump is taken under it
	dir := t.TempDir()
	dump := filepath.Join(dir, "taasky.dump")
	if out, err := exec.Command("pg_dump", "-Fc", "-f", dump, e["DATABASE_URL"]).CombinedOutput(); err != nil {
		t.Fatalf("pg_dump: %v\n%s", err, out)
	}
	restored := pgtest.NewEmptyDSN(t)
	if out, err := exec.Command("pg_restore", "--no-owner", "-d", restored, dump).CombinedOutput(); err != nil {
		t.Fatalf("pg_restore: %v\n%s", err, out)
	}

	r := env{"DATABASE_URL": restored, "BASE_URL": "http://127.0.0.1", "SECRET_KEY": testSecret, "LISTEN_ADDR": "127.0.0.1:0",
		"OIDC_ISSUER": "http://127.0.0.1:9", "OIDC_CLIENT_ID": "taasky", "OIDC_CLIENT_SECRET": "secret"}
	if out, _, err := runCmd(t, r, "check"); err != nil || !strings.Contains(out, "1 rooms checked, 0 differences") {
		t.Errorf("check on the restored database: %v\n%s", err, out)
	}
	p := start(t, r, "serve")
	file := filepath.Join(dir, "receipt.jws")
	if err := os.WriteFile(file, []byte(jws), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runCmd(t, env{}, "receipt", "verify", file, "--jwks", "http://"+p.addr+jwksPath, "--issuer", "http://127.0.0.1"); err != nil ||
		!strings.HasPrefix(out, "valid: ") {
		t.Errorf("a receipt signed before the dump, against the restored service: %v %s", err, out)
	}
	if err := p.stop(); err != nil {
		t.Fatal(err)
	}
	r["SECRET_KEY"] = testSecret + "-another"
	if _, _, err := runCmd(t, r, "check"); err == nil || !strings.HasPrefix(err.Error(), "SECRET_KEY differs") {
		t.Errorf("the restored database with another key: %v, want SECRET_KEY differs", err)
	}
}
