package dashboard

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// TestDeleteProfilePage: a member's settings say to leave their account
// first and offer no form (a post anyway is refused there, naming the
// account); a person in no account sees the form; a wrong address is
// refused in the section, changing nothing; their address erases them,
// ends the session and says so, in their language.
func TestDeleteProfilePage(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.client(&b.alice)
	_, _, body := alice.get("/settings")
	if !strings.Contains(body, "leave it (or delete it") || strings.Contains(body, `action="/settings/profile/delete"`) {
		t.Fatalf("a member's settings:\n%s", body)
	}
	if st, _, body := alice.post("/settings/profile/delete", url.Values{"confirm": {b.alice.Email}}); st != http.StatusConflict ||
		!strings.Contains(html.UnescapeString(body), "you are a member of alpha; leave it, or delete it, first") {
		t.Fatalf("a member's post: %d %s", st, html.UnescapeString(body))
	}

	erin, err := b.accounts.LoginOIDC(b.ctx, app.OIDCIdentity{Issuer: "https://idp.example", Subject: "erin",
		Email: "erin@example.test", EmailVerified: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.SetUserLanguage(b.ctx, erin.ID, "fr"); err != nil {
		t.Fatal(err)
	}
	cl := b.client(&erin)
	_, _, body = cl.get("/settings")
	if !strings.Contains(body, `action="/settings/profile/delete"`) || !strings.Contains(body, "Supprimer mon profil") {
		t.Fatalf("erin's settings offer no deletion in French:\n%s", body)
	}
	if st, _, body := cl.post("/settings/profile/delete", url.Values{"confirm": {"alice@example.test"}}); st != http.StatusBadRequest ||
		!strings.Contains(html.UnescapeString(body), "saisissez votre adresse, erin@example.test, pour supprimer votre profil") ||
		!strings.Contains(body, `aria-invalid="true"`) {
		t.Fatalf("another address: %d %s", st, html.UnescapeString(body))
	}
	if _, err := b.accounts.UserByID(b.ctx, erin.ID); err != nil {
		t.Fatalf("a refusal erased erin: %v", err)
	}
	erinSession := cl.cookies[sessionCookie]
	st, loc, _ := cl.post("/settings/profile/delete", url.Values{"confirm": {"erin@example.test"}})
	if st != http.StatusSeeOther || loc != "/profile-deleted" {
		t.Fatalf("deleting: %d %q", st, loc)
	}
	if _, ok := cl.cookies[sessionCookie]; ok {
		t.Error("the session cookie is not cleared")
	}
	if _, err := b.accounts.UserByID(b.ctx, erin.ID); app.ErrorCodeOf(err) != app.ErrNotFound {
		t.Fatalf("erin after the deletion: %v", err)
	}
	cl.lang = "fr"
	if _, _, body := cl.get("/profile-deleted"); !strings.Contains(body, "Votre profil a été supprimé") {
		t.Fatalf("the page after:\n%s", body)
	}
	old := b.client(nil)
	old.cookies[sessionCookie] = erinSession
	if st, loc, _ := old.get("/settings"); st != http.StatusSeeOther || !strings.HasPrefix(loc, "/login") {
		t.Fatalf("erin's old session after the deletion: %d %q", st, loc)
	}
}

// TestRoomNoteOfAMemberWhoDeletedTheirProfile: the owners' timeline of a
// room handed over when mo was removed names mo by address; once mo
// deleted their profile, the note stays and names no one.
func TestRoomNoteOfAMemberWhoDeletedTheirProfile(t *testing.T) {
	t.Parallel()
	b := setup(t)
	mo, _, _, j := b.moJoinsForBeta(t)
	if err := b.accounts.RemoveMember(b.ctx, b.bob.ID, "beta", mo.ID); err != nil {
		t.Fatal(err)
	}
	bob := b.client(&b.bob)
	page := fmt.Sprintf("/rooms/%d", j.View.RoomID)
	if _, _, body := bob.get(page); !strings.Contains(body, "mo@example.test is no longer a member of the account") {
		t.Fatalf("the room after mo was removed:\n%s", body)
	}
	if err := b.accounts.DeleteProfile(b.ctx, mo.ID, "mo@example.test"); err != nil {
		t.Fatal(err)
	}
	_, _, body := bob.get(page)
	if strings.Contains(body, "mo@example.test") || !strings.Contains(body, "A member who has since deleted their profile is no longer a member of the account") {
		t.Fatalf("the room after mo deleted their profile:\n%s", body)
	}
}
