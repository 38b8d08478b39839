package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/ratelimit"
	"github.com/taasky/taasky/negotiation"
)

// TestMyDataDownloads: "Download my data" from the settings page (a POST
// with the session and its CSRF token) sends the signed-in person their
// own file, as an attachment; another member gets theirs, never the
// first's; no session, or no CSRF token, gets no file. A person's seat
// page posts theirs, through their personal link only; an unknown link is
// not found. Both spend the strangers' per-address bucket: past it, 429.
func TestMyDataDownloads(t *testing.T) {
	t.Parallel()
	clk := &testClock{t: time.Now()} // never moves: no token comes back
	b := setup(t, func(c *Config) { c.RateLimit = ratelimit.Limit{Rate: 1, Burst: 12}; c.Now = clk.now })
	_, _, roomID := b.joined("Lunch", nil, `{"fee":{"max":{"amount":"43.21","currency":"EUR"}}}`)

	alice := b.client(&b.alice)
	if st, _, body := alice.get("/settings"); st != 200 || !strings.Contains(body, `action="/settings/my-data"`) || !strings.Contains(body, "Download my data") {
		t.Fatalf("the settings page: %d\n%s", st, body)
	}
	st, _, body := alice.post("/settings/my-data", nil)
	var md app.MemberData
	if err := json.Unmarshal([]byte(body), &md); st != 200 || err != nil || md.Format != "taasky-my-data" || md.Kind != "member" ||
		md.Profile.Email != "alice@example.test" || len(md.Rooms) != 1 || md.Rooms[0].ID != roomID {
		t.Fatalf("alice's data: %d %v\n%s", st, err, body)
	}
	if cd := alice.header.Get("Content-Disposition"); cd != `attachment; filename="taasky-my-data.json"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	if strings.Contains(body, "43.21") {
		t.Errorf("alice's data holds beta's limit:\n%s", body)
	}
	carol := b.client(&b.carol)
	carol.get("/settings")
	st, _, body = carol.post("/settings/my-data", nil)
	if err := json.Unmarshal([]byte(body), &md); st != 200 || err != nil || md.Profile.Email != "carol@example.test" || len(md.Rooms) != 0 ||
		strings.Contains(body, "alice@") {
		t.Fatalf("carol's data: %d %v\n%s", st, err, body)
	}
	if st, _, body := b.client(nil).post("/settings/my-data", nil); st == 200 || strings.Contains(body, "alice@") {
		t.Fatalf("no session: %d\n%s", st, body)
	}
	forged := b.client(&b.alice)
	if st, _, body := forged.do(http.MethodPost, "/settings/my-data", url.Values{}); st != http.StatusForbidden || strings.Contains(body, `"format"`) {
		t.Fatalf("no CSRF token: %d\n%s", st, body)
	}

	// A person answers an invitation in the browser, giving an address.
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Subject: meeting(9, 10, "office", ""), Title: "Coffee",
		Limits: json.RawMessage(`{"fee":{"max":{"amount":"87.65","currency":"EUR"}}}`)})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := b.rooms.InvitationByCode(b.ctx, open.InviteCode, nil)
	if err != nil {
		t.Fatal(err)
	}
	dave := b.client(nil)
	dave.get("/i/" + open.InviteCode)
	st, loc, _ := dave.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {string(inv.Card.Options[0].SubjectHash)},
		"email": {"dave@home.test"}})
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/p/ps_") {
		t.Fatalf("the pick: %d %q", st, loc)
	}
	seat := strings.TrimSuffix(strings.TrimPrefix(loc, "/p/"), "?welcome=1")
	if st, _, body := dave.get("/p/" + seat); st != 200 || !strings.Contains(body, `action="/p/`+seat+`/my-data"`) {
		t.Fatalf("the seat page: %d\n%s", st, body)
	}
	st, _, body = dave.post("/p/"+seat+"/my-data", nil)
	var pd app.PersonData
	if err := json.Unmarshal([]byte(body), &pd); st != 200 || err != nil || pd.Kind != "person" || pd.Email != "dave@home.test" ||
		pd.Room.Side != negotiation.SideB || pd.Room.Title != "Coffee" {
		t.Fatalf("dave's data: %d %v\n%s", st, err, body)
	}
	for _, secret := range []string{"87.65", seat, open.RoomToken, open.InviteCode} {
		if strings.Contains(body, secret) {
			t.Errorf("dave's data holds %q:\n%s", secret, body)
		}
	}
	if cd := dave.header.Get("Content-Disposition"); !strings.HasPrefix(cd, `attachment; filename="taasky-my-data-room-`) {
		t.Errorf("Content-Disposition %q", cd)
	}
	if st, _, body := dave.post("/p/ps_"+strings.Repeat("x", 40)+"/my-data", nil); st != http.StatusNotFound || strings.Contains(body, "dave@") {
		t.Fatalf("an unknown link: %d\n%s", st, body)
	}

	// The bucket: the burst spent, the next download is refused.
	for i := 0; ; i++ {
		st, _, _ := alice.post("/settings/my-data", nil)
		if st == http.StatusTooManyRequests && alice.header.Get("Retry-After") != "" {
			break
		}
		if st != 200 || i == 12 {
			t.Fatalf("download %d past the others: %d", i+1, st)
		}
	}
}
