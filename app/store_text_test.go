package app

import (
	"testing"
)

// TestLookupByUnstorableText: a key from outside that PostgreSQL's text
// cannot hold (a NUL, bytes that are not UTF-8) finds nothing, as any
// other unknown key: an account's slug (a resource's OAuth metadata), an
// OAuth client's id (the consent screen, revocation) and the confirmation
// a room page says was answered. Asked, PostgreSQL refused it with an
// error, which the doors logged and answered 500 or 503.
func TestLookupByUnstorableText(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	oauth := NewOAuth(rb.pool)
	ta, _ := rb.openJoined(t, OpenInput{Title: "asked"}, "")
	v, err := rb.rooms.Read(rb.ctx, rb.a, ta)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"a\x00b", "\xff\xfe", "alpha\x00"} {
		if ok, err := rb.acc.AccountExists(rb.ctx, key); ok || err != nil {
			t.Errorf("AccountExists(%q): %v %v", key, ok, err)
		}
		if _, err := rb.acc.AccountBySlug(rb.ctx, key); ErrorCodeOf(err) != ErrNotFound {
			t.Errorf("AccountBySlug(%q): %v", key, err)
		}
		if _, err := oauth.Client(rb.ctx, key); ErrorCodeOf(err) != ErrNotFound {
			t.Errorf("OAuth.Client(%q): %v", key, err)
		}
		h, err := rb.rooms.ForHuman(rb.ctx, rb.a.OwnerUserID, v.RoomID, "", key)
		if err != nil || h.Answered != nil {
			t.Errorf("ForHuman answered %q: %v", key, err)
		}
	}
}
