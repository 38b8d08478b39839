package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what the helper reports; Fatal ends
// the goroutine the helper runs on, as it does in a test.
type recorder struct {
	testing.TB
	errors []string
	fatal  bool
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatal(args ...any) {
	r.errors = append(r.errors, fmt.Sprint(args...))
	r.fatal = true
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
	r.fatal = true
	runtime.Goexit()
}

// run calls f with a recorder named like t, on a goroutine of its own.
func run(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

func TestJSON(t *testing.T) {
	t.Chdir(t.TempDir())
	value := map[string]any{"state": "agreed", "round": 3}

	r := run(t, func(tb testing.TB) { JSON(tb, "view.golden.json", value) })
	if !r.fatal || len(r.errors) != 1 || !strings.Contains(r.errors[0], "-run '^TestJSON$' -update") {
		t.Fatalf("no golden file: %q, fatal %v; want one fatal naming the -update command", r.errors, r.fatal)
	}

	*update = true
	r = run(t, func(tb testing.TB) { JSON(tb, "view.golden.json", value) })
	*update = false
	if len(r.errors) != 0 {
		t.Fatalf("-update: %q", r.errors)
	}
	b, err := os.ReadFile(filepath.Join("testdata", "view.golden.json"))
	if want := "{\n  \"round\": 3,\n  \"state\": \"agreed\"\n}\n"; err != nil || string(b) != want {
		t.Fatalf("-update wrote %q (%v), want %q", b, err, want)
	}

	if r = run(t, func(tb testing.TB) { JSON(tb, "view.golden.json", value) }); len(r.errors) != 0 {
		t.Fatalf("same value: %q", r.errors)
	}

	value["state"] = "expired"
	r = run(t, func(tb testing.TB) { JSON(tb, "view.golden.json", value) })
	if r.fatal || len(r.errors) != 1 || !strings.Contains(r.errors[0], `line 3: got "  \"state\": \"expired\"", want "  \"state\": \"agreed\""`) {
		t.Fatalf("changed value: %q, fatal %v; want one error naming line 3", r.errors, r.fatal)
	}

	r = run(t, func(tb testing.TB) { JSON(tb, "bad.golden.json", func() {}) })
	if !r.fatal || len(r.errors) != 1 || !strings.Contains(r.errors[0], "bad.golden.json") {
		t.Fatalf("a value JSON cannot hold: %q, fatal %v", r.errors, r.fatal)
	}
}

func TestFirstDifference(t *testing.T) {
	for _, c := range []struct{ got, want, say string }{
		{"a\nb\n", "a\nc\n", `line 2: got "b", want "c"`},
		{"a\n", "a\nb\n", `line 2: got "", want "b"`},
		{"a", "a\nb", `line 2: got the end, want "b"`},
		{"a\nb", "a", `line 2: got "b", want the end`},
	} {
		if got := firstDifference([]byte(c.got), []byte(c.want)); got != c.say {
			t.Errorf("%q against %q: %s, want %s", c.got, c.want, got, c.say)
		}
	}
}
