package dashboard

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestCardListsRepeatedValues: a repeated field's values are listed one
// an item on the card (one-tap page, room page), so that one value
// "logo; website" reads apart from two, "logo" and "website": other terms,
// another subject_hash, once written alike, joined by "; ".
func TestCardListsRepeatedValues(t *testing.T) {
	t.Parallel()
	b := setup(t)
	schema := json.RawMessage(`{"items":{"type":"string","label":"Deliverables","repeated":true},"days":{"type":"int","label":"Days","repeated":true}}`)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: schema,
		Subject: json.RawMessage(`{"items":["logo; website","print"],"days":[3,4]}`)})
	if err != nil {
		t.Fatal(err)
	}
	j, err := b.rooms.Join(b.ctx, b.beta, app.JoinInput{InviteCode: open.InviteCode, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	cv, _, err := b.rooms.RequestConfirmation(b.ctx, b.beta, j.RoomToken, "approve", j.View.TermsOnTable.Options[0].SubjectHash)
	if err != nil {
		t.Fatal(err)
	}
	token, err := b.rooms.IssueOneTap(b.ctx, b.pool, j.View.RoomID, cv.ID, "email")
	if err != nil {
		t.Fatal(err)
	}
	item := regexp.MustCompile(`<li>(?:<span class="their-words">)?([^<]*)`)
	field := func(body, name string) []string {
		m := regexp.MustCompile(`(?s)data-field="` + name + `">.*?</dd>`).FindString(body)
		var out []string
		for _, it := range item.FindAllStringSubmatch(m, -1) {
			out = append(out, it[1])
		}
		return out
	}
	for _, page := range []struct {
		who  *client
		path string
	}{{b.client(nil), "/c/" + token}, {b.client(&b.bob), "/rooms/" + strconv.FormatInt(j.View.RoomID, 10)}} {
		st, _, body := page.who.get(page.path)
		if st != 200 {
			t.Fatalf("%s: %d", page.path, st)
		}
		if got := field(body, "items"); !slices.Equal(got, []string{"logo; website", "print"}) {
			t.Errorf("%s: deliverables listed as %q", page.path, got)
		}
		if got := field(body, "days"); !slices.Equal(got, []string{"3", "4"}) {
			t.Errorf("%s: days listed as %q", page.path, got)
		}
	}
}
