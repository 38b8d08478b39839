package trust

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/internal/pgtest"
)

// pgPair is a primary and a synchronous standby started by the test on
// loopback ports, from Debian's packages, run as the postgres user (the
// tools refuse root). A commit is acknowledged only once the standby has
// it, so promoting the standby loses no acknowledged transaction.
type pgPair struct {
	t     testing.TB
	root  string
	nodes [2]*pgNode
	prim  int // index of the primary
}

type pgNode struct {
	dir  string
	port int
}

// newPGPair starts the pair, or skips the test where it cannot run.
func newPGPair(t testing.TB) *pgPair {
	t.Helper()
	pgtest.NeedPrograms(t)
	root, err := os.MkdirTemp("", "taasky-failover-")
	if err != nil {
		t.Fatal(err)
	}
	p := &pgPair{t: t, root: root}
	t.Cleanup(p.close)
	pgtest.Chown(t, root)
	for i := range p.nodes {
		p.nodes[i] = &pgNode{dir: filepath.Join(root, fmt.Sprintf("node%d", i)), port: pgtest.FreePort(t)}
	}
	a := p.nodes[0]
	p.pg("initdb", "-D", a.dir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C")
	p.configure(a)
	p.pg("pg_ctl", "-D", a.dir, "-l", a.dir+".log", "-w", "-t", "60", "start")
	p.sql(a, "postgres", `CREATE DATABASE taasky`)
	p.rejoin(1)
	return p
}

// pg runs one of PostgreSQL's programs as the postgres user.
func (p *pgPair) pg(prog string, args ...string) string {
	p.t.Helper()
	cmd := pgtest.AsPostgres(filepath.Join(pgtest.PGBin, prog), args...)
	cmd.Dir = p.root
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("%s %s: %v\n%s", prog, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// configure writes the settings both nodes share; later lines win.
func (p *pgPair) configure(n *pgNode) {
	p.t.Helper()
	conf := fmt.Sprintf(`
port = %d
listen_addresses = '127.0.0.1'
unix_socket_directories = '%s'
max_connections = 400
wal_level = replica
max_wal_senders = 10
wal_keep_size = '256MB'
hot_standby = on
synchronous_commit = on
# A kill -9 of the server leaves the OS's page cache: fsync buys nothing here.
fsync = off
full_page_writes = off
`, n.port, p.root)
	f, err := os.OpenFile(filepath.Join(n.dir, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		p.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(conf); err != nil {
		p.t.Fatal(err)
	}
}

func (n *pgNode) dsn(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", n.port, db)
}

// DSN is Taasky's view: both hosts, the writable one wanted.
func (p *pgPair) DSN() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d,127.0.0.1:%d/taasky?sslmode=disable&target_session_attrs=read-write&connect_timeout=3",
		p.nodes[0].port, p.nodes[1].port)
}

func (p *pgPair) sql(n *pgNode, db, stmt string) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, n.dsn(db))
	if err != nil {
		p.t.Fatalf("connect to 127.0.0.1:%d: %v", n.port, err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, stmt); err != nil {
		p.t.Fatalf("%s on 127.0.0.1:%d: %v", stmt, n.port, err)
	}
}

// rejoin makes node i a fresh standby of the primary (a base backup: the
// database is small) and, once it streams, makes the primary wait for it
// at each commit.
func (p *pgPair) rejoin(i int) {
	p.t.Helper()
	n, prim := p.nodes[i], p.nodes[p.prim]
	if err := os.RemoveAll(n.dir); err != nil {
		p.t.Fatal(err)
	}
	p.pg("pg_basebackup", "-h", "127.0.0.1", "-p", strconv.Itoa(prim.port), "-U", "postgres", "-D", n.dir, "-R", "-X", "stream", "-c", "fast", "--no-sync")
	p.configure(n)
	p.pg("pg_ctl", "-D", n.dir, "-l", n.dir+".log", "-w", "-t", "60", "start")
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		var streaming int
		conn, err := pgx.Connect(ctx, prim.dsn("postgres"))
		if err == nil {
			err = conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming'`).Scan(&streaming)
			conn.Close(ctx)
		}
		cancel()
		if err == nil && streaming > 0 {
			break
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the standby on %d does not stream 60 s after its start: %v", n.port, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.sql(prim, "postgres", `ALTER SYSTEM SET synchronous_standby_names = '*'`)
	p.sql(prim, "postgres", `SELECT pg_reload_conf()`)
}

// pids are the node's server processes: the postmaster and its children.
func (n *pgNode) pids() []int {
	b, err := os.ReadFile(filepath.Join(n.dir, "postmaster.pid"))
	if err != nil {
		return nil
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pm, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		return nil
	}
	pids := []int{pm}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …: comm may hold spaces, so after the last ')'.
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
		if len(f) > 1 && f[1] == strconv.Itoa(pm) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// stopPrimary ends the primary's server with SIGKILL, every process of it:
// until promote, no server takes writes.
func (p *pgPair) stopPrimary() {
	p.t.Helper()
	old := p.nodes[p.prim]
	pids := old.pids()
	if len(pids) == 0 {
		p.t.Fatal("the primary's postmaster.pid names no process")
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if syscall.Kill(pids[0], 0) != nil {
			break
		}
		if time.Now().After(deadline) {
			p.t.Fatal("the primary's postmaster lives 30 s after SIGKILL")
		}
	}
}

// promote makes the standby the primary (asynchronous commits until a
// standby rejoins: with none, a synchronous commit would wait for ever).
func (p *pgPair) promote() {
	p.t.Helper()
	p.prim = 1 - p.prim
	next := p.nodes[p.prim]
	p.sql(next, "postgres", `ALTER SYSTEM SET synchronous_standby_names = ''`)
	p.sql(next, "postgres", `SELECT pg_reload_conf()`)
	p.pg("pg_ctl", "-D", next.dir, "-w", "-t", "60", "promote")
}

// close stops both servers (at once: nothing to keep), then removes their
// files.
func (p *pgPair) close() {
	for _, n := range p.nodes {
		if n == nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(n.dir, "postmaster.pid")); err == nil {
			cmd := pgtest.AsPostgres(filepath.Join(pgtest.PGBin, "pg_ctl"), "-D", n.dir, "-m", "immediate", "-w", "-t", "20", "stop")
			if out, err := cmd.CombinedOutput(); err != nil {
				p.t.Logf("stop the server on %d: %v\n%s", n.port, err, out)
				for _, pid := range n.pids() {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		}
	}
	if p.t.Failed() {
		for _, n := range p.nodes {
			if n != nil {
				if b, err := os.ReadFile(n.dir + ".log"); err == nil {
					p.t.Logf("server log of %d:\n%s", n.port, tail(string(b), 3000))
				}
			}
		}
	}
	os.RemoveAll(p.root)
}
