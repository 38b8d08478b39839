package dashboard

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

var memberRowAttr = regexp.MustCompile(`data-member="([^"]+)"`)
var moreMembers = regexp.MustCompile(`href="(/accounts/alpha/members\?cursor=[^"]+)" data-more-members`)

// TestMembersPaged: the members page holds a page of members and offers
// the next, not the whole account: an account of three hundred members
// sent a 300 kB page of forms, growing with each one. Following the pages
// from the first shows every member once, owners first; the last page
// offers no more. A member whose row is on a later page can still leave
// from the first. A cursor the list never gave is refused with the rule.
func TestMembersPaged(t *testing.T) {
	t.Parallel()
	b := setup(t)
	const others = 2*app.MembersPageSize + 7
	if _, err := b.pool.Exec(b.ctx, `WITH u AS (INSERT INTO users (email) SELECT 'm'||lpad(g::text, 3, '0')||'@example.test'
		FROM generate_series(1, $2::int) g RETURNING id)
		INSERT INTO memberships (account_id, user_id, role) SELECT $1, id, 'member' FROM u`, b.alphaAccount.ID, others); err != nil {
		t.Fatal(err)
	}
	var last app.User
	if err := b.pool.QueryRow(b.ctx, `SELECT id, email FROM users WHERE email = 'm107@example.test'`).Scan(&last.ID, &last.Email); err != nil {
		t.Fatal(err)
	}

	alice := b.client(&b.alice)
	seen := map[string]bool{}
	var order []string
	path, pages := "/accounts/alpha/members", 0
	for path != "" {
		st, _, body := alice.get(path)
		if st != http.StatusOK {
			t.Fatalf("%s: %d", path, st)
		}
		pages++
		rows := memberRowAttr.FindAllStringSubmatch(body, -1)
		if len(rows) > app.MembersPageSize {
			t.Fatalf("page %d holds %d members, more than a page (%d)", pages, len(rows), app.MembersPageSize)
		}
		for _, r := range rows {
			if seen[r[1]] {
				t.Fatalf("%s is on two pages", r[1])
			}
			seen[r[1]] = true
			order = append(order, r[1])
		}
		path = ""
		if m := moreMembers.FindStringSubmatch(body); m != nil {
			path = strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	if pages != 3 || len(seen) != others+1 || order[0] != b.alice.Email || order[len(order)-1] != last.Email {
		t.Fatalf("%d pages showed %d members (want 3 and %d), first %s, last %s", pages, len(seen), others+1, order[0], order[len(order)-1])
	}

	st, _, body := b.client(&last).get("/accounts/alpha/members")
	if st != http.StatusOK || strings.Contains(body, `data-member="`+last.Email+`"`) || !strings.Contains(body, "data-leave") {
		t.Fatalf("a member on the last page, on the first: %d, leave offered %v", st, strings.Contains(body, "data-leave"))
	}

	st, _, body = alice.get("/accounts/alpha/members?cursor=7:nobody")
	if st != http.StatusBadRequest || !strings.Contains(body, "cursor: not one this list of members gave") {
		t.Fatalf("a cursor the list never gave: %d %.300s", st, body)
	}
}
