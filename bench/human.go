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
	start := time.Now()
	page, err := p.get(ctx, link)
	p.Lat.Add("onetap_get", time.Since(start))
	if err != nil {
		return err
	}
	csrf, hash := csrfField.FindStringSubmatch(page), hashField.FindStringSubmatch(page)
	if csrf == nil || hash == nil {
		return fmt.Errorf("the one-tap page has no form to confirm with")
	}
	form := url.Values{"_csrf": {csrf[1]}, "subject_hash": {hash[1]}, "answer": {"confirm"}}
	start = time.Now()
	req, _ := http.NewRequestWithContext(ctx, "POST", link, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := p.Web.Do(req)
	p.Lat.Add("onetap_post", time.Since(start))
	if err != nil {
		return err
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `data-result="applied"`) {
		return fmt.Errorf("the one-tap confirm answered %d", resp.StatusCode)
	}
	return nil
}

func (p *Pair) get(ctx context.Context, link string) (string, error) {
	req, _ := http.NewRequestWithContext(ctx, "GET", link, nil)
	resp, err := p.Web.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		return "", fmt.Errorf("GET %s: %d", link, resp.StatusCode)
	}
	return string(b), err
}
