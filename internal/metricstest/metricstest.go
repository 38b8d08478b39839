// Package metricstest reads /metrics as Prometheus scrapes it (the text
// format), so that tests assert on what an operator's Prometheus sees. It
// must not be used outside tests.
package metricstest

import (
	"bufio"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Sample is one scrape: each series's value, keyed by its name and labels.
type Sample struct {
	series []series
}

type series struct {
	name   string
	labels map[string]string
	value  float64
}

// Scrape gets url (a /metrics endpoint) and parses it; anything but a 200
// in the text format fails the test.
func Scrape(t testing.TB, url string) Sample {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	s, err := Parse(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return s
}

var (
	line  = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)
	label = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?`)
)

// Parse reads Prometheus's text format (comments are skipped).
func Parse(r io.Reader) (Sample, error) {
	var s Sample
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		m := line.FindStringSubmatch(text)
		if m == nil {
			return Sample{}, &badLine{text}
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			return Sample{}, &badLine{text}
		}
		labels := map[string]string{}
		for _, l := range label.FindAllStringSubmatch(m[2], -1) {
			labels[l[1]] = l[2]
		}
		s.series = append(s.series, series{m[1], labels, v})
	}
	return s, sc.Err()
}

type badLine struct{ text string }

func (e *badLine) Error() string { return "not a line of Prometheus's text format: " + e.text }

// Value is the value of the series name with exactly these labels (pairs:
// "tool", "negotiation_open", …), and whether it is there.
func (s Sample) Value(name string, labels ...string) (float64, bool) {
	if len(labels)%2 != 0 {
		panic("metricstest: labels come in name, value pairs")
	}
next:
	for _, se := range s.series {
		if se.name != name || len(se.labels) != len(labels)/2 {
			continue
		}
		for i := 0; i < len(labels); i += 2 {
			if v, ok := se.labels[labels[i]]; !ok || v != labels[i+1] {
				continue next
			}
		}
		return se.value, true
	}
	return 0, false
}

// Get is Value for a series that must be there (0 if it is not, and the
// test fails).
func (s Sample) Get(t testing.TB, name string, labels ...string) float64 {
	t.Helper()
	v, ok := s.Value(name, labels...)
	if !ok {
		t.Errorf("/metrics has no %s%v", name, labels)
	}
	return v
}
