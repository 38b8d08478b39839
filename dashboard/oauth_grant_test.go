package dashboard

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

// oauthConnected is an authorization server with one connection, which
// the test changes between requests.
type oauthConnected struct {
	oauthOffered
	conn *atomic.Pointer[app.OAuthConnection]
}

func (o oauthConnected) Connections(context.Context, string) ([]app.OAuthConnection, error) {
	return []app.OAuthConnection{*o.conn.Load()}, nil
}

// TestSettingsSayWhenAGrantEnds: an agent connected with OAuth says when
// its grant ends (its consent plus OAUTH_GRANT_MAX_DAYS), after which its
// assistant must ask again; a disconnected one says nothing of it.
func TestSettingsSayWhenAGrantEnds(t *testing.T) {
	t.Parallel()
	var shown atomic.Pointer[app.OAuthConnection]
	b := setup(t, func(c *Config) { c.OAuth, c.OAuthGrantMax = oauthConnected{conn: &shown}, 90*24*time.Hour })
	conn := app.OAuthConnection{AccountID: b.alpha.AccountID, AgentID: b.alpha.ID, ClientID: "tsc_a",
		ClientName: "Assistant", UserID: b.alice.ID, ConnectedAt: time.Date(2026, 1, 10, 12, 0, 0, 0, time.UTC)}
	shown.Store(&conn)
	alice := b.client(&b.alice)
	const ends = "access ends Fri 10 Apr 2026, 12:00 (UTC); then the assistant must ask you again"
	if st, _, body := alice.get("/settings"); st != http.StatusOK || !strings.Contains(body, ends) {
		t.Errorf("settings: %d, lack %q in\n%s", st, ends, body)
	}
	gone := conn.ConnectedAt.Add(time.Hour)
	gone2 := conn
	gone2.DisconnectedAt = &gone
	shown.Store(&gone2)
	if st, _, body := alice.get("/settings"); st != http.StatusOK || strings.Contains(body, "access ends") {
		t.Errorf("settings of a disconnected agent: %d, say when its grant ends", st)
	}
}
