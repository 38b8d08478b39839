package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
)

var (
	csrfField = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)
	hashField = regexp.MustCompile(`name="subject_hash" value="([^"]*)"`)
)

// confirm waits for the confirmation request mailed to email after asked,
// opens its one-tap link (GET changes nothing) and confirms (POST), as a
// human tapping the link would.
func (p *Pair) confirm(ctx context.Context, email string, asked time.Time) error {
	if p.seen == nil {
		p.seen = map[string]int{}
	}
	mail, i, err := p.Sink.WaitFor(email, p.seen[email], func(b []byte) bool { return OneTapURL(b) != "" }, 30*time.Second)
	if err != nil {
		return fmt.Errorf("the confirmation request to %s never arrived: %w", email, err)
	}
	p.seen[email] = i + 1
	p.Lat.Add("confirmation_request_to_smtp", mail.Accepted.Sub(asked))
	link := OneTapURL(mail.Data)
	page, err := p.get(ctx, link)
	if err != nil {
		return err
	}
	csrf, hash := csrfField.FindStringSubmatch(page), hashField.FindStringSubmatch(page)
	if csrf == nil || hash == nil {
		return fmt.Errorf("the one-tap page has no form to confirm with")
	}
	form := url.Values{"_csrf": {csrf[1]}, "subject_hash": {hash[1]}, "answer": {"confirm"}}
	req, _ := http.NewRequestWithContext(ctx, "POST", link, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, body, err := p.do(req, "onetap_post")
	if err != nil {
		return err
	}
	if resp.StatusCode != 200 || !strings.Contains(string(body), `data-result="applied"`) {
		return fmt.Errorf("the one-tap confirm answered %d", resp.StatusCode)
	}
	return nil
}

func (p *Pair) get(ctx context.Context, link string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", link, nil)
	resp, b, err := p.do(req, "onetap_get")
	if err != nil {
		return "", err
	}
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("GET %s: %d", link, resp.StatusCode)
	}
	return string(b), nil
}

// do sends a human's request through a client slot, timed under name.
func (p *Pair) do(req *http.Request, name string) (*http.Response, []byte, error) {
	p.clients.enter()
	defer p.clients.leave()
	start := time.Now()
	resp, err := p.Web.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	p.Lat.Add(name, time.Since(start))
	return resp, b, err
}
