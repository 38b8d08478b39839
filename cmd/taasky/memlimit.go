package main

import (
	"strconv"
	"strings"
)

// defaultMemoryLimit is the runtime's soft memory limit when neither
// GOMEMLIMIT nor a container's memory limit says otherwise.
//
// GOGC=400 (main) lets the heap grow to five times what is live before the
// collector runs: cheap while little is live, but a process holding 10,000
// live pages and 1,000 waiting reads has some 270 MiB live, and grew to
// 1.36 GiB resident between collections (issue 21, docs/performance-history.md).
// Under the limit nothing changes; near it the collector runs as often as
// it must (the runtime caps its share of the CPU at about half).
const defaultMemoryLimit = 768 << 20

// memoryLimit is the soft memory limit main sets when GOMEMLIMIT is unset
// (0 when it is: the runtime read it): 80 % of the container's memory
// (cgroup v2 memory.max, or v1 memory.limit_in_bytes) when it has a limit,
// else defaultMemoryLimit.
func memoryLimit(getenv func(string) string, readFile func(string) ([]byte, error)) int64 {
	if getenv("GOMEMLIMIT") != "" {
		return 0
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := readFile(f)
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= 1<<60 { // "max", or v1's "no limit"
			break
		}
		return n / 5 * 4
	}
	return defaultMemoryLimit
}
