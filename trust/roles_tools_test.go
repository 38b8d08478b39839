package trust

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/dashboard"
)

// toolFixture is what TestRoleMatrix's tool rows act on: the seat of the
// seat's member's agent in a room where it is that agent's turn (its room
// token, the invitation code it took the seat with, the hash of the terms
// on the table), each member's agent key in the account, and what none but
// the seat's agent may read.
type toolFixture struct {
	slug      string
	other     *tenant
	keys      map[string]string // by person; the non-member has none
	members   []string
	seatToken string
	seatCode  string
	hash      string
	secrets   []string
}

// toolMatrix is the role matrix of the MCP tools: each of the seven tools,
// called by each person's agent in the account (or with no key, for the
// non-member, and with another account's key) on the seat of the seat's
// member's agent. An agent acts for its human, and a room token is its
// seat's capability: only the agents of the seat's human move in it (May
// answers a human's acts; a move for another member's seat is none of
// them); reading it through its token is what May lets the agent's human
// see (owners and admins see every room; a member their own), though no
// lead is owed the answer; an agent's list holds its own rooms only. A call
// that crosses those lines is refused, reads nothing of the seat (its
// room's title, terms and hash, its limit, the seat's tokens) and writes
// nothing (teamState). It returns the tries, the reads and the writes.
func toolMatrix(t *testing.T, s *stack, f toolFixture) (tries, reads, writes int) {
	t.Helper()
	seat := []string{"seat's member"}
	// Every agent opens and lists rooms of its own, the other account's on
	// its own URL too.
	own := append([]string{"other account (its own URL)"}, f.members...)
	// Who may read the seat's room through its token: the agents of those
	// May lets see a colleague's room.
	var readers []string
	for who, role := range map[string]app.MemberRole{"owner": app.MemberRoleOwner, "admin": app.MemberRoleAdmin, "member": app.MemberRoleMember} {
		if app.May(role, app.ActSeeRoom, app.Colleagues) {
			readers = append(readers, who)
		}
	}
	type toolRow struct {
		tool  string
		args  map[string]any
		must  []string // whose agent is answered
		may   []string // whose agent may be answered (and read), or refused
		write bool     // a call that changes the room: not made by those who must be answered
	}
	rows := []toolRow{
		{"negotiation_open", map[string]any{"subject_schema": raceSchema}, own, nil, true},
		// The seat's own agent joining again is answered with its seat.
		{"negotiation_join", map[string]any{"invite_code": f.seatCode, "subject_schema": raceSchema}, seat, nil, false},
		{"negotiation_join", map[string]any{"invite_url": s.base + "/i/" + f.seatCode, "subject_schema": raceSchema}, seat, nil, false},
		// Each agent's own rooms: answered for all, with none of the seat's
		// but for its own agent.
		{"negotiation_list", map[string]any{}, own, nil, false},
		{"negotiation_list", map[string]any{"room_tokens": []string{f.seatToken}}, seat, readers, false},
		{"negotiation_read", map[string]any{"room_token": f.seatToken}, seat, readers, false},
		{"negotiation_read", map[string]any{"room_token": f.seatToken, "wait_seconds": 1}, seat, readers, false},
		{"negotiation_propose", map[string]any{"room_token": f.seatToken, "verdict": "counter", "subject": feeTerms(5)}, seat, nil, true},
		{"negotiation_propose", map[string]any{"room_token": f.seatToken, "verdict": "need_more_detail", "fields": []string{"fee"}}, seat, nil, true},
		{"negotiation_respond", map[string]any{"room_token": f.seatToken, "verdict": "approve", "subject_hash": f.hash}, seat, nil, true},
		{"negotiation_respond", map[string]any{"room_token": f.seatToken, "verdict": "reject"}, seat, nil, true},
		{"negotiation_cancel", map[string]any{"room_token": f.seatToken}, seat, nil, true},
	}
	// Who calls, where, with which key.
	type caller struct {
		who, path, key string
		status         int // the HTTP status every call gets; 0: answered (200) by the tool
	}
	callers := []caller{
		{"owner", "/mcp/" + f.slug, f.keys["owner"], 0},
		{"admin", "/mcp/" + f.slug, f.keys["admin"], 0},
		{"seat's member", "/mcp/" + f.slug, f.keys["seat's member"], 0},
		{"member", "/mcp/" + f.slug, f.keys["member"], 0},
		{"non-member", "/mcp/" + f.slug, "", http.StatusUnauthorized},
		{"other account", "/mcp/" + f.slug, f.other.key, http.StatusNotFound},
		// The other account's agent on its own URL, with the seat's token
		// and code: not a room of its account.
		{"other account (its own URL)", "/mcp/" + f.other.slug, f.other.key, 0},
	}
	// The account's keys on the other account's URL.
	for _, who := range f.members {
		callers = append(callers, caller{who + "'s key on another account's URL", "/mcp/" + f.other.slug, f.keys[who], http.StatusNotFound})
	}
	before := s.teamState()
	for _, row := range rows {
		args, err := json.Marshal(row.args)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range callers {
			must, may := contains(row.must, c.who), contains(row.may, c.who)
			if must && row.write {
				continue // a move the seat's agent makes
			}
			tries++
			ans := s.rawPost(c.path, c.key, toolCall(row.tool, args), nil)
			what := row.tool + " " + string(args) + " as " + c.who
			switch {
			case ans.status >= 500:
				t.Errorf("%s: HTTP %d %s", what, ans.status, clipArgs(ans.body))
			case c.status != 0 && ans.status != c.status:
				t.Errorf("%s: HTTP %d, want %d: %s", what, ans.status, c.status, clipArgs(ans.body))
			case c.status == 0 && must && !ans.ok:
				t.Errorf("%s: refused, want an answer: %s", what, clipArgs(ans.msg))
			case !must && !may && ans.ok:
				t.Errorf("%s: answered, want a refusal: %s", what, clipArgs(ans.body))
			}
			if c.who != "seat's member" && !may {
				for _, sec := range f.secrets {
					if strings.Contains(ans.body, sec) && !strings.Contains(string(args), sec) {
						reads++
						t.Errorf("%s: read %q", what, sec)
					}
				}
			}
			if now := s.teamState(); now != before {
				writes++
				t.Errorf("%s changed what is stored", what)
				before = now
			}
		}
	}
	return tries, reads, writes
}

