package trust

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/taasky/taasky/notify/notifytest"
)

// people are the humans of a load over nodes, confirming as a person does:
// the confirmation request's email (caught by the test's SMTP server) has a
// one-tap link; they open it on a node (GET: the card and its form) and
// post the form (with the page's CSRF token) to a node, each request to
// the next node in turn. A node that answers 503 (the database switching
// over) or none (it died) gets the same request again, or the next node
// does, as the agents' calls are sent again.
type people struct {
	smtp  *notifytest.SMTPServer
	bases []string
	next  atomic.Uint64

	mu    sync.Mutex
	read  int                   // mails looked at so far
	links map[string][]mailLink // recipient → the one-tap links mailed to them, in order
	asks  map[string]string     // one-tap token → the subject_hash its page asked about ("" nothing)
	waits []time.Duration       // from the request to its email, for each confirmation

	confirmed atomic.Int64 // confirmations answered through a page
	resent    atomic.Int64 // requests sent again after a 503
	lost      atomic.Int64 // requests sent again after a transport failure
	used      atomic.Int64 // a confirm resent after no answer, told the link was used: the first had applied
	left      atomic.Int64 // confirmations left waiting: the load stopped before their email came
}

type mailLink struct {
	token string
	at    time.Time
}

// newPeople are humans using the nodes at bases, reading the mail smtp
// received.
func newPeople(smtp *notifytest.SMTPServer, bases ...string) *people {
	return &people{smtp: smtp, bases: bases, links: map[string][]mailLink{}, asks: map[string]string{}}
}

// base is the node for the next request: each in turn.
func (p *people) base() string {
	return p.bases[int(p.next.Add(1)-1)%len(p.bases)]
}

// mailed is the one-tap links mailed to addr that arrived at since or
// later.
func (p *people) mailed(addr string, since time.Time) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	mails := p.smtp.Mails()
	for ; p.read < len(mails); p.read++ {
		m := mails[p.read]
		_, body, err := readMail(m.Data)
		if err != nil {
			continue
		}
		tok := oneTapLink.FindStringSubmatch(body)
		if tok == nil {
			continue
		}
		for _, to := range m.To {
			to = strings.ToLower(strings.Trim(to, "<>"))
			p.links[to] = append(p.links[to], mailLink{token: tok[1], at: m.AcceptedAt})
		}
	}
	var out []string
	for _, l := range p.links[strings.ToLower(addr)] {
		if !l.at.Before(since) {
			out = append(out, l.token)
		}
	}
	return out
}

var ( // csrfInput: pages_test.go
	hashInput    = regexp.MustCompile(`name="subject_hash" value="([^"]*)"`)
	decidedNote  = regexp.MustCompile(`data-result="([a-z]+)" data-state="([a-z]+)"`)
	refusedAlert = regexp.MustCompile(`data-refused>([^<]*)<`)
)

