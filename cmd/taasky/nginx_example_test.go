package main

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/taasky/taasky/mcpserver"
)

// nginxBlock is a block of an nginx configuration: its directives (name and
// arguments, in order) and its blocks, each with the words that open it.
type nginxBlock struct {
	args       []string
	directives [][]string
	blocks     []*nginxBlock
}

// parseNginx reads nginx's configuration syntax (directives ending in ";",
// blocks in braces, "#" comments, quoted words) strictly enough that a
// directive without its ";" or an unclosed brace is an error.
func parseNginx(t *testing.T, text string) *nginxBlock {
	t.Helper()
	root := &nginxBlock{}
	stack := []*nginxBlock{root}
	var words []string
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '#':
			for i < len(text) && text[i] != '\n' {
				i++
			}
		case unicode.IsSpace(rune(c)):
			i++
		case c == ';':
			if len(words) == 0 {
				t.Fatalf("nginx: an empty directive at byte %d", i)
			}
			top := stack[len(stack)-1]
			top.directives = append(top.directives, words)
			words, i = nil, i+1
		case c == '{':
			b := &nginxBlock{args: words}
			stack[len(stack)-1].blocks = append(stack[len(stack)-1].blocks, b)
			stack, words, i = append(stack, b), nil, i+1
		case c == '}':
			if len(words) != 0 || len(stack) == 1 {
				t.Fatalf("nginx: %q before a closing brace at byte %d", words, i)
			}
			stack, i = stack[:len(stack)-1], i+1
		case c == '"' || c == '\'':
			j := strings.IndexByte(text[i+1:], c)
			if j < 0 {
				t.Fatalf("nginx: an unclosed quote at byte %d", i)
			}
			words, i = append(words, text[i+1:i+1+j]), i+j+2
		default:
			j := i
			for j < len(text) && !unicode.IsSpace(rune(text[j])) && !strings.ContainsRune(";{}#", rune(text[j])) {
				j++
			}
			words, i = append(words, text[i:j]), j
		}
	}
	if len(stack) != 1 || len(words) != 0 {
		t.Fatalf("nginx: unclosed block or directive (%q)", words)
	}
	return root
}

// values are the arguments of each directive name in b (not in its blocks).
func (b *nginxBlock) values(name string) [][]string {
	var out [][]string
	for _, d := range b.directives {
		if d[0] == name {
			out = append(out, d[1:])
		}
	}
	return out
}

func (b *nginxBlock) block(args ...string) *nginxBlock {
	for _, c := range b.blocks {
		if strings.Join(c.args, " ") == strings.Join(args, " ") {
			return c
		}
	}
	return nil
}

// nginxSize reads an nginx size ("4m", "512k", "1048576").
func nginxSize(t *testing.T, s string) int {
	t.Helper()
	mult := 1
	switch strings.ToLower(s[len(s)-1:]) {
	case "k":
		mult, s = 1<<10, s[:len(s)-1]
	case "m":
		mult, s = 1<<20, s[:len(s)-1]
	case "g":
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("nginx size %q: %v", s, err)
	}
	return n * mult
}

// TestNginxExample checks deploy/nginx/taasky.conf for what Taasky relies on
// behind it that a run cannot show (TestBehindNginx runs it in nginx):
// a body limit above Taasky's own, so that an agent's call too large gets
// Taasky's words and not nginx's HTML page (nginx's default, 1m, is
// Taasky's MCP limit: nginx answered first); the client's address appended
// to X-Forwarded-For; timeouts that outlast a live page's stream and a
// waiting read; /metrics kept from the public.
func TestNginxExample(t *testing.T) {
	b, err := os.ReadFile("../../deploy/nginx/taasky.conf")
	if err != nil {
		t.Fatal(err)
	}
	conf := parseNginx(t, string(b))
	if conf.block("upstream", "taasky") == nil {
		t.Fatal("no upstream taasky block")
	}
	var tls *nginxBlock
	for _, s := range conf.blocks {
		if s.args[0] != "server" {
			continue
		}
		for _, l := range s.values("listen") {
			if strings.Contains(strings.Join(l, " "), "ssl") {
				tls = s
			}
		}
	}
	if tls == nil {
		t.Fatal("no server listening with ssl")
	}
	sizes := tls.values("client_max_body_size")
	if len(sizes) != 1 || nginxSize(t, sizes[0][0]) <= mcpserver.MaxBody {
		t.Errorf("client_max_body_size %v: want one, above Taasky's %d bytes", sizes, mcpserver.MaxBody)
	}
	root := tls.block("location", "/")
	if root == nil {
		t.Fatal("no location /")
	}
	if p := root.values("proxy_pass"); len(p) != 1 || p[0][0] != "http://taasky" {
		t.Errorf("proxy_pass %v, want http://taasky", p)
	}
	headers := map[string]string{}
	for _, h := range root.values("proxy_set_header") {
		headers[strings.ToLower(h[0])] = strings.Join(h[1:], " ")
	}
	if got := headers["x-forwarded-for"]; got != "$proxy_add_x_forwarded_for" {
		t.Errorf("X-Forwarded-For is %q: want $proxy_add_x_forwarded_for (the address nginx heard from, appended)", got)
	}
	// Taasky takes a trusted proxy's X-Request-Id (fiberhttp.RequestIDFrom):
	// a proxy that does not set it passes on the client's own.
	if got := headers["x-request-id"]; got != "$request_id" {
		t.Errorf("X-Request-Id is %q: want $request_id (nginx's own; else the client's passes, and names its lines in Taasky's log)", got)
	}
	if got := headers["x-forwarded-proto"]; got != "$scheme" {
		t.Errorf("X-Forwarded-Proto is %q, want $scheme", got)
	}
	for _, name := range []string{"proxy_read_timeout", "proxy_send_timeout"} {
		if v := root.values(name); len(v) != 0 {
			t.Errorf("%s %v: keep nginx's 60 s, above a live stream's 45 s and a read's 25-s wait", name, v)
		}
	}
	if v := root.values("proxy_buffering"); len(v) != 0 && v[0][0] != "on" {
		t.Errorf("proxy_buffering %v: the streams say X-Accel-Buffering: no; buffering off would also hold a process's write of a download to the client's pace", v)
	}
	metrics := tls.block("location", "=", "/metrics")
	if metrics == nil || len(metrics.values("deny")) == 0 && len(metrics.values("return")) == 0 {
		t.Error("/metrics reaches the public: want location = /metrics with deny (or return)")
	}
}
