package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGBin is where Debian puts PostgreSQL 15's programs.
const PGBin = "/usr/lib/postgresql/15/bin"

// Server is a PostgreSQL of a test's own (StartServer), for what the
// shared one must not be put through: running out of connections, say.
type Server struct {
	t    testing.TB
	Root string // holds the data directory, its log and the socket
	Port int
}

// StartServer starts a fresh PostgreSQL 15 from Debian's packages on a
// free loopback port, with trust authentication, conf appended to its
// postgresql.conf (later lines win), and stops it when the test ends.
// It runs the programs as the postgres user when run as root (they refuse
// root), and skips the test where it cannot run them (NeedPrograms).
// trust/pgcluster_test.go starts its primary and standby the same way.
func StartServer(t testing.TB, conf string) *Server {
	t.Helper()
	NeedPrograms(t)
	root, err := os.MkdirTemp("", "taasky-pg-")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{t: t, Root: root, Port: FreePort(t)}
	t.Cleanup(func() { os.RemoveAll(root) })
	Chown(t, root)
	data := filepath.Join(root, "data")
	s.Run("initdb", "-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C")
	f, err := os.OpenFile(filepath.Join(data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = fmt.Fprintf(f, "\nport = %d\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '%s'\nfsync = off\n%s\n", s.Port, root, conf)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	s.Run("pg_ctl", "-D", data, "-l", data+".log", "-w", "-t", "60", "start")
	t.Cleanup(func() {
		cmd := s.command("pg_ctl", "-D", data, "-m", "immediate", "-w", "stop")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("pg_ctl stop: %v\n%s", err, out)
		}
	})
	return s
}

// NeedPrograms skips the test where it cannot run PostgreSQL 15's
// programs: not installed, or root without runuser to run them as the
// postgres user.
func NeedPrograms(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(PGBin, "pg_ctl")); err != nil {
		t.Skipf("PostgreSQL 15's programs are not in %s (apt-get install postgresql-15): %v", PGBin, err)
	}
	if os.Geteuid() == 0 {
		if _, err := exec.LookPath("runuser"); err != nil {
			t.Skip("running as root without runuser: cannot run PostgreSQL as the postgres user")
		}
	}
}

// DSN is the connection string of user to database db.
func (s *Server) DSN(user, db string) string {
	return fmt.Sprintf("postgres://%s@127.0.0.1:%d/%s?sslmode=disable", user, s.Port, db)
}

// Exec runs each statement as postgres on database db.
func (s *Server) Exec(db string, stmts ...string) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, s.DSN("postgres", db))
	if err != nil {
		s.t.Fatalf("connect to 127.0.0.1:%d: %v", s.Port, err)
	}
	defer conn.Close(ctx)
	for _, stmt := range stmts {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			s.t.Fatalf("%s on 127.0.0.1:%d: %v", stmt, s.Port, err)
		}
	}
}

// Run runs one of PostgreSQL's programs (as the postgres user when root).
func (s *Server) Run(prog string, args ...string) string {
	s.t.Helper()
	out, err := s.command(prog, args...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *Server) command(prog string, args ...string) *exec.Cmd {
	cmd := AsPostgres(filepath.Join(PGBin, prog), args...)
	cmd.Dir = s.Root
	return cmd
}

// AsPostgres is a command running path as the postgres user when the test
// runs as root (PostgreSQL's programs and PgBouncer refuse root), as the
// test's own user otherwise.
func AsPostgres(path string, args ...string) *exec.Cmd {
	if os.Geteuid() == 0 {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

// Chown gives path to the postgres user when the test runs as root.
func Chown(t testing.TB, path string) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	if out, err := exec.Command("chown", "-R", "postgres:postgres", path).CombinedOutput(); err != nil {
		t.Fatalf("chown %s: %v\n%s", path, err, out)
	}
}

// FreePort is a loopback TCP port nothing listened on a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
