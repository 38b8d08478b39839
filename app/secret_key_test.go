package app

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-jose/go-jose/v4"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/receipt"
)

// rotationKeys are the derived keys of two SECRET_KEYs, A (the
// installation's until now: roomsBundle's) and B (the new one).
var (
	limitsA, tokenA, invitesA, checkA = bytes.Repeat([]byte{7}, 32), bytes.Repeat([]byte{9}, 32), bytes.Repeat([]byte{4}, 32), bytes.Repeat([]byte{5}, 32)
	limitsB, tokenB, invitesB, checkB = bytes.Repeat([]byte{17}, 32), bytes.Repeat([]byte{19}, 32), bytes.Repeat([]byte{14}, 32), bytes.Repeat([]byte{15}, 32)
	macA, macB                        = bytes.Repeat([]byte{6}, 32), bytes.Repeat([]byte{16}, 32)
)

// roomsUnder is the rooms service of rb's database under other keys, as a
// process started with another SECRET_KEY (previous nil: none) builds it.
func roomsUnder(t *testing.T, rb *roomsBundle, limits, token, prevLimits, prevToken []byte, retired [][]byte) *Rooms {
	t.Helper()
	cfg := rb.cfg
	cfg.LimitsKey, cfg.TokenKey, cfg.PreviousLimitsKey, cfg.PreviousTokenKey, cfg.RetiredEmailKeys = limits, token, prevLimits, prevToken, retired
	r, err := NewRooms(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	return r
}

// TestRotateSecretKey: under key A, a room opened and joined with limits,
// a webhook's secrets, an invitation's code in its pending job, a member
// invitation's link in its job, a person seated in the browser (their
// personal link sealed) and an address that refused invitations. With B
// alone (what an installation starting over had) the limits no longer
// open. With B and A as the previous key, everything made under A still
// reads, moves and is found by A's tokens, and a retried join or person's
// answer gets its seat's token of A; then RotateSecretKey seals it all
// again under B in batches (a second run changes nothing), gives the
// agents' seats B's room tokens (A's still find them while A is the
// previous key) and records B's fingerprint; with B alone, everything
// opens, the refusal holds, the new tokens work and A's no longer do. A
// second rotation, B to C, keeps the refusal keyed under A.
func TestRotateSecretKey(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	if err := CheckSecretKey(ctx, rb.pool, checkA, nil); err != nil {
		t.Fatal(err)
	}
	opened, err := rb.rooms.Open(ctx, rb.a, OpenInput{Schema: meetingSchema, Limits: json.RawMessage(`{"fee":{"max":{"amount":"120.00","currency":"EUR"}}}`),
		InviteEmail: "guest@example.test"})
	if err != nil {
		t.Fatal(err)
	}
	join := JoinInput{InviteCode: opened.InviteCode, Schema: meetingSchema, Limits: json.RawMessage(`{"fee":{"min":{"amount":"80.00","currency":"EUR"}}}`)}
	joined, err := rb.rooms.Join(ctx, rb.b, join)
	if err != nil {
		t.Fatal(err)
	}
	ta, tb := opened.RoomToken, joined.RoomToken
	hooks := NewWebhooks(WebhooksConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms, BaseURL: rb.rooms.baseURL})
	if _, _, err := hooks.CreateWebhook(ctx, rb.a.OwnerUserID, "alpha", "https://hooks.example/rotation", []string{"room.agreed"}); err != nil {
		t.Fatal(err)
	}
	if err := rb.acc.UseTeams(TeamsConfig{River: rb.rooms.river, SealKey: invitesA, BaseURL: rb.rooms.baseURL, RoomTokenKey: tokenA}); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.acc.Invite(ctx, rb.a.OwnerUserID, "alpha", "colleague@example.test", MemberRoleMember); err != nil {
		t.Fatal(err)
	}
	if err := insertInviteRefusal(ctx, rb.pool, emailHash(rb.rooms.emailKey, "refuser@example.test"), rb.rooms.now()); err != nil {
		t.Fatal(err)
	}
	// A person seated in the browser: their personal link sealed.
	slots := []json.RawMessage{json.RawMessage(`{"start":"2026-10-14T09:00:00+02:00","end":"2026-10-14T09:30:00+02:00"}`)}
	personRoom, err := rb.rooms.Open(ctx, rb.a, OpenInput{Slots: slots, Title: "Coffee?"})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := rb.rooms.InvitationByCode(ctx, personRoom.InviteCode, nil)
	if err != nil {
		t.Fatal(err)
	}
	answer := PersonAnswer{Verdict: "approve", Hash: inv.Card.Options[0].SubjectHash, Email: "pat@example.test", Nonce: NewSeatNonce()}
	person, err := rb.rooms.AnswerInvitation(ctx, personRoom.InviteCode, answer)
	if err != nil {
		t.Fatal(err)
	}
	offer := func(r *Rooms, token string, hour int) error {
		_, err := r.Propose(ctx, rb.a, token, MoveInput{Verdict: "offer", Subject: meeting(hour, "100.00")})
		return err
	}
	refused := func(r *Rooms, email string) bool {
		t.Helper()
		ok, err := selectInviteRefused(ctx, rb.pool, emailHashes(r.emailKey, email))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}

	// What an installation starting over with B had: the limits are lost.
	if err := offer(roomsUnder(t, rb, limitsB, tokenB, nil, nil, nil), ta, 9); err == nil || !strings.Contains(err.Error(), "can no longer be read or moved") {
		t.Fatalf("a move under B alone: %v, want the room sealed under another key", err)
	}

	// The rotation: B, with A previous.
	rot := roomsUnder(t, rb, limitsB, tokenB, limitsA, tokenA, nil)
	if err := CheckSecretKey(ctx, rb.pool, checkB, checkA); err != nil {
		t.Fatalf("key check during the rotation: %v", err)
	}
	if err := offer(rot, ta, 10); err != nil {
		t.Fatalf("a move with A's token under B, A previous: %v", err)
	}
	if v, err := rot.Read(ctx, rb.b, tb); err != nil || len(v.Rounds) != 1 {
		t.Fatalf("a read with A's token under B, A previous: %v", err)
	}
	// b joins again (a retry): answered with its seat's token of A.
	if again, err := rot.Join(ctx, rb.b, join); err != nil || again.RoomToken != tb {
		t.Errorf("a retried join during the rotation: %v (A's token: %v)", err, err == nil && again.RoomToken == tb)
	}
	// The person's page sends its answer again (a retry): answered with
	// the seat its nonce gave under A.
	if again, err := rot.AnswerInvitation(ctx, personRoom.InviteCode, answer); err != nil || again.SeatToken != person.SeatToken {
		t.Errorf("a person's retried answer during the rotation: %v (the same seat token: %v)", err, err == nil && again.SeatToken == person.SeatToken)
	}
	if !refused(rot, "refuser@example.test") {
		t.Error("a refusal keyed under A is not found during the rotation")
	}
	if code, err := jobArg(t, rb, "notify_invite", "code"); err != nil {
		t.Fatal(err)
	} else if _, err := rot.openInviteCode(jobRoomID(t, rb), code); err != nil {
		t.Errorf("an invitation code sealed under A in its job does not open during the rotation: %v", err)
	}

	keys := SecretKeys{Limits: limitsB, PreviousLimits: limitsA, Token: tokenB, PreviousToken: tokenA,
		MemberInvites: invitesB, PreviousMemberInvites: invitesA, KeyCheck: checkB, PreviousKeyCheck: checkA, ReceiptMAC: macB, PreviousReceiptMAC: macA}
	r, err := RotateSecretKey(ctx, rb.pool, keys, 1, nil) // batches of one row: every batch boundary is crossed
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{"parties.limits_enc": 4, "webhook_endpoints.secrets": 1, "river_job notify_invite code": 1,
		"river_job member_invite token": 1, "person_seats.link": 1}
	for c, n := range want {
		if r.Resealed[c] != n {
			t.Errorf("%s: %d sealed again, want %d (all: %v)", c, r.Resealed[c], n, r.Resealed)
		}
	}
	// The agents' three seats (the person's token is derived from their
	// page's nonce, which no database holds: it stays).
	if r.RoomTokens != 3 || !r.EmailKeyKept || len(r.Unopened) != 0 {
		t.Errorf("room tokens %d (want 3), email key kept %v, unopened %v", r.RoomTokens, r.EmailKeyKept, r.Unopened)
	}
	again, err := RotateSecretKey(ctx, rb.pool, keys, 500, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Resealed) != 0 || again.RoomTokens != 0 || again.EmailKeyKept {
		t.Errorf("a second run changed %v, %d room tokens, kept the email key again %v", again.Resealed, again.RoomTokens, again.EmailKeyKept)
	}

	// Still during the rotation: A's tokens find their seats.
	if err := offer(rot, ta, 11); err == nil || err.Error() != "not your turn" {
		t.Fatalf("A's token after the command, A previous: %v, want the seat found (not your turn)", err)
	}
	list, _, err := rot.List(ctx, rb.a, []string{ta}, "")
	if err != nil || len(list) != 1 {
		t.Fatalf("negotiation_list of A's token after the command: %v", err)
	}
	newTA := list[0].RoomToken
	if newTA == ta {
		t.Fatal("the list gave A's token after the command")
	}

	// A removed.
	if err := CheckSecretKey(ctx, rb.pool, checkA, nil); !errors.Is(err, ErrSecretKeyMismatch) {
		t.Errorf("key check of A alone after the command: %v, want ErrSecretKeyMismatch", err)
	}
	if err := CheckSecretKey(ctx, rb.pool, checkB, nil); err != nil {
		t.Fatalf("key check of B alone after the command: %v", err)
	}
	retired, err := RetiredEmailKeys(ctx, rb.pool, limitsB, nil)
	if err != nil || len(retired) != 1 {
		t.Fatalf("retired email keys: %d (%v), want 1", len(retired), err)
	}
	after := roomsUnder(t, rb, limitsB, tokenB, nil, nil, retired)
	if _, err := after.Read(ctx, rb.a, ta); ErrorCodeOf(err) != ErrNotFound {
		t.Errorf("A's token once A is removed: %v, want not found", err)
	}
	if v, err := after.Read(ctx, rb.a, newTA); err != nil || len(v.Rounds) != 1 {
		t.Fatalf("B's token from the list once A is removed: %v", err)
	}
	listB, _, err := after.List(ctx, rb.b, nil, "")
	if err != nil || len(listB) != 1 {
		t.Fatalf("list of b once A is removed: %v", err)
	}
	if _, err := after.Propose(ctx, rb.b, listB[0].RoomToken, MoveInput{Verdict: "counter", Subject: meeting(12, "90.00")}); err != nil {
		t.Fatalf("a move of b once A is removed (its limits sealed under A before): %v", err)
	}
	if !refused(after, "refuser@example.test") || refused(after, "other@example.test") {
		t.Error("once A is removed, the refusal keyed under A is not found (or another address is)")
	}
	if code, err := jobArg(t, rb, "notify_invite", "code"); err != nil {
		t.Fatal(err)
	} else if _, err := after.openInviteCode(jobRoomID(t, rb), code); err != nil {
		t.Errorf("the invitation code in its job does not open once A is removed: %v", err)
	}
	teamsB := NewAccounts(rb.pool)
	if err := teamsB.UseTeams(TeamsConfig{River: rb.rooms.river, SealKey: invitesB, BaseURL: rb.rooms.baseURL, RoomTokenKey: tokenB, RetiredEmailKeys: retired}); err != nil {
		t.Fatal(err)
	}
	token, err := jobArg(t, rb, "member_invite", "token")
	if err != nil {
		t.Fatal(err)
	}
	var args jobs.MemberInviteArgs
	if err := rb.pool.QueryRow(ctx, `SELECT args FROM river_job WHERE kind = 'member_invite'`).Scan(&args); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(args.Token, token) {
		t.Fatal("the job's token was read two ways")
	}
	if _, err := teamsB.MemberInviteMail(ctx, args); err != nil {
		t.Errorf("the member invitation's link in its job once A is removed: %v", err)
	}
	endpoints, err := NewWebhooks(WebhooksConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: after, BaseURL: rb.rooms.baseURL}).ListWebhooks(ctx, rb.a.OwnerUserID, "alpha")
	if err != nil || len(endpoints) != 1 {
		t.Fatalf("webhooks once A is removed: %v", err)
	}
	var sealed []byte
	if err := rb.pool.QueryRow(ctx, `SELECT secrets FROM webhook_endpoints`).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	if _, err := after.hooksOpen(rb.a.AccountID, sealed); err != nil {
		t.Errorf("the webhook's secrets once A is removed: %v", err)
	}
	var link []byte
	if err := rb.pool.QueryRow(ctx, `SELECT link FROM person_seats WHERE room_id = $1`, person.RoomID).Scan(&link); err != nil {
		t.Fatal(err)
	}
	if token, err := after.openPersonLink(person.RoomID, link); err != nil || token != person.SeatToken {
		t.Errorf("the personal link once A is removed: %v", err)
	}
	if _, err := after.PersonData(ctx, person.SeatToken); err != nil {
		t.Errorf("the person's seat token once A is removed: %v", err)
	}
	var before int
	if err := rb.pool.QueryRow(ctx, `SELECT count(*) FROM party_tokens_before`).Scan(&before); err != nil || before != 3 {
		t.Errorf("party_tokens_before: %d rows (%v), want 3", before, err)
	}

	// A second rotation, B to C: the key kept from A is sealed again under
	// C, B's joins it, and the refusal keyed under A still holds; A's
	// tokens, kept keyed under A, find nothing with B as the previous key.
	limitsC, tokenC, invitesC, checkC := bytes.Repeat([]byte{27}, 32), bytes.Repeat([]byte{29}, 32), bytes.Repeat([]byte{24}, 32), bytes.Repeat([]byte{25}, 32)
	rotC := roomsUnder(t, rb, limitsC, tokenC, limitsB, tokenB, retired)
	if _, err := rotC.Read(ctx, rb.a, ta); ErrorCodeOf(err) != ErrNotFound {
		t.Errorf("A's token during the next rotation: %v, want not found", err)
	}
	r, err = RotateSecretKey(ctx, rb.pool, SecretKeys{Limits: limitsC, PreviousLimits: limitsB, Token: tokenC, PreviousToken: tokenB,
		MemberInvites: invitesC, PreviousMemberInvites: invitesB, KeyCheck: checkC, PreviousKeyCheck: checkB,
		ReceiptMAC: bytes.Repeat([]byte{26}, 32), PreviousReceiptMAC: macB}, 500, nil)
	if err != nil || r.Resealed["retired_keys.sealed"] != 1 || !r.EmailKeyKept {
		t.Fatalf("the second rotation: %+v, %v; want A's email key sealed again and B's kept", r, err)
	}
	retired, err = RetiredEmailKeys(ctx, rb.pool, limitsC, nil)
	if err != nil || len(retired) != 2 {
		t.Fatalf("retired email keys after the second rotation: %d (%v), want 2", len(retired), err)
	}
	if !refused(roomsUnder(t, rb, limitsC, tokenC, nil, nil, retired), "refuser@example.test") {
		t.Error("after a second rotation, the refusal keyed under A is not found")
	}
}

