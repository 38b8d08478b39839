package oauthserver

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/ory/fosite"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/taasky/taasky/internal/refusals"
)

// TestServerErrorIsNotARefusal: a request that failed inside Taasky
// (fosite's server_error: a token not signed or issued, whatever the
// cause, answered 500) is an ERROR line each time, not a refusal. Before,
// it was counted in taasky_requests_refused_total as the client's and
// logged at INFO, "oauth token refused", once per 10 s: an OAuth server
// failing every token request looked like clients sending bad ones, and
// an alert on ERROR lines saw nothing.
func TestServerErrorIsNotARefusal(t *testing.T) {
	var out bytes.Buffer
	refused := refusals.New(slog.New(slog.NewTextHandler(&out, nil)))
	s := &Server{log: slog.New(slog.NewTextHandler(&out, nil)), refused: refused}
	for range 3 {
		s.logRefusal(context.Background(), "token", fosite.ErrServerError.WithWrap(errors.New("the signing key could not be read")))
	}
	s.logRefusal(context.Background(), "token", fosite.ErrInvalidClient)
	if n := strings.Count(out.String(), "level=ERROR"); n != 3 || !strings.Contains(out.String(), "signing key") {
		t.Errorf("%d ERROR lines for 3 server errors:\n%s", n, out.String())
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(refused.Collector())
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "reason" && l.GetValue() != "invalid_client" {
					t.Errorf("counted as a refusal: %s %v", l.GetValue(), m.GetCounter().GetValue())
				}
			}
		}
	}
}
