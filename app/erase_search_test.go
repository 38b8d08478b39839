package app

import (
	"bytes"
	"encoding/base64"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

// The person whose erasure TestErasureSearched checks: every trace of
// them is one of these, distinctive enough to be found only where it was
// written.
const (
	zedEmail = "zed.quillfeather@erase.test"
	zedName  = "Zedediah Quillfeather"
	zedZone  = "Pacific/Chatham"
)

// zedWorld is everything a person leaves behind: needle name → the text
// written somewhere (their address, name, time zone, push endpoint and
// keys, one-tap token, agent key, OAuth tokens, webhook secret and URL,
// personal link, member invitation link).
type zedWorld struct {
	nb      *notifyBundle
	userID  int64
	ownerID int64 // alpha's owner
	needles map[string]string
	// unsubscribe is the List-Unsubscribe token of a mail to zed as the
	// person of beta's room; personRoom and personToken are that room and
	// beta's agent's token in it.
	unsubscribe, personToken string
	personRoom               int64
}

var (
	joinLink  = regexp.MustCompile(`http://127\.0\.0\.1:8080/join/([A-Za-z0-9_-]+)`)
	unsubLink = regexp.MustCompile(`/unsubscribe/([A-Za-z0-9_.-]+)`)
)

// newZed builds zed's life: invited to alpha by its owner and joined as
// an admin (signing in through OIDC with a name, language and zone);
// settings, two push devices, notification preferences; an agent with a
// key and one connected through OAuth (tokens stored); a webhook endpoint
// zed added; an invitation zed sent; a room of zed's agent with beta's,
// agreed (zed confirmed by a one-tap link mailed and pushed, so the room
// has a receipt naming zed); and a room beta's agent opened inviting zed's
// address, answered by zed in the browser (mails to the person: a delivery
// log of theirs, and a List-Unsubscribe link).
func newZed(t *testing.T) *zedWorld {
	t.Helper()
	nb := setupNotify(t)
	ctx := nb.ctx
	z := &zedWorld{nb: nb, needles: map[string]string{"address": zedEmail, "name": zedName, "zone": zedZone}}
	if err := nb.acc.UseTeams(TeamsConfig{River: nb.rooms.river, SealKey: bytes.Repeat([]byte{4}, 32), BaseURL: nb.rooms.baseURL, RoomTokenKey: nb.rooms.tokenKey}); err != nil {
		t.Fatal(err)
	}
	owner, err := nb.acc.UserByEmail(ctx, "alpha@example.test")
	if err != nil {
		t.Fatal(err)
	}
	z.ownerID = owner.ID
	if _, err := nb.acc.Invite(ctx, owner.ID, "alpha", zedEmail, MemberRoleAdmin); err != nil {
		t.Fatal(err)
	}
	invite := nb.mailTo(t, zedEmail, 1)
	m := joinLink.FindStringSubmatch(invite.Text)
	if m == nil {
		t.Fatalf("no join link in:\n%s", invite.Text)
	}
	z.needles["member invitation link"] = m[1]
	zed, err := nb.acc.LoginOIDC(ctx, OIDCIdentity{Issuer: "https://id.example", Subject: "sub-zed-7f3a", Email: zedEmail,
		EmailVerified: true, Name: zedName, Locale: "fr", ZoneInfo: zedZone})
	if err != nil {
		t.Fatal(err)
	}
	z.userID = zed.ID
	if _, err := nb.acc.AcceptInvitation(ctx, zed.ID, m[1]); err != nil {
		t.Fatal(err)
	}
	for _, browser := range []string{"Firefox", "Safari"} { // signed in on two browsers
		z.signIn(t, browser)
	}
	if err := nb.acc.SetUserTimeZone(ctx, zed.ID, zedZone); err != nil {
		t.Fatal(err)
	}
	if err := nb.svc.SetPrefs(ctx, zed.ID, NotifyPrefs{EmailRequests: true, EmailNotices: false, PushRequests: true, PushNotices: true}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"Zed's phone", "Zed's laptop"} {
		d := nb.subscribe(t, zedEmail, name)
		z.needles["push endpoint "+name] = d.Endpoint
		z.needles["push key "+name] = d.P256dh
		z.needles["push auth "+name] = d.Auth
	}

	agent, key, err := nb.acc.CreateAgent(ctx, "alpha", "zed-agent", zedEmail)
	if err != nil {
		t.Fatal(err)
	}
	z.needles["agent key"] = key.Key
	oauth := NewOAuth(nb.pool)
	client, err := oauth.SaveClient(ctx, OAuthClient{ID: "https://assistant.example/oauth/client.json", Kind: OAuthClientMetadataDocument,
		Name: "Assistant", RedirectURIs: []string{"https://assistant.example/callback"}})
	if err != nil {
		t.Fatal(err)
	}
	oagent, err := oauth.Connect(ctx, zed.ID, "alpha", client)
	if err != nil {
		t.Fatal(err)
	}
	for i, kind := range []OAuthTokenKind{OAuthAccess, OAuthRefresh} {
		sig := []string{"at-sig-zed-3kQ9xZ7vLmN2pR4tW6yB", "rt-sig-zed-5sU1wX3zA5cE7gI9kM1o"}[i]
		z.needles["oauth "+string(kind)] = sig
		if err := oauth.SaveToken(ctx, OAuthToken{Signature: sig, Kind: kind, RequestID: "req-zed-8f3b2c1d9e7a", AccountID: oagent.AccountID,
			AgentID: oagent.ID, ClientID: client.ID, Request: []byte(`{}`), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	z.needles["oauth request"] = "req-zed-8f3b2c1d9e7a"
	hook, secret, err := nb.hooks.CreateWebhook(ctx, zed.ID, "alpha", "https://hooks.example/zed-4e1b9c", []string{"room.agreed"})
	if err != nil {
		t.Fatal(err)
	}
	z.needles["webhook secret"] = secret
	z.needles["webhook url"] = hook.URL
	if _, err := nb.acc.Invite(ctx, zed.ID, "alpha", "colleague.of.zed@example.test", MemberRoleMember); err != nil {
		t.Fatal(err)
	}

	// A room of zed's agent, agreed: zed confirms through the one-tap
	// link their mail carries (and their devices were pushed).
	open, err := nb.rooms.Open(ctx, agent, OpenInput{Schema: meetingSchema, Subject: meeting(10, "20"), Title: "Zed's meeting"})
	if err != nil {
		t.Fatal(err)
	}
	j, err := nb.rooms.Join(ctx, nb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	v, err := nb.rooms.Read(ctx, nb.b, j.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	cb, _, err := nb.rooms.RequestConfirmation(ctx, nb.b, j.RoomToken, negotiation.VerdictApprove, hash)
	if err != nil {
		t.Fatal(err)
	}
	nb.confirm(t, nb.b, j.RoomToken, cb)
	if _, _, err := nb.rooms.RequestConfirmation(ctx, agent, open.RoomToken, negotiation.VerdictApprove, hash); err != nil {
		t.Fatal(err)
	}
	ask := nb.mailTo(t, zedEmail, 2)
	tap := oneTapLink.FindStringSubmatch(ask.Text)
	if tap == nil {
		t.Fatalf("no one-tap link in:\n%s", ask.Text)
	}
	z.needles["one-tap token"] = tap[1]
	if d, err := nb.rooms.DecideOneTap(ctx, tap[1], hash, true); err != nil || d.State != negotiation.StateAgreed {
		t.Fatalf("one-tap: %+v, %v", d, err)
	}

	// A room of zed's agent, open: leaving or being removed hands it over.
	still, err := nb.rooms.Open(ctx, agent, OpenInput{Schema: meetingSchema, Subject: meeting(12, "30"), Title: "Zed's open room"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nb.rooms.Join(ctx, nb.b, JoinInput{InviteCode: still.InviteCode, Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}

	// A room beta's agent opened inviting zed's address, answered by zed
	// in the browser.
	po, err := nb.rooms.Open(ctx, nb.b, OpenInput{Schema: meetingSchema, Subject: meeting(10, "20"), Title: "Beta asks", InviteEmail: zedEmail})
	if err != nil {
		t.Fatal(err)
	}
	res, err := nb.rooms.AnswerInvitation(ctx, po.InviteCode, PersonAnswer{Verdict: negotiation.VerdictCounter, Terms: meeting(11, "15"),
		Lang: "fr", Zone: zedZone})
	if err != nil {
		t.Fatal(err)
	}
	z.needles["personal link"] = res.SeatToken
	// Another, answered giving the address (written in capitals) at the join.
	given, err := nb.rooms.Open(ctx, nb.b, OpenInput{Schema: meetingSchema, Subject: meeting(9, "20"), Title: "Beta asks again"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := nb.rooms.AnswerInvitation(ctx, given.InviteCode, PersonAnswer{Verdict: negotiation.VerdictCounter, Terms: meeting(11, "15"),
		Email: strings.ToUpper(zedEmail)}); err != nil {
		t.Fatal(err)
	}
	z.personRoom, z.personToken = res.RoomID, po.RoomToken
	pv, err := nb.rooms.Read(ctx, nb.b, po.RoomToken)
	if err != nil {
		t.Fatal(err)
	}
	cv, _, err := nb.rooms.RequestConfirmation(ctx, nb.b, po.RoomToken, negotiation.VerdictApprove, pv.TermsOnTable.Options[0].SubjectHash)
	if err != nil {
		t.Fatal(err)
	}
	nb.confirm(t, nb.b, po.RoomToken, cv)
	turn := nb.mailWith(t, zedEmail, "À vous")
	u := unsubLink.FindStringSubmatch(turn.Header.Get("List-Unsubscribe"))
	if u == nil {
		t.Fatalf("no List-Unsubscribe in %v", turn.Header)
	}
	z.unsubscribe = u[1]
	nb.settle(t)

	// The search can fail: before any way out, what is stored as written
	// is found (the links, keys and one-tap tokens are stored hashed or
	// sealed: searched for all the same), and the webhook has a message.
	before := z.found(t)
	for name := range z.needles {
		switch name {
		case "agent key", "one-tap token", "member invitation link", "personal link", "webhook secret":
			continue
		}
		if len(before[name]) == 0 {
			t.Fatalf("before any way out, %s is found nowhere: %v", name, before)
		}
	}
	if !slices.Contains(before["name"], "receipts") {
		t.Fatalf("the agreed room's receipt does not name zed: %v", before["name"])
	}
	var messages int
	if err := nb.pool.QueryRow(ctx, `SELECT count(*) FROM webhook_messages`).Scan(&messages); err != nil || messages == 0 {
		t.Fatalf("no webhook message: %d %v", messages, err)
	}
	return z
}

// endPersonRoom has beta's human cancel the room zed answered as a person.
func (z *zedWorld) endPersonRoom(t *testing.T) {
	t.Helper()
	cv, _, err := z.nb.rooms.RequestConfirmation(z.nb.ctx, z.nb.b, z.personToken, negotiation.VerdictCancel, "")
	if err != nil {
		t.Fatal(err)
	}
	z.nb.confirm(t, z.nb.b, z.personToken, cv)
	z.nb.settle(t)
}

// found is, of each needle, the tables with a row whose text holds it (as
// text, or as bytea's hex): every column of every table of the database,
// River's jobs (arguments, errors) and the audit log included.
// signIn starts a session of zed's in browser, whose token's hash is
// searched for.
func (z *zedWorld) signIn(t *testing.T, browser string) {
	t.Helper()
	token, _, err := z.nb.acc.StartSession(z.nb.ctx, z.userID, SessionDevice{Browser: browser, Platform: "Linux"})
	if err != nil {
		t.Fatal(err)
	}
	z.needles["session "+browser] = sessionNeedle(token)
}

func (z *zedWorld) found(t *testing.T) map[string][]string {
	t.Helper()
	ctx := z.nb.ctx
	names := make([]string, 0, len(z.needles))
	texts := make([]string, 0, len(z.needles))
	for name, text := range z.needles {
		names, texts = append(names, name), append(texts, strings.ToLower(text))
	}
	out := tablesHolding(t, ctx, z.nb.pool, z.needles)
	// A receipt is a JWS: its payload is searched decoded too.
	rows, _ := z.nb.pool.Query(ctx, `SELECT jws FROM receipts`)
	jwss, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	for _, jws := range jwss {
		parts := strings.Split(jws, ".")
		payload, err := base64.RawURLEncoding.DecodeString(parts[1])
		if len(parts) != 3 || err != nil {
			t.Fatalf("a receipt that is no JWS: %v", err)
		}
		for i, text := range texts {
			if strings.Contains(strings.ToLower(string(payload)), text) {
				out[names[i]] = append(out[names[i]], "receipts")
			}
		}
	}
	return out
}

// TestErasureSearched: after each way a person goes, their address, name,
// zone, devices and secrets are searched for in every column of every
// table. What may stay is listed, each with why; anything else is a trace
// left behind.
func TestErasureSearched(t *testing.T) {
	// kept: "table needle" → why it stays.
	receipt := "the signed receipt of an agreed room names the human who confirmed by their identity provider's name (DESIGN §4, operations.md: the other side's proof, which no one can alter without breaking its signature)"
	audit := "the audit log of an account the person left is the account's record, with the address it held (operations.md, \"Deleting an account\")"
	invitations := "an account's invitations are its record of whom it invited, kept until the account is deleted (operations.md, \"Data kept\")"
	inviterLog := "the inviter's delivery log line of the invitation mail it sent (its own log, deleted after RETAIN_DELIVERY_LOG_DAYS)"
	hook := "the webhook endpoint is the account's, which its owners and admins manage"
	kept := map[string]string{
		"receipts name":                    receipt,
		"audit_log address":                audit,
		"account_invitations address":      invitations,
		"notification_deliveries address":  inviterLog,
		"webhook_endpoints webhook url":    hook,
		"webhook_endpoints webhook secret": hook,
		"audit_log webhook url":            audit,
		"person_seats zone":                "the zone the person's browser told, which their personal link's page and mails are written in: it names no one",
	}
	check := func(t *testing.T, z *zedWorld, kept map[string]string) {
		t.Helper()
		var left []string
		for needle, tables := range z.found(t) {
			for _, table := range tables {
				name, _, _ := strings.Cut(table, " (")
				_, ok := kept[table+" "+needle]
				if _, whole := kept[name+" "+needle]; !ok && !whole {
					left = append(left, needle+" in "+table)
				}
			}
		}
		// The delivery log lines kept are the inviters' of their mails to
		// zed: none is zed's own, or of another mail.
		var others int
		if err := z.nb.pool.QueryRow(z.nb.ctx, `SELECT count(*) FROM notification_deliveries WHERE user_id = $1
			OR (lower(recipient) = $2 AND topic NOT IN ($3, $4))`, z.userID, zedEmail, jobs.TopicInvite, jobs.TopicMemberInvite).Scan(&others); err != nil {
			t.Fatal(err)
		}
		if kept["users address"] == "" && others > 0 {
			t.Errorf("%d delivery log lines of zed's own stay", others)
		}
		sort.Strings(left)
		if len(left) > 0 {
			t.Errorf("left behind:\n%s", strings.Join(left, "\n"))
		}
	}

	t.Run("leave, then delete the profile", func(t *testing.T) {
		t.Parallel()
		z := newZed(t)
		if err := z.nb.acc.Leave(z.nb.ctx, z.userID, "alpha"); err != nil {
			t.Fatal(err)
		}
		z.signIn(t, "Edge") // signed in again, to delete the profile
		if err := z.nb.acc.DeleteProfile(z.nb.ctx, z.userID, zedEmail); err != nil {
			t.Fatal(err)
		}
		check(t, z, kept)
	})
	t.Run("removed, then delete the profile", func(t *testing.T) {
		t.Parallel()
		z := newZed(t)
		if err := z.nb.acc.RemoveMember(z.nb.ctx, z.ownerID, "alpha", z.userID); err != nil {
			t.Fatal(err)
		}
		z.signIn(t, "Edge") // signed in again, to delete the profile
		if err := z.nb.acc.DeleteProfile(z.nb.ctx, z.userID, zedEmail); err != nil {
			t.Fatal(err)
		}
		check(t, z, kept)
	})
	t.Run("the account deleted", func(t *testing.T) {
		t.Parallel()
		z := newZed(t)
		d, err := z.nb.rooms.DeleteAccountNow(z.nb.ctx, z.ownerID, "alpha", "alpha")
		if err != nil || d.UsersErased != 2 {
			t.Fatalf("%+v %v", d, err)
		}
		// The account's record went with it: only the other side's proof stays.
		check(t, z, map[string]string{"receipts name": receipt, "notification_deliveries address": inviterLog,
			"person_seats zone": kept["person_seats zone"]})
	})
	t.Run("the person unsubscribes, their room ends", func(t *testing.T) {
		t.Parallel()
		z := newZed(t)
		// Only the person: zed's account life is another subtest's.
		z.needles = map[string]string{"address": zedEmail, "personal link": z.needles["personal link"]}
		if _, err := z.nb.svc.UnsubscribePerson(z.nb.ctx, z.unsubscribe); err != nil {
			t.Fatal(err)
		}
		z.endPersonRoom(t)
		rows, _ := z.nb.pool.Query(z.nb.ctx, `SELECT room_id FROM parties WHERE lower(person_email) = $1`, zedEmail)
		seats, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil || len(seats) != 1 || seats[0] == z.personRoom {
			t.Fatalf("the seats with zed's address: %v %v, want only the other room's", seats, err)
		}
		check(t, z, map[string]string{
			"parties address": "the other room zed answered in the browser, asserted above: a List-Unsubscribe forgets the address of its own room",
			// zed as a user (another way out) is still there.
			"users address":                               "zed is also a member of alpha here: the other subtests erase that",
			"notification_deliveries address":             "zed's own delivery log as a member (the other subtests), and the inviter's line of the invitation mail: " + inviterLog,
			"audit_log address":                           audit,
			"account_invitations address":                 invitations,
			"river_job (member_invite completed) address": "the finished job of alpha's invitation mail to zed (a member: the other subtests)",
		})
	})
}