// notAccountRoutes are the dashboard's routes that are not rows of
// TestRoleMatrix, with why no line between the people of an account
// crosses them: each acts on the signed-in person's own things, or its
// capability is a secret in the path (tested by TestTenantIsolation,
// TestBadInputPages and their own tests), or it serves files.
var notAccountRoutes = map[string]string{
	"GET /static/:file":                  "files",
	"GET /sw.js":                         "a file",
	"GET /.well-known/jwks.json":         "the receipts' public keys",
	"GET /login":                         "signing in",
	"GET /auth/callback":                 "signing in",
	"POST /logout":                       "signing out oneself",
	"GET /signed-out":                    "a page for anyone",
	"GET /account-deleted":               "a page for anyone",
	"POST /settings/profile/delete":      "erasing oneself, only in no account (app TestDeleteProfile)",
	"GET /profile-deleted":               "a page for anyone",
	"GET /signup":                        "creating an account of one's own",
	"POST /signup":                       "creating an account of one's own",
	"GET /join/:token":                   "an invitation link: bound to the invited address (app TestInvitations)",
	"POST /join/:token":                  "an invitation link: bound to the invited address (app TestInvitations)",
	"GET /c/:token":                      "a one-tap link: its token is the capability",
	"POST /c/:token":                     "a one-tap link: its token is the capability",
	"GET /i/:code":                       "a room's invitation to a person: its code is the capability",
	"POST /i/:code":                      "a room's invitation to a person: its code is the capability",
	"GET /p/:token":                      "a person's seat: its token is the capability",
	"POST /p/:token":                     "a person's seat: its token is the capability",
	"GET /p/:token/events":               "a person's seat: its token is the capability",
	"GET /p/:token/receipt.jws":          "a person's seat: its token is the capability",
	"GET /p/:token/invite.ics":           "a person's seat: its token is the capability",
	"POST /p/:token/my-data":             "a person's seat: its token is the capability (app TestPersonData)",
	"POST /settings/my-data":             "the signed-in person's own data (app TestMemberData, dashboard TestMyDataDownloads)",
	"GET /unsubscribe/:token":            "an unsubscribe link: its token is the capability",
	"POST /unsubscribe/:token":           "an unsubscribe link: its token is the capability",
	"GET /refuse/:token":                 "a refusal link: its token is the capability",
	"POST /refuse/:token":                "a refusal link: its token is the capability",
	"GET /verify":                        "anyone checks a receipt",
	"POST /verify":                       "anyone checks a receipt",
	"POST /zone":                         "the browser's time zone, for the signed-in person",
	"POST /settings/timezone":            "the signed-in person's own setting",
	"POST /settings/language":            "the signed-in person's own setting",
	"POST /settings/notifications":       "the signed-in person's own setting",
	"POST /settings/push":                "the signed-in person's own devices",
	"POST /settings/push/remove":         "the signed-in person's own devices",
	"POST /settings/push/test":           "the signed-in person's own devices",
	"POST /settings/sessions/end":        "the signed-in person's own sessions (another person's is not found: app TestSessionsEndOneByOne)",
	"POST /settings/sessions/end-others": "the signed-in person's own sessions",
	"GET /oauth/authorize":               "the consent screen: lists the person's own accounts",
	"POST /oauth/authorize":              "the consent: an agent of the person's own, in an account chosen among their memberships (oauthserver Approve; another account posted: cmd/taasky TestOAuthAbuse)",
	"* " + dashboard.JobsUIPath:          "operators only",
	"* " + dashboard.JobsUIPath + "/*":   "operators only",
}

