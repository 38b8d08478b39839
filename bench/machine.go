package bench

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Machine is a reading of the bench's own CPU (its MCP clients, SMTP
// sink and humans' pages) and of the whole machine's (/proc/stat), so
// that a phase can say what its clients cost beside the server and
// PostgreSQL, and whether the CPU was the limit: the moves' runs are
// bound by it on 2 cores, the durable echo at 8 clients by its commits'
// latency.
type Machine struct {
	Client      time.Duration
	Busy, Total int64 // jiffies over all CPUs
}

// ReadMachine reads it now (zeros where /proc cannot be read).
func ReadMachine() Machine {
	m := Machine{}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		m.Client = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	f, err := os.Open("/proc/stat")
	if err != nil {
		return m
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return m
	}
	// cpu user nice system idle iowait irq softirq steal (guest time is
	// counted in user already)
	fields := strings.Fields(sc.Text())
	if len(fields) < 9 || fields[0] != "cpu" {
		return m
	}
	for i, s := range fields[1:9] {
		n, _ := strconv.ParseInt(s, 10, 64)
		m.Total += n
		if i != 3 && i != 4 { // idle, iowait
			m.Busy += n
		}
	}
	return m
}

// Use is what the bench's clients and the machine did between two
// readings.
type Use struct {
	Client time.Duration // the bench process's CPU
	Busy   float64       // the machine's busy share, 0–1 (0: unknown)
}

// Since is the use from before to m.
func (m Machine) Since(before Machine) Use {
	u := Use{Client: m.Client - before.Client}
	if t := m.Total - before.Total; t > 0 {
		u.Busy = float64(m.Busy-before.Busy) / float64(t)
	}
	return u
}

// perCall is the clients' CPU per call, ms.
func (u Use) perCall(calls int64) float64 {
	if calls <= 0 {
		return 0
	}
	return float64(u.Client.Microseconds()) / 1000 / float64(calls)
}
