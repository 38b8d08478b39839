package app

import (
	"encoding/json"
	"testing"

	"github.com/taasky/taasky/negotiation"
)

// TestCloseAccountRooms: deleting alpha closes its live room and its
// draft with account_deleted (beta's side reads it, and is told by the
// closed notice), leaves the agreed room whole, and every room still
// replays (taasky check).
func TestCloseAccountRooms(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	_, liveB := rb.openJoined(t, OpenInput{}, "")
	draft, err := rb.rooms.Open(rb.ctx, rb.a, OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	tb := rb.openAgreed(t)
	if v, _ := rb.rooms.Read(rb.ctx, rb.b, tb); v.State != negotiation.StateAgreed {
		t.Fatalf("the third room: %s", v.State)
	}
	var jobsBefore int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM river_job WHERE args->>'topic' = 'closed'`).Scan(&jobsBefore); err != nil {
		t.Fatal(err)
	}

	n, err := rb.rooms.closeAccountRooms(rb.ctx, rb.a.AccountID)
	if err != nil || n != 2 {
		t.Fatalf("closed %d rooms, %v", n, err)
	}
	if v, err := rb.rooms.Read(rb.ctx, rb.b, liveB); err != nil || v.State != negotiation.StateClosed || v.ClosedReason != negotiation.ClosedAccountDeleted {
		t.Fatalf("the live room, as beta reads it: %+v %v", v, err)
	}
	if v, err := rb.rooms.Read(rb.ctx, rb.a, draft.RoomToken); err != nil || v.ClosedReason != negotiation.ClosedAccountDeleted {
		t.Fatalf("the draft: %+v %v", v, err)
	}
	if v, err := rb.rooms.Read(rb.ctx, rb.b, tb); err != nil || v.State != negotiation.StateAgreed || v.TermsOnTable == nil {
		t.Fatalf("the agreed room, as beta reads it: %+v %v", v, err)
	}
	var jobsAfter int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT count(*) FROM river_job WHERE args->>'topic' = 'closed'`).Scan(&jobsAfter); err != nil {
		t.Fatal(err)
	}
	if jobsAfter <= jobsBefore {
		t.Fatalf("no closed notice was queued (%d, then %d)", jobsBefore, jobsAfter)
	}
	if n, err := rb.rooms.closeAccountRooms(rb.ctx, rb.a.AccountID); err != nil || n != 0 {
		t.Fatalf("again: closed %d, %v", n, err)
	}
	rb.checkClean(t)
}

