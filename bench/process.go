package bench

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Process is a server the bench started (this binary, another command).
type Process struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed once the process ended (and was waited for)
	Addr   string        // host:port it listens on
}

// FreeAddr picks a free port on 127.0.0.1.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Start runs this executable with args and env, and waits until GET
// http://addr/ready answers 200 (ready is a path such as /readyz).
func Start(ctx context.Context, addr, ready string, env []string, args ...string) (*Process, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), env...)
	logPath := filepath.Join(os.TempDir(), fmt.Sprintf("taasky-bench-%s-%d.log", args[0], time.Now().UnixNano()))
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	p := &Process{cmd: cmd, exited: make(chan struct{}), Addr: addr}
	go func() {
		_ = cmd.Wait()
		log.Close()
		close(p.exited)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get("http://" + addr + ready)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return p, nil
			}
		}
		select {
		case <-p.exited:
			return nil, fmt.Errorf("%s ended before it was ready at %s (log: %s)", args[0], addr, logPath)
		case <-time.After(100 * time.Millisecond):
		}
	}
	p.Stop()
	return nil, fmt.Errorf("%s did not become ready at %s (log: %s)", args[0], addr, logPath)
}

// Stop ends the process (an interrupt, then SIGKILL after 10 s).
func (p *Process) Stop() {
	_ = p.cmd.Process.Signal(os.Interrupt)
	select {
	case <-p.exited:
	case <-time.After(10 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// Usage is a process's CPU time so far and its peak memory.
type Usage struct {
	CPU    time.Duration
	RSSKiB int64
}

// Usage reads /proc for the process.
func (p *Process) Usage() (Usage, error) { return procUsage(p.cmd.Process.Pid) }

const clockTicks = 100 // USER_HZ on Linux

func procUsage(pid int) (Usage, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Usage{}, err
	}
	// Fields after the command name, which is in parentheses.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	u := Usage{CPU: time.Duration(utime+stime) * time.Second / clockTicks}
	st, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return u, err
	}
	defer st.Close()
	sc := bufio.NewScanner(st)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			u.RSSKiB, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		}
	}
	return u, nil
}

// Memory is a process's resident set now and at its peak (VmRSS, VmHWM).
type Memory struct{ RSSKiB, HWMKiB int64 }

// Memory reads /proc for the process.
func (p *Process) Memory() (Memory, error) {
	var m Memory
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return m, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, value, _ := strings.Cut(line, ":")
		kib, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		switch name {
		case "VmRSS":
			m.RSSKiB = kib
		case "VmHWM":
			m.HWMKiB = kib
		}
	}
	return m, nil
}

// PGCPU is the CPU time of each PostgreSQL backend serving one database.
type PGCPU map[int32]time.Duration

// PostgresCPU reads the CPU time of the backends serving the database pool
// is connected to (other databases' work on a shared server is left out).
func PostgresCPU(ctx context.Context, pool *pgxpool.Pool) PGCPU {
	out := PGCPU{}
	rows, err := pool.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		return out
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		return out
	}
	for _, pid := range pids {
		if u, err := procUsage(int(pid)); err == nil {
			out[pid] = u.CPU
		}
	}
	return out
}

// Since is the CPU the backends spent since an earlier reading: a backend
// that started meanwhile counts whole; one that ended meanwhile is lost
// (pooled connections rarely end).
func (now PGCPU) Since(before PGCPU) time.Duration {
	var total time.Duration
	for pid, cpu := range now {
		total += cpu - before[pid]
	}
	return total
}
