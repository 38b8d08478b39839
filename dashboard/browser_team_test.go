package dashboard

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// signInTyping signs a person in through the development provider's form,
// typing their address (the provider offers only owners' addresses).
func (br *browser) signInTyping(ctx context.Context, from, email string) {
	br.do(ctx, "sign in as "+email,
		chromedp.Navigate(br.b.base+from),
		chromedp.WaitVisible(chromedp.CSS(`#email`)),
		chromedp.SetValue(chromedp.CSS(`#email`), email),
		chromedp.Click(chromedp.CSS(`form:last-of-type button`)),
		chromedp.WaitVisible(chromedp.CSS(`nav a[href="/settings"]`)),
	)
}

// TestBrowserTeams: a newcomer signs up and lands on the first steps with
// the MCP URL, which an assistant that supports MCP authorization needs
// alone; invites a colleague, whose mail (read from the SMTP
// server) holds the link; a person signed in with another address is
// refused and the link still works; the colleague signs in with the
// invited address and joins; the owner makes them admin, then removes
// them, which signs them out at once; she exports the account, and
// deletes it (a wrong slug first), and, in no other account, starts again
// from sign-up.
func TestBrowserTeams(t *testing.T) {
	b := setup(t, withOAuth)
	smtp := b.inviteMails(t)
	br := newBrowser(t, b)

	nina := br.tab()
	br.signInTyping(nina, "/login?next=/", "nina@example.test")
	br.do(nina, "the rooms page offers sign-up", chromedp.WaitVisible(chromedp.CSS(`[data-no-account] a[href="/signup"]`)),
		chromedp.Click(chromedp.CSS(`[data-no-account] a[href="/signup"]`)), chromedp.WaitVisible(chromedp.CSS(`form[data-signup]`)))
	// A reserved address first: refused, with the field and the rule.
	br.do(nina, "sign up with a reserved slug",
		chromedp.SetValue(chromedp.CSS(`#signup-name`), "Nina Studio"),
		chromedp.SetValue(chromedp.CSS(`#signup-slug`), "admin"),
		chromedp.Click(chromedp.CSS(`form[data-signup] button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(`p.error`)))
	if s := br.text(nina, "p.error"); s != `address: "admin" is a word Taasky keeps for itself; choose another` {
		t.Fatalf("reserved slug: %q", s)
	}
	br.do(nina, "sign up", chromedp.Evaluate[chromedp.Void](`document.querySelector('#signup-slug').value = ''`),
		chromedp.Click(chromedp.CSS(`form[data-signup] button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-mcp-url]`)))
	br.shot(nina, "first-steps")
	if s := br.text(nina, "[data-mcp-url]"); s != b.base+"/mcp/nina-studio" {
		t.Fatalf("the first steps' MCP URL: %q", s)
	}
	if s := br.text(nina, "[data-connect-oauth]"); !strings.HasPrefix(s, "Claude, ChatGPT, VS Code, Cursor and the other assistants that support MCP authorization need only this URL") ||
		!strings.HasSuffix(s, b.base+"/mcp works too: you then pick the account when you approve.") {
		t.Fatalf("the first steps' connect with OAuth: %q", s)
	}

	br.do(nina, "invite omar", chromedp.Click(chromedp.CSS(`a[href="/accounts/nina-studio/members"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form[data-invite]`)),
		chromedp.SetValue(chromedp.CSS(`#invite-email`), "omar@example.test"),
		chromedp.Click(chromedp.CSS(`form[data-invite] button.primary`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-invitation="omar@example.test"][data-status="pending"]`)))
	br.shot(nina, "members-invited")
	mails := smtp.Wait(t, 1, 15*time.Second)
	mail, link := joinLinkIn(t, mails[0])
	if mails[0].To[0] != "omar@example.test" || mail.Subject != "nina@example.test invites you to join Nina Studio on Taasky" ||
		!strings.Contains(mail.Text, "as member") {
		t.Fatalf("the invitation mail to %v: %q\n%s", mails[0].To, mail.Subject, mail.Text)
	}

	// The mail is a line of nina's delivery log, sent once the server took it.
	for try := 0; ; try++ {
		br.do(nina, "nina's delivery log", chromedp.Navigate(b.base+"/settings/deliveries"), chromedp.WaitVisible(chromedp.CSS(`h1`)))
		c, cancel := context.WithTimeout(nina, 5*time.Second)
		line, err := chromedp.Run(c, chromedp.Evaluate[string](`(document.querySelector('tr[data-status="sent"]') || {}).innerText || ''`))
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if line != "" {
			if !strings.Contains(line, "invitation to join the account") || !strings.Contains(line, "omar@example.test") {
				t.Fatalf("the delivery log's line: %q", line)
			}
			break
		}
		if try == 100 {
			t.Fatal("the invitation mail's line never said sent")
		}
	}

	// Someone else opens the link: refused up front, with the reason, and
	// no button to press.
	pia := br.tab()
	br.signInTyping(pia, "/login?next=/", "pia@example.test")
	br.do(pia, "pia opens the link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`p.error`)))
	if s := br.text(pia, "p.error"); !strings.Contains(s, "this invitation is for another address than pia@example.test") {
		t.Fatalf("the wrong address: %q", s)
	}
	if n, err := chromedp.Run(pia, chromedp.Evaluate[int](`document.querySelectorAll('form[data-join]').length`)); err != nil || n != 0 {
		t.Fatalf("pia is offered %d join forms (%v)", n, err)
	}

	// Omar opens it signed out, signs in with the invited address, joins.
	omar := br.tab()
	br.do(omar, "omar opens the link", chromedp.Navigate(link), chromedp.WaitVisible(chromedp.CSS(`a[href^="/login?next=/join/"]`)))
	br.shot(omar, "join-signed-out")
	br.do(omar, "omar signs in from the invitation", chromedp.Click(chromedp.CSS(`a[href^="/login?next=/join/"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#email`)), chromedp.SetValue(chromedp.CSS(`#email`), "omar@example.test"),
		chromedp.Click(chromedp.CSS(`form:last-of-type button`)), chromedp.WaitVisible(chromedp.CSS(`form[data-join]`)),
		chromedp.Click(chromedp.CSS(`form[data-join] button`)), chromedp.WaitVisible(chromedp.CSS(`[data-mcp-url]`)))

	// The owner makes omar admin, then removes him.
	br.do(nina, "make omar admin", chromedp.Navigate(b.base+"/accounts/nina-studio/members"),
		chromedp.WaitVisible(chromedp.CSS(`[data-member="omar@example.test"][data-role="member"]`)),
		chromedp.SetValue(chromedp.CSS(`[data-member="omar@example.test"] select`), "admin"),
		chromedp.Click(chromedp.CSS(`[data-change-role="omar@example.test"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-member="omar@example.test"][data-role="admin"]`)))
	br.shot(nina, "members-roles")
	br.do(omar, "omar sees the account's members", chromedp.Navigate(b.base+"/accounts/nina-studio/members"),
		chromedp.WaitVisible(chromedp.CSS(`form[data-invite]`)))
	br.do(nina, "remove omar", chromedp.Click(chromedp.CSS(`[data-remove="omar@example.test"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`[data-member="omar@example.test"]`)))
	if s := br.text(nina, "p.notice"); !strings.HasPrefix(s, "The member was removed") {
		t.Fatalf("after the removal: %q", s)
	}
	if n := len(br.b.mustMembers("nina-studio")); n != 1 {
		t.Fatalf("%d members after the removal", n)
	}
	br.do(omar, "omar is signed out", chromedp.Navigate(b.base+"/accounts/nina-studio/members"),
		chromedp.WaitVisible(chromedp.CSS(`#email`)))

	// Nina exports the account (the settings page's own form, posted as
	// the browser posts it), then deletes it: a wrong slug first.
	br.do(nina, "the settings page", chromedp.Navigate(b.base+"/accounts/nina-studio/settings"),
		chromedp.WaitVisible(chromedp.CSS(`form[data-export]`)), chromedp.WaitVisible(chromedp.CSS(`[data-delete-account]`)))
	head, disposition, body := br.postForm(nina, "form[data-export]")
	var ex struct {
		Account  string `json:"account"`
		AuditLog []struct {
			Action string `json:"action"`
		} `json:"audit_log"`
	}
	if err := json.Unmarshal([]byte(body), &ex); head != "200" || err != nil || disposition != `attachment; filename="taasky-nina-studio-export.json"` ||
		ex.Account != "nina-studio" || len(ex.AuditLog) < 4 {
		t.Fatalf("the export: %s %s %v\n%s", head, disposition, err, body)
	}
	br.do(nina, "delete with a wrong slug", chromedp.SetValue(chromedp.CSS(`#delete-confirm`), "Nina Studio"),
		chromedp.Click(chromedp.CSS(`[data-delete-account] button.danger`)), chromedp.WaitVisible(chromedp.CSS(`#delete-error`)))
	if s := br.text(nina, "#delete-error"); s != "confirm: type the account's slug, nina-studio, exactly as it is written, to delete the account" {
		t.Fatalf("a wrong slug: %q", s)
	}
	br.shot(nina, "account-delete-refused")
	br.do(nina, "delete the account", chromedp.SetValue(chromedp.CSS(`#delete-confirm`), "nina-studio"),
		chromedp.Click(chromedp.CSS(`[data-delete-account] button.danger`)), chromedp.WaitVisible(chromedp.CSS(`[data-account-deleted]`)))
	br.shot(nina, "account-deleted")
	br.b.workDeletions(t)
	br.b.waitAccountGone(t, "nina-studio")
	if n := len(br.b.mustMembers("nina-studio")); n != 0 {
		t.Fatalf("%d members after the deletion", n)
	}
	// Nina belonged to no other account: she starts again from sign-up.
	br.do(nina, "nina starts again", chromedp.Click(chromedp.CSS(`[data-account-deleted] a[data-signup]`)),
		chromedp.WaitVisible(chromedp.CSS(`#email`)), chromedp.SetValue(chromedp.CSS(`#email`), "nina@example.test"),
		chromedp.Click(chromedp.CSS(`form:last-of-type button`)), chromedp.WaitVisible(chromedp.CSS(`form[data-signup]`)))
}

// mustMembers lists an account's members as its first owner sees them.
func (b *bundle) mustMembers(slug string) []string {
	b.t.Helper()
	var out []string
	rows, err := b.pool.Query(b.ctx, `SELECT u.email FROM memberships m JOIN users u ON u.id = m.user_id JOIN accounts a ON a.id = m.account_id WHERE a.slug = $1`, slug)
	if err != nil {
		b.t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var e string
		if err := rows.Scan(&e); err != nil {
			b.t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}
