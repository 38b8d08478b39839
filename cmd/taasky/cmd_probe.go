package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// runProbe is `taasky probe --url URL`: a GET that succeeds only on 200, for a
// container healthcheck in an image without a shell or curl.
func runProbe(ctx context.Context, args []string, stdout io.Writer) error {
	cmd := newCommand("probe", "Fetches --url and exits 0 if it answers 200 within 3 s.", stdout)
	target := cmd.String("url", "", "what to fetch, e.g. http://127.0.0.1:8080/readyz")
	if err := cmd.parse(args, "url"); err != nil {
		return err
	}
	u, err := url.Parse(*target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return cmd.fail("--url must be an absolute http(s) URL, e.g. http://127.0.0.1:8080/readyz")
	}
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("probe: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("probe: %s answered %d %s", u, resp.StatusCode, body)
	}
	_, err = fmt.Fprintf(stdout, "%s", body)
	return err
}
