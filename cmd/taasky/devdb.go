package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	embeddedpostgres "github.com/fergusstrange/embedded-postgres"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// devDatabaseName is the database `taasky dev` keeps its data in.
const devDatabaseName = "taasky_dev"

// devDB is where `taasky dev` keeps its data.
type devDB struct {
	dsn  string
	desc string       // for people: where it is
	stop func() error // stops a private server; nil otherwise
}

// localCandidates are the ways a local PostgreSQL is tried, in order: the
// usual superuser over TCP and over the Debian socket, then the OS user.
func localCandidates(getenv func(string) string) []string {
	c := []string{
		"host=127.0.0.1 port=5432 user=postgres",
		"host=/var/run/postgresql port=5432 user=postgres",
	}
	if u := getenv("USER"); u != "" && u != "postgres" {
		c = append(c, "host=/var/run/postgresql port=5432 user="+u, "host=127.0.0.1 port=5432 user="+u)
	}
	return c
}

// findLocalPostgres returns a connection string to the database dbName on the
// first candidate server that answers, creating the database if missing.
func findLocalPostgres(ctx context.Context, candidates []string, dbName string) (string, error) {
	var errs []error
	for _, base := range candidates {
		base += " sslmode=disable connect_timeout=2"
		conn, err := pgx.Connect(ctx, base+" dbname=postgres")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		defer conn.Close(context.WithoutCancel(ctx))
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", dbName).Scan(&exists); err != nil {
			return "", err
		}
		if !exists {
			_, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{dbName}.Sanitize())
			var pgErr *pgconn.PgError
			if err != nil && !(errors.As(err, &pgErr) && pgErr.Code == "42P04") { // created meanwhile
				return "", fmt.Errorf("create database %s (create it yourself, or set DATABASE_URL): %w", dbName, err)
			}
		}
		return base + " dbname=" + dbName, nil
	}
	return "", errors.Join(errs...)
}

// freshLocalDatabase is findLocalPostgres for a database of the caller's
// own that it recreates empty first: the bench's, so that no run measures
// the jobs and rooms the runs before it left (River's queries slow down as
// its table grows).
func freshLocalDatabase(ctx context.Context, candidates []string, dbName string) (string, error) {
	admin, err := findLocalPostgres(ctx, candidates, "postgres")
	if err != nil {
		return "", err
	}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{dbName}.Sanitize()+" WITH (FORCE)"); err != nil {
		return "", fmt.Errorf("drop database %s: %w", dbName, err)
	}
	return findLocalPostgres(ctx, candidates, dbName)
}

// rootRefusal is what to do instead of a private PostgreSQL when running as
// root, which initdb refuses, when taasky dev fell back to one because no
// local PostgreSQL answered (--db=auto).
const rootRefusal = `no PostgreSQL answers at 127.0.0.1:5432 or /var/run/postgresql, and taasky dev
cannot start a private one while running as root (PostgreSQL's initdb refuses root).
Do one of these, then run taasky dev again:
  - start the system PostgreSQL: pg_ctlcluster --skip-systemctl-redirect <version> main start
    (or: systemctl start postgresql)
  - set DATABASE_URL to a PostgreSQL you can use, e.g. postgres://user:pass@host:5432/taasky
  - run taasky dev as a normal user`

// privateRootRefusal is rootRefusal when --db=private asked for the private
// PostgreSQL: whether a local one answers is not the question then.
const privateRootRefusal = "dev: --db=private cannot start a private PostgreSQL while running as root (PostgreSQL's initdb refuses root); " +
	"run taasky dev as a normal user, or with --db=local (or no --db) to use a PostgreSQL that answers locally, or set DATABASE_URL"

