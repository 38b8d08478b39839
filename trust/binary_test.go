package trust

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/config"
)

var binary struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// raceBinary builds cmd/taasky with the race detector (racebinary_test.go).
var raceBinary bool

// taaskyBinary builds cmd/taasky once per test process.
func taaskyBinary(t testing.TB) string {
	t.Helper()
	binary.once.Do(func() {
		binary.dir, binary.err = os.MkdirTemp("", "taasky-trust-bin-")
		if binary.err != nil {
			return
		}
		binary.path = filepath.Join(binary.dir, "taasky")
		args := []string{"build", "-o", binary.path}
		if raceBinary {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, "github.com/taasky/taasky/cmd/taasky")...).CombinedOutput()
		if err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binary.dir != "" {
		os.RemoveAll(binary.dir)
	}
	os.Exit(code)
}

// freeAddr is a 127.0.0.1 address nobody listens on (a moment ago).
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// process is `taasky serve` run as a child process.
type process struct {
	t    testing.TB
	bin  string
	env  []string
	addr string
	base string
	log  *bytes.Buffer
	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	runs int
	// args follow "serve" (e.g. --web=false); ready, if set, replaces the
	// wait for /readyz (a test that waits for something else: a worker
	// holding its lease).
	args  []string
	ready func() bool
}

const testSecret = "trust-suite-secret-key-0123456789abcdef-xyz"

// newProcess prepares `taasky serve` on a database and a free port; extra
// is more environment (NAME=value).
func newProcess(t testing.TB, dsn string, extra ...string) *process {
	addr := freeAddr(t)
	p := &process{t: t, bin: taaskyBinary(t), addr: addr, base: "http://" + addr, log: &bytes.Buffer{}}
	p.env = append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"DATABASE_URL=" + dsn, "BASE_URL=" + p.base, "LISTEN_ADDR=" + addr, "SECRET_KEY=" + testSecret,
		"OIDC_ISSUER=http://127.0.0.1:9", "OIDC_CLIENT_ID=x", "OIDC_CLIENT_SECRET=y",
	}, extra...)
	t.Cleanup(func() {
		p.kill()
		if i := strings.Index(p.logs(), "WARNING: DATA RACE"); i >= 0 {
			t.Errorf("taasky serve had a data race:\n%s", p.logs()[i:])
		} else if t.Failed() {
			t.Logf("taasky serve's last output:\n%s", tail(p.logs(), 4000))
		}
	})
	return p
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

type lockedWriter struct {
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (w lockedWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(b)
}

func (p *process) logs() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.String()
}

// start runs the process and waits until /readyz says ready.
func (p *process) start() {
	p.t.Helper()
	cmd := exec.Command(p.bin, append([]string{"serve"}, p.args...)...)
	cmd.Env = p.env
	w := lockedWriter{&p.mu, p.log}
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		p.t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	p.mu.Lock()
	p.cmd, p.done = cmd, done
	p.runs++
	p.mu.Unlock()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			p.t.Fatalf("taasky serve exited at start:\n%s", tail(p.logs(), 4000))
		default:
		}
		if p.ready != nil {
			if p.ready() {
				return
			}
		} else if st, _ := p.get("/readyz"); st == http.StatusOK {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("taasky serve not ready after 90s:\n%s", tail(p.logs(), 4000))
}

// exited says whether the process ended while the test had it running:
// it died on its own.
func (p *process) exited() bool {
	p.mu.Lock()
	running, done := p.cmd != nil, p.done
	p.mu.Unlock()
	if !running {
		return false
	}
	select {
	case <-done:
		return true
	default:
		return false
	}
}

// kill ends the process with SIGKILL: no shutdown, no flush, nothing.
func (p *process) kill() {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
}

var probe = &http.Client{Timeout: 5 * time.Second}

// get fetches a path; the status is 0 when nothing answered.
func (p *process) get(path string) (int, string) {
	resp, err := probe.Get(p.base + path)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// world is the service's database seen from the test: accounts, and the
// rooms service with the keys the process derives from SECRET_KEY (the
// humans of a load without people confirm through it, as the dashboard
// would).
type world struct {
	pool     *pgxpool.Pool
	accounts *app.Accounts
	rooms    *app.Rooms
}

func newWorld(t testing.TB, dsn, base string) *world {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	cfg, err := config.Load(func(name string) string {
		switch name {
		case "DATABASE_URL":
			return dsn
		case "BASE_URL":
			return base
		case "SECRET_KEY":
			return testSecret
		}
		return ""
	}, config.RoleWorker)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := river.NewClient[pgx.Tx](riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rooms, err := app.NewRooms(app.RoomsConfig{Pool: pool, River: rc, LimitsKey: cfg.Key("limits"),
		TokenKey: cfg.Key("room-tokens"), BaseURL: base})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rooms.Close) // before the pool closes: the last changes are announced
	return &world{pool: pool, accounts: app.NewAccounts(pool), rooms: rooms}
}
