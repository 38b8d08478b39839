package dashboard

import (
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

// seatOf opens a slots room by alpha, has a stranger pick its first slot
// in the browser, and returns the stranger's personal token.
func (b *bundle) seatOf(t *testing.T, title string) string {
	t.Helper()
	slots := []json.RawMessage{json.RawMessage(`{"start":"2026-12-07T08:00:00Z","end":"2026-12-07T08:30:00Z"}`)}
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Slots: slots, Title: title})
	if err != nil {
		t.Fatal(err)
	}
	pat := b.client(nil)
	_, _, body := pat.get("/i/" + open.InviteCode)
	hash := regexp.MustCompile(`name="subject_hash" value="([^"]+)"`).FindStringSubmatch(body)
	if hash == nil {
		t.Fatalf("invitation page: %s", body)
	}
	st, loc, _ := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {hash[1]}})
	if st != http.StatusSeeOther || !strings.HasPrefix(loc, "/p/ps_") {
		t.Fatalf("pick: %d %q", st, loc)
	}
	return strings.TrimSuffix(strings.TrimPrefix(loc, "/p/"), "?welcome=1")
}

// TestSeatStreamsCappedPerSeat: a person's seat (its /p/ link, whoever
// holds it) has at most maxSeatStreams live streams open at once in a
// process; one more ends the oldest (which says to ask again in a
// minute), and only while as many are told to end and not yet closed is
// one more answered 429 with Retry-After and a page saying why (app.js
// then waits, as for a member's refused stream). Another seat, and a
// member's streams, are not held back. Before, only the strangers'
// per-address limit bounded them.
func TestSeatStreamsCappedPerSeat(t *testing.T) {
	t.Parallel()
	b := setup(t)
	seat, other := b.seatOf(t, "Capped seat"), b.seatOf(t, "Other seat")
	path := "/p/" + seat + "/events"
	var held []liveConn
	for i := range maxSeatStreams {
		s := b.openLive(t, b.bob, path)
		if !strings.HasPrefix(s.head, "HTTP/1.1 200") {
			t.Fatalf("stream %d of %d refused:\n%s", i+1, maxSeatStreams, s.head)
		}
		held = append(held, s)
	}
	if s := b.openLive(t, b.bob, path); !strings.HasPrefix(s.head, "HTTP/1.1 200") {
		t.Fatalf("one stream past the seat's cap:\n%s", s.head)
	}
	held[0].evicted(t)
	for b.seatStreamsOpen() > maxSeatStreams {
		time.Sleep(20 * time.Millisecond) // polling for the ended stream's place
	}
	if s := b.openLive(t, b.bob, "/p/"+other+"/events"); !strings.HasPrefix(s.head, "HTTP/1.1 200") {
		t.Errorf("another seat's stream:\n%s", s.head)
	}
	if s := b.openLive(t, b.alice, "/events"); !strings.HasPrefix(s.head, "HTTP/1.1 200") {
		t.Errorf("a member's stream:\n%s", s.head)
	}
	// Past the cap while as many streams are told to end and not yet
	// closed: a third seat's places held by hand, those told to end never
	// closing.
	third := b.seatOf(t, "Third seat")
	path = "/p/" + third + "/events"
	roomID, err := b.rooms.PersonRoomID(b.ctx, third)
	if err != nil {
		t.Fatal(err)
	}
	var places []func()
	for range 2 * maxSeatStreams {
		release, _, _ := b.dash.seatStreams.open(roomID, maxSeatStreams)
		places = append(places, release)
	}
	defer func() {
		for _, release := range places {
			release()
		}
	}()
	s := b.openLive(t, b.bob, path)
	if !strings.HasPrefix(s.head, "HTTP/1.1 429") || !strings.Contains(s.head, "Retry-After: 60") {
		t.Fatalf("one stream past the seat's cap, as many told to end:\n%s", s.head)
	}
	st, _, body := b.client(nil).get(path)
	if want := "This room&#39;s personal link has 20 live pages open at once, the most it may"; st != http.StatusTooManyRequests || !strings.Contains(body, want) {
		t.Errorf("the refusal's page: %d, want %q in\n%s", st, want, body)
	}
}

// seatStreamsOpen counts the seats' open streams, all seats together.
func (b *bundle) seatStreamsOpen() (n int) {
	b.dash.seatStreams.mu.Lock()
	defer b.dash.seatStreams.mu.Unlock()
	for _, h := range b.dash.seatStreams.per {
		n += len(h.open) + h.ending
	}
	return n
}