// checkEveryRoute fails for each route the dashboard mounts (with receipts
// and the jobs UI, which the stack's leaves out) that no row of the matrix
// (covered: method and path) reaches and notAccountRoutes does not name
// with a reason: a route added without a row fails here.
func checkEveryRoute(t *testing.T, s *stack, covered [][2]string) {
	t.Helper()
	keys, err := newReceiptKeys(s.base)
	if err != nil {
		t.Fatal(err)
	}
	d, err := dashboard.New(context.Background(), dashboard.Config{BaseURL: s.base, SessionKey: []byte(strings.Repeat("k", 32)),
		Rooms: s.rooms, Accounts: s.accounts, Receipts: keys, JobsUI: http.NotFoundHandler()})
	if err != nil {
		t.Fatal(err)
	}
	a := fiber.New()
	d.Mount(a)
	n, others := 0, 0
	for _, r := range a.GetRoutes(true) {
		if r.Method == fiber.MethodHead {
			continue // Fiber's own, beside each GET
		}
		if strings.HasPrefix(r.Path, dashboard.JobsUIPath) {
			if notAccountRoutes["* "+r.Path] == "" {
				t.Errorf("%s %s: neither a row of the role matrix nor a route outside the accounts' lines", r.Method, r.Path)
			}
			continue // one handler for every method: counted once below
		}
		n++
		if notAccountRoutes[r.Method+" "+r.Path] != "" {
			others++
			continue
		}
		found := false
		for _, c := range covered {
			if c[0] == r.Method && routeMatches(r.Path, c[1]) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s %s: neither a row of the role matrix nor a route outside the accounts' lines (notAccountRoutes)", r.Method, r.Path)
		}
	}
	t.Logf("role matrix: the dashboard mounts %d routes (and the jobs UI), %d rows of the matrix, %d outside an account's lines", n, n-others, others)
}

// routeMatches reports whether path (with its query, if any) is one that
// Fiber's pattern (":name" segments) routes.
func routeMatches(pattern, path string) bool {
	path, _, _ = strings.Cut(path, "?")
	ps, xs := strings.Split(pattern, "/"), strings.Split(path, "/")
	if len(ps) != len(xs) {
		return false
	}
	for i, p := range ps {
		if strings.HasPrefix(p, ":") {
			if xs[i] == "" {
				return false
			}
			continue
		}
		if p != xs[i] {
			return false
		}
	}
	return true
}
