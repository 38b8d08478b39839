package app

import "testing"

// TestInviteURLWithQueryOrFragment: an invite URL a mail client or chat
// decorated with a query string or a fragment still names its code
// (inviteCodeFrom), and the service joins it; anything else is as before.
func TestInviteURLWithQueryOrFragment(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"ABCDEF":                             "abcdef",
		" https://taasky.example/i/ABCDEF/ ": "abcdef",
		"https://taasky.example/i/abcdef?utm_source=x":   "abcdef",
		"https://taasky.example/i/abcdef/?x=1":           "abcdef",
		"https://taasky.example/i/abcdef#x":              "abcdef",
		"https://taasky.example/i/abcdef?x=1#frag":       "abcdef",
		"https://taasky.example/i/abcdef#frag?x=1":       "abcdef",
		"https://taasky.example/base/i/abcdef?x=/i/evil": "abcdef",
		"https://taasky.example/i/?x=1":                  "",
	} {
		if got := inviteCodeFrom(in); got != want {
			t.Errorf("inviteCodeFrom(%q) = %q, want %q", in, got, want)
		}
	}

	rb := setupRooms(t)
	for _, suffix := range []string{"?utm_source=mail", "#join"} {
		open, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema})
		if err != nil {
			t.Fatal(err)
		}
		if inv, err := rb.rooms.InvitationByCode(rb.ctx, open.InviteURL+suffix, nil); err != nil || inv == nil {
			t.Errorf("the invitation page of %s%s: %v", open.InviteURL, suffix, err)
		}
		if _, err := rb.rooms.Join(rb.ctx, rb.b, JoinInput{InviteCode: open.InviteURL + suffix, Schema: meetingSchema}); err != nil {
			t.Errorf("join %s%s: %v", open.InviteURL, suffix, err)
		}
	}
}