// hooksOpen opens a webhook's sealed secrets with r's keys.
func (r *Rooms) hooksOpen(accountID int64, sealed []byte) (hookSecrets, error) {
	return (&Webhooks{rooms: r}).openSecrets(accountID, sealed)
}

// jobArg is the sealed bytes field of the one pending job of kind.
func jobArg(t *testing.T, rb *roomsBundle, kind, field string) ([]byte, error) {
	t.Helper()
	var raw json.RawMessage
	if err := rb.pool.QueryRow(rb.ctx, `SELECT args->`+"'"+field+"'"+` FROM river_job WHERE kind = $1`, kind).Scan(&raw); err != nil {
		return nil, err
	}
	var b []byte
	return b, json.Unmarshal(raw, &b)
}

func jobRoomID(t *testing.T, rb *roomsBundle) int64 {
	t.Helper()
	var id int64
	if err := rb.pool.QueryRow(rb.ctx, `SELECT (args->>'room_id')::bigint FROM river_job WHERE kind = 'notify_invite'`).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestLinksDuringASecretKeyRotation: the List-Unsubscribe links (an
// account's person's and a room's person's) and the links refusing every
// invitation, signed with the old key's unsubscribe key, still work for a
// process started with the new key and the old one previous, and no
// longer once it is removed; the new links are the new key's.
func TestLinksDuringASecretKeyRotation(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	oldKey, newKey := bytes.Repeat([]byte{3}, 32), bytes.Repeat([]byte{13}, 32)
	notifications := func(key, previous []byte) *Notifications {
		t.Helper()
		n, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms,
			UnsubscribeKey: key, PreviousUnsubscribeKey: previous, BaseURL: rb.rooms.baseURL})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	token := func(u string) string { return u[strings.LastIndex(u, "/")+1:] }
	before := notifications(oldKey, nil)
	unsub, person, refusal := token(before.UnsubscribeURL(rb.a.OwnerUserID)), token(before.personUnsubscribeURL(42)), token(before.RefuseInvitationsURL("Pat@Example.test"))
	rotating, after := notifications(newKey, oldKey), notifications(newKey, nil)
	for _, c := range []struct {
		name string
		n    *Notifications
		want bool
	}{{"during the rotation", rotating, true}, {"once the old key is removed", after, false}} {
		email, ok := c.n.RefusingAddress(refusal)
		if c.n.UnsubscribeTokenValid(unsub) != c.want || c.n.PersonUnsubscribeToken(person) != c.want || ok != c.want || (ok && email != "pat@example.test") {
			t.Errorf("the old key's links %s: unsubscribe %v, a person's %v, refusal %v (%q); want %v", c.name,
				c.n.UnsubscribeTokenValid(unsub), c.n.PersonUnsubscribeToken(person), ok, email, c.want)
		}
	}
	if fresh := token(rotating.UnsubscribeURL(rb.a.OwnerUserID)); fresh == unsub || !after.UnsubscribeTokenValid(fresh) {
		t.Error("a link made during the rotation is not the new key's")
	}
}

// TestMovesDuringARotationKeepTheirStatements: during a rotation of
// SECRET_KEY, a read and a move by a seat's token from before the
// rotation (found in party_tokens_before) or by its new one are the same
// statements as without a rotation: the read one, the counter two in two
// round trips; a list by the token from before is one statement. The
// seat's and the list's statements find the token by index in either
// table (their generic plans, on tables of thousands of rooms).
func TestMovesDuringARotationKeepTheirStatements(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ta, tb := rb.openJoined(t, OpenInput{}, "")
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	if _, err := RotateSecretKey(rb.ctx, rb.pool, SecretKeys{Limits: limitsB, PreviousLimits: limitsA, Token: tokenB, PreviousToken: tokenA,
		MemberInvites: invitesB, PreviousMemberInvites: invitesA, KeyCheck: checkB, PreviousKeyCheck: checkA,
		ReceiptMAC: macB, PreviousReceiptMAC: macA}, 500, nil); err != nil {
		t.Fatal(err)
	}
	pool, st := rb.tracedPool(t)
	cfg := rb.cfg
	cfg.Pool, cfg.LimitsKey, cfg.TokenKey, cfg.PreviousLimitsKey, cfg.PreviousTokenKey = pool, limitsB, tokenB, limitsA, tokenA
	traced, err := NewRooms(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(traced.Close)
	list, _, err := traced.List(rb.ctx, rb.a, []string{ta}, "")
	if err != nil || len(list) != 1 || list[0].RoomToken == ta {
		t.Fatalf("the new token of a's seat: %+v %v", list, err)
	}
	newTA := list[0].RoomToken
	measure := func(what string, wantStatements, wantTrips int, do func() error) {
		t.Helper()
		traced.announcer.flush()
		st.take()
		if err := do(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		traced.announcer.flush()
		if sql, trips := ownStatements(st.take()); len(sql) != wantStatements || trips != wantTrips {
			t.Errorf("%s: %d statements in %d round trips, want %d in %d:\n%s", what, len(sql), trips, wantStatements, wantTrips, strings.Join(sql, "\n"))
		}
	}
	measure("a read by the token from before", 1, 1, func() error { _, err := traced.Read(rb.ctx, rb.b, tb); return err })
	measure("a counter by the token from before", 2, 2, func() error {
		_, err := traced.Propose(rb.ctx, rb.b, tb, MoveInput{Verdict: "counter", Subject: meeting(11, "")})
		return err
	})
	measure("a list by the token from before", 1, 1, func() error {
		got, _, err := traced.List(rb.ctx, rb.b, []string{tb}, "")
		if err == nil && len(got) != 1 {
			t.Errorf("the list by the token from before: %d entries", len(got))
		}
		return err
	})
	measure("a read by the new token", 1, 1, func() error { _, err := traced.Read(rb.ctx, rb.a, newTA); return err })
	measure("a counter by the new token", 2, 2, func() error {
		_, err := traced.Propose(rb.ctx, rb.a, newTA, MoveInput{Verdict: "counter", Subject: meeting(12, "")})
		return err
	})

	// Tables of a size whose plans are the ones that matter: thousands of
	// seats, each with a token from before a rotation, analyzed.
	seedSkew(t, rb, 2000, 20)
	if _, err := rb.pool.Exec(rb.ctx, `INSERT INTO party_tokens_before (token_hmac, room_id, side)
		SELECT sha256(convert_to('before' || room_id || side, 'UTF8')), room_id, side FROM parties ON CONFLICT DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	if _, err := rb.pool.Exec(rb.ctx, `ANALYZE party_tokens_before`); err != nil {
		t.Fatal(err)
	}
	seat := traced.seatHashOf(tb)
	plan := genericPlan(t, rb.ctx, rb.pool, seatSQLLockedRotating, true, seat.token, rb.b.AccountID, rb.b.OwnerUserID, seat.prev)
	used := map[string]bool{}
	plan.walk(func(n *planNode) { used[n.Index] = true })
	if !used["parties_token_hash_key"] || !used["party_tokens_before_pkey"] {
		t.Errorf("the seat's statement during a rotation does not find the token by index in both tables:\n%s", plan)
	}
	byteas := func(b []byte) string { return fmt.Sprintf(`{"\\x%x"}`, b) } // a bytea[] of one, as text
	plan = genericPlan(t, rb.ctx, rb.pool, summariesByTokensRotating, true, rb.b.AccountID, byteas(seat.token), rb.b.OwnerUserID, byteas(seat.prev))
	used = map[string]bool{}
	plan.walk(func(n *planNode) { used[n.Index] = true })
	if !used["parties_token_hash_key"] || !used["party_tokens_before_pkey"] {
		t.Errorf("the list's statement during a rotation does not find the tokens by index in both tables:\n%s", plan)
	}
}

// TestReceiptKeysKeptAcrossARotation: a process publishes its receipt
// keys in the database at start; after a rotation (B, A previous) the
// keyring publishes A's keys too; the rotation's command gives them B's
// MAC, so that with B alone they are still published. A key written into
// receipt_keys by another hand (no MAC of this installation's) stops the
// start, naming it, and is never published.
func TestReceiptKeysKeptAcrossARotation(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	keyring := func(seed byte) *receipt.Keyring {
		t.Helper()
		k, err := receipt.NewKeyring("http://127.0.0.1:8080", 1, func(v int) []byte { return bytes.Repeat([]byte{seed + byte(v)}, 32) })
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	kids := func(k *receipt.Keyring) map[string]bool {
		m := map[string]bool{}
		for _, key := range k.JWKS().Keys {
			m[key.KeyID] = true
		}
		return m
	}
	a := keyring(100)
	if err := PublishReceiptKeys(ctx, rb.pool, ReceiptKeys{Keyring: a, MAC: macA}); err != nil {
		t.Fatal(err)
	}
	aKid := a.KeyID()
	rotating := keyring(200)
	if err := PublishReceiptKeys(ctx, rb.pool, ReceiptKeys{Keyring: rotating, Previous: keyring(100), MAC: macB, PreviousMAC: macA}); err != nil {
		t.Fatal(err)
	}
	if !kids(rotating)[aKid] || len(kids(rotating)) != 4 {
		t.Fatalf("during the rotation the keyring publishes %v, want A's two and B's two", kids(rotating))
	}
	if err := PublishReceiptKeys(ctx, rb.pool, ReceiptKeys{Keyring: keyring(200), MAC: macB}); err == nil || !strings.Contains(err.Error(), aKid) ||
		!strings.Contains(err.Error(), "does not start") || !strings.Contains(err.Error(), "SECRET_KEY_PREVIOUS") {
		t.Fatalf("B alone before the command: %v, want A's key named (its MAC is A's), and what to do", err)
	}
	changed, all, err := remacReceiptKeys(ctx, rb.pool, macB, macA, keyring(100).Public())
	if err != nil || changed != 2 || all != 4 {
		t.Fatalf("the command gave %d of %d kept keys B's MAC (%v), want 2 of 4", changed, all, err)
	}
	after := keyring(200)
	if err := PublishReceiptKeys(ctx, rb.pool, ReceiptKeys{Keyring: after, MAC: macB}); err != nil || !kids(after)[aKid] {
		t.Fatalf("B alone after the command: %v, publishing %v", err, kids(after))
	}
	stranger := keyring(50).Public()[0]
	rows, err := receiptKeyRows(bytes.Repeat([]byte{99}, 32), []jose.JSONWebKey{stranger})
	if err != nil {
		t.Fatal(err)
	}
	if err := insertReceiptKeys(ctx, rb.pool, rows); err != nil {
		t.Fatal(err)
	}
	last := keyring(200)
	if err := PublishReceiptKeys(ctx, rb.pool, ReceiptKeys{Keyring: last, MAC: macB}); err == nil || !strings.Contains(err.Error(), stranger.KeyID) {
		t.Errorf("a key written by another hand: %v, want it named", err)
	}
	if kids(last)[stranger.KeyID] {
		t.Error("a key written by another hand is published")
	}
}