// startPrivatePostgres runs a PostgreSQL of taasky dev's own with the
// machine's binaries, its data kept under the user cache directory so it
// survives restarts. Nothing is downloaded. asked says --db=private chose
// it (rather than no local PostgreSQL answering), for the refusals' words.
func startPrivatePostgres(getenv func(string) string, log *slog.Logger, logOut io.Writer, asked bool) (devDB, error) {
	if os.Geteuid() == 0 {
		if asked {
			return devDB{}, errors.New(privateRootRefusal)
		}
		return devDB{}, errors.New(rootRefusal)
	}
	binaries, major, err := findPostgresBinaries()
	if err != nil {
		if asked {
			return devDB{}, fmt.Errorf("dev: --db=private: %w", err)
		}
		return devDB{}, fmt.Errorf("no PostgreSQL answers locally and %w", err)
	}
	cache, err := userDir(getenv, "XDG_CACHE_HOME", ".cache")
	if err != nil {
		return devDB{}, err
	}
	root := filepath.Join(cache, "taasky", "postgres")
	runtime, data := filepath.Join(root, "run"), filepath.Join(root, "data")
	stopStale(binaries, data)
	port, err := freePort()
	if err != nil {
		return devDB{}, err
	}
	log.Info("starting a private PostgreSQL", "binaries", binaries, "data", data, "port", port)
	pg := embeddedpostgres.NewDatabase(embeddedpostgres.DefaultConfig().
		Version(embeddedpostgres.PostgresVersion(strconv.Itoa(major) + ".0.0")).
		BinariesPath(binaries).
		RuntimePath(runtime). // wiped at each start: never the binaries' folder
		DataPath(data).
		Port(port).
		Database(devDatabaseName).
		StartParameters(map[string]string{"unix_socket_directories": runtime}).
		StartTimeout(time.Minute).
		Logger(logOut))
	if err := pg.Start(); err != nil {
		return devDB{}, fmt.Errorf("start a private PostgreSQL (or set DATABASE_URL): %w", err)
	}
	return devDB{
		dsn:  fmt.Sprintf("postgres://postgres:postgres@127.0.0.1:%d/%s?sslmode=disable", port, devDatabaseName),
		desc: fmt.Sprintf("private PostgreSQL %d on port %d, data in %s", major, port, data),
		stop: pg.Stop,
	}, nil
}

// findPostgresBinaries returns the newest /usr/lib/postgresql/<major>.
func findPostgresBinaries() (string, int, error) {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	type install struct {
		dir   string
		major int
	}
	var found []install
	for _, m := range matches {
		dir := filepath.Dir(filepath.Dir(m))
		if major, err := strconv.Atoi(filepath.Base(dir)); err == nil {
			found = append(found, install{dir, major})
		}
	}
	if len(found) == 0 {
		return "", 0, errors.New("no PostgreSQL binaries were found under /usr/lib/postgresql: install PostgreSQL (apt-get install postgresql) or set DATABASE_URL")
	}
	best := slices.MaxFunc(found, func(a, b install) int { return a.major - b.major })
	return best.dir, best.major, nil
}

// stopStale stops a private server left running by a taasky dev that was
// killed (pg_ctl daemonizes it), so that its data directory can be reused.
func stopStale(binaries, data string) {
	if _, err := os.Stat(filepath.Join(data, "postmaster.pid")); err == nil {
		_ = exec.Command(filepath.Join(binaries, "bin", "pg_ctl"), "stop", "-D", data, "-m", "fast", "-w").Run()
	}
}

func freePort() (uint32, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return uint32(ln.Addr().(*net.TCPAddr).Port), nil
}

// userDir is $xdgVar, else $HOME/fallback (the XDG base directory rule).
func userDir(getenv func(string) string, xdgVar, fallback string) (string, error) {
	if d := getenv(xdgVar); d != "" && filepath.IsAbs(d) {
		return d, nil
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, fallback), nil
	}
	return "", fmt.Errorf("neither %s nor HOME is set", xdgVar)
}

// describeDSN names a connection string's server and database for people.
func describeDSN(dsn string) string {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return "DATABASE_URL"
	}
	host := cfg.Host
	if !strings.HasPrefix(host, "/") {
		host = net.JoinHostPort(host, strconv.Itoa(int(cfg.Port)))
	}
	return fmt.Sprintf("database %s on %s", cfg.Database, host)
}
