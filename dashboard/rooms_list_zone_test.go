package dashboard

import (
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestRoomsListMomentsInTheReadersZone: the rooms list's countdowns carry
// the moment they count to (their title, read on hover and by screen
// readers) in the reader's zone, named, as every page writes moments; it
// was an ISO moment in UTC.
func TestRoomsListMomentsInTheReadersZone(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserTimeZone(b.ctx, b.alice.ID, "Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	b.joined("Joined room", nil, "")
	b.askedBeta("Asked room", 9)
	if _, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema, Title: "Nobody joined"}); err != nil {
		t.Fatal(err)
	}
	st, _, body := b.client(&b.alice).get("/")
	if st != 200 {
		t.Fatalf("rooms list: %d", st)
	}
	titles := regexp.MustCompile(`<time datetime="[^"]+" title="([^"]*)"`).FindAllStringSubmatch(body, -1)
	if len(titles) != 3 {
		t.Fatalf("%d countdowns:\n%s", len(titles), body)
	}
	for _, m := range titles {
		if !strings.Contains(m[1], "(Asia/Tokyo)") {
			t.Errorf("a countdown's moment: %q", m[1])
		}
	}
}
