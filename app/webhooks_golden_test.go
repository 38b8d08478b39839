package app

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/taasky/taasky/internal/golden"
	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify/notifytest"
)

// The volatile parts of a webhook body, masked before it is compared:
// moments (the clock's; the terms' own, on the meeting's day 2026-10-14,
// stay), hashes, the receipt (a JWS), ids and the URLs that hold them.
var (
	hookMoment   = regexp.MustCompile(`"\d{4}-\d\d-\d\dT[0-9:.]+(Z|[+-]\d\d:\d\d)"`)
	hookVolatile = []struct {
		re   *regexp.Regexp
		mask string
	}{
		{regexp.MustCompile(`sha256:[0-9a-f]{64}`), `[hash]`},
		{regexp.MustCompile(`"receipt":"[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+"`), `"receipt":"[jws]"`},
		{regexp.MustCompile(`"(room_id|id|job_id|confirmation_id)":(\d+)`), `"$1":"[id]"`},
		{regexp.MustCompile(`"(id|confirmation_id)":"[a-z]+_[A-Za-z0-9_-]+"`), `"$1":"[id]"`},
		{regexp.MustCompile(`/rooms/\d+`), `/rooms/[id]`},
	}
)

// maskHook masks a body's volatile parts and indents it, keeping the
// fields in the order they were sent.
func maskHook(t *testing.T, body []byte) []byte {
	t.Helper()
	body = hookMoment.ReplaceAllFunc(body, func(m []byte) []byte {
		if bytes.HasPrefix(m, []byte(`"2026-10-14T`)) {
			return m
		}
		return []byte(`"[moment]"`)
	})
	for _, v := range hookVolatile {
		body = v.re.ReplaceAll(body, []byte(v.mask))
	}
	var out bytes.Buffer
	if err := json.Indent(&out, body, "", "  "); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
	return out.Bytes()
}

// TestWebhookPayloadsGolden: the bodies of every event kind, as a real
// endpoint receives them from a real negotiation (each side's own: an
// agreement, a cancel, and a request whose mail was refused), their
// volatile parts masked, are testdata/webhooks.golden. A field a body
// omits when empty is absent there, as it is on the wire. Rewrite with
// -update after a meant change (and docs/webhooks.md's example with it).
func TestWebhookPayloadsGolden(t *testing.T) {
	t.Parallel()
	nb := setupNotify(t)
	nb.clockOffLimits()
	ra, _, _ := nb.hookEndpoint(t, nb.a.OwnerUserID, "alpha")
	rb, _, _ := nb.hookEndpoint(t, nb.b.OwnerUserID, "beta")
	// Each body is written at its first attempt, from the room as it is
	// then: each move waits for its webhooks before the next one.
	step := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		nb.settle(t)
		nb.settleHooks(t)
	}

	// An agreement: opened, joined, moved, confirmation requested and
	// answered, agreed.
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Limits: json.RawMessage(aLimits), Title: "Hooks"})
	step(err)
	j, err := nb.rooms.Join(nb.ctx, nb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema, Limits: json.RawMessage(bLimits)})
	step(err)
	v, err := nb.rooms.Propose(nb.ctx, nb.a, open.RoomToken, MoveInput{Verdict: "offer", Subject: meeting(10, "20.00")})
	step(err)
	hash := v.TermsOnTable.Options[0].SubjectHash
	for _, side := range []struct {
		agent Agent
		token string
	}{{nb.b, j.RoomToken}, {nb.a, open.RoomToken}} {
		cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, side.agent, side.token, "approve", hash)
		step(err)
		nb.confirm(t, side.agent, side.token, cv)
		step(nil)
	}
	agreed := map[string][]notifytest.Webhook{"a": ra.Received(), "b": rb.Received()}

	// A close: alpha's human confirms a cancel.
	open2, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Title: "Closed"})
	step(err)
	_, err = nb.rooms.Join(nb.ctx, nb.b, JoinInput{InviteCode: open2.InviteCode, Schema: meetingSchema})
	step(err)
	cv, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.a, open2.RoomToken, negotiation.VerdictCancel, "")
	step(err)
	nb.confirm(t, nb.a, open2.RoomToken, cv)
	step(nil)
	closed := map[string][]notifytest.Webhook{"a": ra.Received()[len(agreed["a"]):], "b": rb.Received()[len(agreed["b"]):]}

	// A refused mail: the request to alpha's human.
	nb.smtp.RefuseRecipient("alpha@example.test")
	open3, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema, Title: "Refused"})
	step(err)
	_, err = nb.rooms.Join(nb.ctx, nb.b, JoinInput{InviteCode: open3.InviteCode, Schema: meetingSchema})
	step(err)
	_, _, err = nb.rooms.RequestConfirmation(nb.ctx, nb.a, open3.RoomToken, negotiation.VerdictCancel, "")
	step(err)

	var out bytes.Buffer
	section := func(what, side string, hooks []notifytest.Webhook, only ...WebhookEvent) {
		type got struct {
			typ  WebhookEvent
			seq  int
			body []byte
		}
		var gs []got
		for _, h := range hooks {
			if len(h.Verified) == 0 || h.Answered >= 300 {
				t.Errorf("%s: %s not verified or not accepted (%d)", what, h.ID, h.Answered)
				continue
			}
			var p HookPayload
			if err := json.Unmarshal(h.Body, &p); err != nil {
				t.Fatal(err)
			}
			if len(only) > 0 && !slices.Contains(only, p.Type) {
				continue
			}
			gs = append(gs, got{p.Type, p.Data.Seq, h.Body})
		}
		// The order of the room's log (the events of one change share
		// their seq: then in the order one change causes them, as
		// hookEvents lists them).
		order := []WebhookEvent{HookRoomOpened, HookRoomJoined, HookConfAnswered, HookRoomMoved, HookConfRequested,
			HookRoomAgreed, HookRoomClosed, HookMailUndelivered}
		slices.SortStableFunc(gs, func(x, y got) int {
			if x.seq != y.seq {
				return x.seq - y.seq
			}
			return slices.Index(order, x.typ) - slices.Index(order, y.typ)
		})
		for _, g := range gs {
			fmt.Fprintf(&out, "# %s, side %s: %s (seq %d)\n", what, side, g.typ, g.seq)
			out.Write(maskHook(t, g.body))
			out.WriteString("\n\n")
		}
	}
	for _, side := range []string{"a", "b"} {
		section("an agreement", side, agreed[side])
	}
	for _, side := range []string{"a", "b"} {
		section("a cancel", side, closed[side])
	}
	section("a refused mail", "a", ra.Received()[len(agreed["a"])+len(closed["a"]):], HookMailUndelivered)

	// Every event kind the code sends is in it.
	for _, ev := range WebhookEvents {
		if !strings.Contains(out.String(), ": "+string(ev)+" (seq") {
			t.Errorf("no %s body was received", ev)
		}
	}
	golden.Bytes(t, "webhooks.golden", out.Bytes())
}
