package dashboard

import (
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestCardSaysWhichOptionIsAsked: asked to approve one of several
// options, the human reads which one on the one-tap page and the room
// page, in words (a border alone says nothing to a screen reader, nor to
// anyone who does not know what it means): the option their yes binds.
func TestCardSaysWhichOptionIsAsked(t *testing.T) {
	t.Parallel()
	b := setup(t)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: meetingSchema,
		Options: []json.RawMessage{meeting(10, 9, "office", ""), meeting(11, 9, "video", ""), meeting(12, 9, "office", "")}})
	if err != nil {
		t.Fatal(err)
	}
	j, err := b.rooms.Join(b.ctx, b.beta, app.JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	asked := j.View.TermsOnTable.Options[1].SubjectHash
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.beta, j.RoomToken, "approve", asked)
	if err != nil {
		t.Fatal(err)
	}
	token, err := b.rooms.IssueOneTap(b.ctx, b.pool, j.View.RoomID, cv.ID, "email")
	if err != nil {
		t.Fatal(err)
	}
	option := regexp.MustCompile(`(?s)<article class="option[^"]*" data-hash="([^"]+)".*?</article>`)
	const words = "The one you are asked to approve"
	for _, page := range []struct {
		who  *client
		path string
	}{{b.client(nil), "/c/" + token}, {b.client(&b.bob), "/rooms/" + strconv.FormatInt(j.View.RoomID, 10)}} {
		st, _, body := page.who.get(page.path)
		if st != 200 {
			t.Fatalf("%s: %d", page.path, st)
		}
		found := 0
		for _, m := range option.FindAllStringSubmatch(body, -1) {
			says := regexp.MustCompile(regexp.QuoteMeta(words)).MatchString(m[0])
			if says != (m[1] == string(asked)) {
				t.Errorf("%s: option %s says it is asked: %v", page.path, m[1], says)
			}
			found++
		}
		if found != 3 {
			t.Errorf("%s: %d options on the card", page.path, found)
		}
	}
}
