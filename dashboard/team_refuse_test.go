package dashboard

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

// TestMemberInvitationRefused: a member invitation mail carries the link
// (and List-Unsubscribe) that refuses every further invitation from
// Taasky, as a room invitation's does; a one-click POST to it refuses.
// A mail queued to an address that refused is skipped, with the reason in
// the inviter's delivery log in their language, and inviting that address
// again from the members page is refused at once with one line.
func TestMemberInvitationRefused(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, "fr"); err != nil {
		t.Fatal(err)
	}
	// Two invitations queued before any worker runs; sam refuses (by the
	// link a room invitation carries) before his is sent.
	for _, to := range []string{"sam@example.test", "pat@example.test"} {
		if _, err := b.accounts.Invite(b.ctx, b.alice.ID, "alpha", to, app.MemberRoleMember); err != nil {
			t.Fatal(err)
		}
	}
	stranger := b.client(nil)
	samLink := strings.TrimPrefix(b.notify.RefuseInvitationsURL("sam@example.test"), b.base)
	if st, _, body := stranger.do(http.MethodPost, samLink, url.Values{"List-Unsubscribe": {"One-Click"}}); st != 200 ||
		!strings.Contains(body, "data-refused-invitations") {
		t.Fatalf("sam's refusal: %d\n%s", st, body)
	}
	smtp := b.inviteMails(t)
	for i := 0; i < 200 && len(smtp.Mails()) < 1; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	mails := smtp.Mails()
	if len(mails) != 1 || mails[0].To[0] != "pat@example.test" {
		var to []string
		for _, m := range mails {
			to = append(to, m.To...)
		}
		t.Fatalf("mails to %v; want pat's only", to)
	}
	p, _ := joinLinkIn(t, mails[0])
	refuse := b.notify.RefuseInvitationsURL("pat@example.test")
	if got := p.Header.Get("List-Unsubscribe"); got != "<"+refuse+">" {
		t.Fatalf("List-Unsubscribe: %q, want <%s>", got, refuse)
	}
	if !strings.Contains(p.Text, refuse) || !strings.Contains(p.HTML, `href="`+refuse+`"`) {
		t.Fatalf("no refusal link in the mail:\n%s\n%s", p.Text, p.HTML)
	}
	// A mail client's one-click POST to the header's link.
	if st, _, body := stranger.do(http.MethodPost, strings.TrimPrefix(refuse, b.base), url.Values{"List-Unsubscribe": {"One-Click"}}); st != 200 ||
		!strings.Contains(body, "data-refused-invitations") {
		t.Fatalf("pat's one-click refusal: %d\n%s", st, body)
	}
	// sam's mail is skipped, and alice's log says why, in French.
	alice := b.client(&b.alice)
	var body string
	for i := 0; i < 200; i++ {
		if _, _, body = alice.get("/settings/deliveries"); strings.Contains(body, "l’adresse refuse les invitations de Taasky") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(body, "l’adresse refuse les invitations de Taasky") || !strings.Contains(body, "sam@example.test") {
		t.Fatalf("alice's delivery log does not say why sam's mail was skipped:\n%s", body)
	}
	// Inviting pat again (whatever the case) is refused at once, with one line.
	alice.get("/accounts/alpha/members")
	st, _, body := alice.post("/accounts/alpha/invitations", url.Values{"email": {"Pat@Example.test"}, "role": {"member"}})
	if st != http.StatusConflict || !strings.Contains(body, "e-mail : cette adresse n’accepte pas les invitations de Taasky") {
		t.Fatalf("inviting a refused address: %d\n%s", st, body)
	}
	pending, err := b.accounts.Invitations(b.ctx, b.alice.ID, "alpha")
	if err != nil {
		t.Fatal(err)
	} else if len(pending) != 2 {
		t.Fatalf("%d invitations, want the first 2 only", len(pending))
	}
	// Nor is a pending invitation to pat sent again.
	for _, inv := range pending {
		if inv.Email != "pat@example.test" {
			continue
		}
		alice.get("/accounts/alpha/members")
		st, _, body := alice.post("/accounts/alpha/invitations/"+strconv.FormatInt(inv.ID, 10)+"/resend", nil)
		if st != http.StatusConflict || !strings.Contains(body, "e-mail : cette adresse n’accepte pas les invitations de Taasky") {
			t.Fatalf("sending pat's invitation again: %d\n%s", st, body)
		}
	}
	time.Sleep(300 * time.Millisecond)
	if n := len(smtp.Mails()); n != 1 {
		t.Fatalf("%d mails, want 1", n)
	}
}
