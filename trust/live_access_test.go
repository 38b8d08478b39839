package trust

import (
	"context"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestLiveStreamEndsAcrossNodes: a member of an account follows a room
// and her rooms list on one node; she is removed (by the operator's
// command, another process) and the agents go on moving through another
// node. Her streams end with "gone" (removed) as soon as the page node
// hears of the removal, not after their life (up to 45 s), telling her
// of the moves meanwhile. The binary, its migrations and its one
// listener, as deployed.
func TestLiveStreamEndsAcrossNodes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	pages, agents, w := dashboardNodes(t)
	a, b := newRemote(t, w, agents.base, "lossa"), newRemote(t, w, agents.base, "lossb")
	ctx := context.Background()
	open := a.must(t, "negotiation_open", map[string]any{"subject_schema": raceSchema, "subject": feeTerms(1)})
	tb := b.must(t, "negotiation_join", map[string]any{"invite_code": open.str("invite_code"), "subject_schema": raceSchema}).str("room_token")
	v, err := w.rooms.Read(ctx, a.agent, open.str("room_token"))
	if err != nil {
		t.Fatal(err)
	}
	const member = "lossm@example.test"
	if err := w.accounts.AddMemberAsOperator(ctx, "lossa", member, app.MemberRoleAdmin); err != nil {
		t.Fatal(err)
	}
	jar, _ := cookiejar.New(nil)
	signIn(t, jar, pages.base, member)
	person := &http.Client{Jar: jar, Transport: transport}
	room := followStream(t, person, fmt.Sprintf("%s/rooms/%d/events", pages.base, v.RoomID))
	list := followStream(t, person, pages.base+"/events")
	room.await("the room's stream opens", "open")
	list.await("the list's stream opens", "open")

	removed := time.Now()
	if err := w.accounts.RemoveMemberAsOperator(ctx, "lossa", member); err != nil {
		t.Fatal(err)
	}
	b.must(t, "negotiation_propose", map[string]any{"room_token": tb, "verdict": "counter", "subject": feeTerms(2)})
	for name, s := range map[string]*liveStream{"room": room, "rooms list": list} {
		deadline := time.After(20 * time.Second) // less than a stream's shortest life (30 s)
	wait:
		for {
			select {
			case ev := <-s.events:
				if strings.HasPrefix(ev, "gone ") {
					if !strings.Contains(ev, `"why":"removed"`) {
						t.Errorf("the %s's stream ended saying %s", name, ev)
					}
					t.Logf("the %s's stream ended %s after the removal was asked", name, time.Since(removed).Round(time.Millisecond))
					break wait
				}
			case <-deadline:
				t.Fatalf("the %s's stream still runs 20 s after the removal", name)
			}
		}
	}
}

// dashboardNodes starts two web processes on a database of their own,
// signing in through the test's issuer: one serving the pages (no
// worker), one the agents; and the database as the test sees it.
func dashboardNodes(t *testing.T) (pages, agents *process, w *world) {
	t.Helper()
	dsn := pgtest.NewDSN(t)
	issuer := newIssuer(t)
	env := []string{"OIDC_ISSUER=" + issuer.url, "OIDC_CLIENT_ID=dash", "OIDC_CLIENT_SECRET=dash-secret",
		"MCP_RATE_LIMIT=0", "COUNTER_COOLDOWN=0", "SHUTDOWN_GRACE=0"}
	pages, agents = newProcess(t, dsn, env...), newProcess(t, dsn, env...)
	pages.args = []string{"--worker=false"}
	issuer.serve(pages.base, agents.base)
	pages.start()
	agents.start()
	return pages, agents, newWorld(t, dsn, pages.base)
}

// must calls tool as r's agent and fails the test on any error.
func (r *remote) must(t *testing.T, tool string, args map[string]any) result {
	t.Helper()
	res, err := callOn(context.Background(), r.session(), tool, args)
	if err != nil || res.err != "" {
		t.Fatalf("%s %s: %v %s", r.slug, tool, err, res.err)
	}
	return res
}