// page is a one-tap page as a person's browser (c, with its own cookie
// jar: the CSRF cookie) gets it, on whichever node answers: its form's
// hash and CSRF token, both "" when it has no form.
func (p *people) page(c *http.Client, token string, deadline time.Time) (hash, csrf string, err error) {
	for {
		req, _ := http.NewRequest("GET", p.base()+"/c/"+token, nil)
		status, body, err := p.send(c, req)
		switch {
		case errors.Is(err, errNoRetryAfter):
			return "", "", err
		case err == nil && status == http.StatusOK:
			h, k := hashInput.FindStringSubmatch(body), csrfInput.FindStringSubmatch(body)
			if h == nil || k == nil {
				return "", "", nil
			}
			return h[1], k[1], nil
		case err == nil && status != http.StatusServiceUnavailable:
			return "", "", fmt.Errorf("GET of a one-tap page: %d", status)
		case time.Now().After(deadline):
			return "", "", fmt.Errorf("GET of a one-tap page: no answer (%v, %d)", err, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

var errNoRetryAfter = errors.New("a 503 without Retry-After")

// send makes one request and reads its answer, counting a 503 or a
// transport failure as a request to send again.
func (p *people) send(c *http.Client, req *http.Request) (int, string, error) {
	resp, err := c.Do(req)
	if err != nil {
		p.lost.Add(1)
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		p.lost.Add(1)
		return 0, "", err
	}
	if resp.StatusCode == http.StatusServiceUnavailable {
		if resp.Header.Get("Retry-After") == "" {
			return resp.StatusCode, string(b), errNoRetryAfter
		}
		p.resent.Add(1)
	}
	return resp.StatusCode, string(b), nil
}

// confirmByMail is side r's human answering confirmation in.cid (asked for
// at asked) as a person does: the email that asks about these terms, its
// link opened, the form posted. Every post goes into the history as the
// pool's answers did (no answer: a 503 or a transport failure). When ctx
// ends before the email came, the confirmation is left waiting (its email
// must still come: l.pending).
func (l *crashLoad) confirmByMail(ctx context.Context, r *remote, in histIn, asked time.Time) error {
	p := l.people
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 20 * time.Second, Transport: transport,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	deadline := time.Now().Add(2 * time.Minute)
	var token, csrf string
	for token == "" {
		for _, tok := range p.mailed(r.email, asked) {
			p.mu.Lock()
			seen, ok := p.asks[tok]
			p.mu.Unlock()
			if ok && seen != in.hash {
				continue // another negotiation's
			}
			hash, k, err := p.page(c, tok, deadline)
			if err != nil {
				return err
			}
			p.mu.Lock()
			p.asks[tok] = hash
			p.mu.Unlock()
			if hash == in.hash && k != "" {
				token, csrf = tok, k
				break
			}
		}
		if token != "" {
			break
		}
		if ctx.Err() != nil {
			l.mu.Lock()
			l.pending = append(l.pending, in.cid)
			l.mu.Unlock()
			p.left.Add(1)
			return errStop
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no email asking %s to confirm %.20s came in 2 min", r.email, in.hash)
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.mu.Lock()
	p.waits = append(p.waits, time.Since(asked))
	p.mu.Unlock()

	form := url.Values{"_csrf": {csrf}, "subject_hash": {in.hash}, "answer": {"confirm"}}.Encode()
	client := r.slug + "-human"
	unanswered := false
	for {
		req, _ := http.NewRequest("POST", p.base()+"/c/"+token, strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		start := l.hist.now()
		status, body, err := p.send(c, req)
		if errors.Is(err, errNoRetryAfter) {
			return err
		}
		if err != nil || status == http.StatusServiceUnavailable {
			l.hist.add(client, in, start, unknown())
			unanswered = true
			if time.Now().After(deadline) {
				return fmt.Errorf("the one-tap confirm had no answer for 2 min (%v, %d)", err, status)
			}
			time.Sleep(100 * time.Millisecond)
			continue
		}
		if d := decidedNote.FindStringSubmatch(body); status == http.StatusOK && d != nil {
			l.hist.add(client, in, start, histOut{known: true, result: d[1], view: roomView{state: d[2]}})
			p.confirmed.Add(1)
			return nil
		}
		why := fmt.Sprintf("status %d", status)
		if m := refusedAlert.FindStringSubmatch(body); m != nil {
			why = m[1]
			l.hist.add(client, in, start, refusal(why))
		}
		if status == http.StatusConflict && unanswered {
			// The link was used: by the post that had no answer, which the
			// history lets apply (and checks that it may have).
			p.used.Add(1)
			p.confirmed.Add(1)
			return nil
		}
		return fmt.Errorf("the one-tap confirm was refused: %s", why)
	}
}

func (p *people) String() string {
	p.mu.Lock()
	waits := append([]time.Duration(nil), p.waits...)
	p.mu.Unlock()
	sort.Slice(waits, func(i, j int) bool { return waits[i] < waits[j] })
	median, worst := time.Duration(0), time.Duration(0)
	if len(waits) > 0 {
		median, worst = waits[len(waits)/2], waits[len(waits)-1]
	}
	return fmt.Sprintf("humans: %d confirmations through one-tap pages on %d nodes (email %s after the request at the median, %s at worst), "+
		"requests sent again: %d after a 503, %d after a transport failure; %d confirms told the link was used by their earlier attempt without an answer; "+
		"%d left waiting when the load stopped before their email came",
		p.confirmed.Load(), len(p.bases), median.Round(time.Millisecond), worst.Round(time.Millisecond), p.resent.Load(), p.lost.Load(), p.used.Load(), p.left.Load())
}
