package main

import (
	"io/fs"
	"testing"
)

// TestMemoryLimit: GOMEMLIMIT wins (the runtime read it); else 80 % of a
// container's limit, cgroup v2 or v1; else the default.
func TestMemoryLimit(t *testing.T) {
	t.Parallel()
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(name string) ([]byte, error) {
			if v, ok := m[name]; ok {
				return []byte(v), nil
			}
			return nil, fs.ErrNotExist
		}
	}
	none := func(string) string { return "" }
	for _, c := range []struct {
		name  string
		env   func(string) string
		files map[string]string
		want  int64
	}{
		{"GOMEMLIMIT set", func(k string) string { return map[string]string{"GOMEMLIMIT": "2GiB"}[k] }, map[string]string{"/sys/fs/cgroup/memory.max": "536870912\n"}, 0},
		{"cgroup v2 limit", none, map[string]string{"/sys/fs/cgroup/memory.max": "536870912\n"}, 429496728},
		{"cgroup v2 unlimited", none, map[string]string{"/sys/fs/cgroup/memory.max": "max\n"}, defaultMemoryLimit},
		{"cgroup v1 limit", none, map[string]string{"/sys/fs/cgroup/memory/memory.limit_in_bytes": "4294967296\n"}, 3435973836},
		{"cgroup v1 unlimited", none, map[string]string{"/sys/fs/cgroup/memory/memory.limit_in_bytes": "9223372036854771712\n"}, defaultMemoryLimit},
		{"no cgroup", none, nil, defaultMemoryLimit},
	} {
		if got := memoryLimit(c.env, files(c.files)); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