// TestDeleteAccount: a wrong slug, an admin, a member and a stranger are
// refused and change nothing; the owner's deletion closes alpha's open
// rooms with account_deleted (beta is told, alpha's people are not),
// leaves beta's copy of every room whole and readable (the agreed one and
// one where no deal was possible included), refuses alpha's keys at once,
// erases the people who belong to no other account and keeps the one who
// does, and every room still replays.
func TestDeleteAccount(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx, acc := rb.ctx, rb.acc
	for _, m := range []struct{ email, role string }{{"adm@example.test", "admin"}, {"mem@example.test", "member"}, {"both@example.test", "member"}} {
		if err := acc.AddMemberAsOperator(ctx, "alpha", m.email, MemberRole(m.role)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := acc.CreateAccount(ctx, "gamma", "Gamma", "both@example.test"); err != nil {
		t.Fatal(err)
	}
	userID := func(email string) int64 {
		t.Helper()
		u, err := acc.UserByEmail(ctx, email)
		if err != nil {
			t.Fatalf("%s: %v", email, err)
		}
		return u.ID
	}
	owner, admin, member, both, betaOwner := userID("alpha@example.test"), userID("adm@example.test"),
		userID("mem@example.test"), userID("both@example.test"), userID("beta@example.test")
	key, err := acc.IssueAgentKey(ctx, "alpha", rb.a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acc.AuthenticateAgentKey(ctx, key.Key); err != nil { // now kept in the process's cache
		t.Fatal(err)
	}

	// Rooms: a live one alpha opened, one beta opened and alpha joined, a
	// draft of alpha's, an agreed one, and one where no deal is possible.
	_, liveB := rb.openJoined(t, OpenInput{}, "")
	byBeta, err := rb.rooms.Open(ctx, rb.b, OpenInput{Schema: meetingSchema, Title: "Beta's"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rb.rooms.Join(ctx, rb.a, JoinInput{InviteCode: byBeta.InviteCode, Schema: meetingSchema}); err != nil {
		t.Fatal(err)
	}
	draftA, err := rb.rooms.Open(ctx, rb.a, OpenInput{Schema: meetingSchema})
	if err != nil {
		t.Fatal(err)
	}
	agreedB := rb.openAgreed(t)
	_, noDealB := rb.openJoined(t, OpenInput{Limits: json.RawMessage(`{"fee":{"max":{"amount":"4321.00","currency":"EUR"}}}`)},
		`{"fee":{"min":{"amount":"8765.00","currency":"EUR"}}}`)
	agreedBefore, err := rb.rooms.Read(ctx, rb.b, agreedB)
	if err != nil || agreedBefore.State != negotiation.StateAgreed {
		t.Fatalf("agreed room: %+v %v", agreedBefore, err)
	}
	snapshot := func() string {
		t.Helper()
		var s string
		if err := rb.pool.QueryRow(ctx, `SELECT concat_ws('|', (SELECT count(*) FROM accounts), (SELECT count(*) FROM users),
			(SELECT count(*) FROM agent_keys WHERE revoked_at IS NULL), (SELECT count(*) FROM parties WHERE owner_user_id IS NOT NULL),
			(SELECT string_agg(state || coalesce(closed_reason, ''), ',' ORDER BY id) FROM rooms),
			(SELECT count(*) FROM user_sessions))`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	before := snapshot()

	for _, c := range []struct {
		who         int64
		typed, want string
		code        ErrorCode
	}{
		{owner, "Alpha", "confirm: type the account's slug, alpha, exactly as it is written, to delete the account", ErrInvalid},
		{owner, "", "confirm: type the account's slug, alpha, exactly as it is written, to delete the account", ErrInvalid},
		{admin, "alpha", "account: only the account's owners delete it", ErrUnauthorized},
		{member, "alpha", "account: only the account's owners delete it", ErrUnauthorized},
		{betaOwner, "alpha", `account: you are not a member of "alpha"`, ErrNotFound},
	} {
		_, err := rb.rooms.DeleteAccountNow(ctx, c.who, "alpha", c.typed)
		if ErrorCodeOf(err) != c.code || ErrorMessageOf(err) != c.want {
			t.Errorf("user %d typing %q: %v, want %s %q", c.who, c.typed, err, c.code, c.want)
		}
	}
	if got := snapshot(); got != before {
		t.Fatalf("a refused deletion changed something:\n%s\n%s", before, got)
	}
	if _, err := acc.AuthenticateAgentKey(ctx, key.Key); err != nil {
		t.Fatalf("a refused deletion revoked the key: %v", err)
	}

	var lastJob int64
	if err := rb.pool.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM river_job`).Scan(&lastJob); err != nil {
		t.Fatal(err)
	}
	got, err := rb.rooms.DeleteAccountNow(ctx, owner, "alpha", "alpha")
	if err != nil {
		t.Fatal(err)
	}
	if got.RoomsClosed != 4 || got.KeysRevoked != 2 || got.UsersErased != 3 || !got.ActorErased || got.Name != "ALPHA" {
		t.Fatalf("deleted: %+v", got)
	}
	if _, err := acc.AuthenticateAgentKey(ctx, key.Key); ErrorCodeOf(err) != ErrUnauthorized {
		t.Fatalf("alpha's key after the deletion: %v", err)
	}
	for _, email := range []string{"alpha@example.test", "adm@example.test", "mem@example.test"} {
		if _, err := acc.UserByEmail(ctx, email); ErrorCodeOf(err) != ErrNotFound {
			t.Errorf("%s was not erased: %v", email, err)
		}
	}
	if u, err := acc.UserByEmail(ctx, "both@example.test"); err != nil || u.ID != both {
		t.Errorf("both@, a member of gamma, was erased: %v", err)
	}
	if _, err := acc.Membership(ctx, both, "gamma"); err != nil {
		t.Errorf("both@ lost gamma: %v", err)
	}
	var left int
	if err := rb.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM accounts WHERE slug = 'alpha') + (SELECT count(*) FROM audit_log a
		WHERE NOT EXISTS (SELECT 1 FROM accounts x WHERE x.id = a.account_id)) + (SELECT count(*) FROM agents WHERE account_id = $1)
		+ (SELECT count(*) FROM parties WHERE account_id = $1 AND (octet_length(limits_enc) > 0 OR owner_user_id IS NOT NULL OR agent_id IS NOT NULL))
		+ (SELECT count(*) FROM party_ranks WHERE account_id = $1)`, rb.a.AccountID).Scan(&left); err != nil || left != 0 {
		t.Fatalf("%d rows of alpha's are left (%v)", left, err)
	}
	// Only beta's people were told the rooms closed.
	var toldAlpha, toldBeta int
	if err := rb.pool.QueryRow(ctx, `SELECT count(*) FILTER (WHERE (args->>'user_id')::bigint <> $2),
		count(*) FILTER (WHERE (args->>'user_id')::bigint = $2)
		FROM river_job WHERE id > $1 AND args->>'topic' = 'closed'`, lastJob, betaOwner).Scan(&toldAlpha, &toldBeta); err != nil {
		t.Fatal(err)
	}
	if toldAlpha != 0 || toldBeta != 3 { // the draft had nobody across
		t.Fatalf("closed notices: %d to alpha's people, %d to beta's (want 0 and 3)", toldAlpha, toldBeta)
	}

	for _, tok := range []string{liveB, noDealB} {
		v, err := rb.rooms.Read(ctx, rb.b, tok)
		if err != nil || v.State != negotiation.StateClosed || v.ClosedReason != negotiation.ClosedAccountDeleted {
			t.Fatalf("a live room, as beta reads it: %+v %v", v, err)
		}
	}
	if v, err := rb.rooms.Read(ctx, rb.b, byBeta.RoomToken); err != nil || v.ClosedReason != negotiation.ClosedAccountDeleted || v.Title != "Beta's" {
		t.Fatalf("beta's own room: %+v %v", v, err)
	}
	agreedAfter, err := rb.rooms.Read(ctx, rb.b, agreedB)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, agreedBefore), mustJSON(t, agreedAfter); a != b {
		t.Fatalf("beta's agreed room changed:\n%s\n%s", a, b)
	}
	h, err := rb.rooms.ForHuman(ctx, betaOwner, agreedAfter.RoomID, "", "")
	if err != nil || !h.ThemDeleted || h.Them != "" || h.Card == nil {
		t.Fatalf("beta's human's page of the agreed room: %+v %v", h, err)
	}
	// A person holding the draft's invitation sees it closed, from "a
	// deleted account"; beta's list still holds every room it sat in.
	if inv, err := rb.rooms.InvitationByCode(ctx, draftA.InviteCode, nil); err != nil || !inv.InviterDeleted || inv.Open {
		t.Fatalf("the draft's invitation: %+v %v", inv, err)
	}
	if list, _, err := rb.rooms.ListForHuman(ctx, betaOwner, FilterAll, ""); err != nil || len(list) != 4 {
		t.Fatalf("beta's list: %d rooms, %v", len(list), err)
	}
	rb.checkClean(t)
}

// openAgreed opens a room by a, joins it by b, and has both humans agree
// on a's offer; it returns b's room token.
func (rb *roomsBundle) openAgreed(t *testing.T) string {
	t.Helper()
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	v, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")})
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	for _, side := range []struct {
		ag  Agent
		tok string
	}{{rb.b, tb}, {rb.a, ta}} {
		cv, _, err := rb.rooms.RequestConfirmation(rb.ctx, side.ag, side.tok, negotiation.VerdictApprove, hash)
		if err != nil {
			t.Fatal(err)
		}
		rb.confirm(t, side.ag, side.tok, cv)
	}
	return tb
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
