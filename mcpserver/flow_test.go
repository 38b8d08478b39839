package mcpserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/receipt"
)

// TestMovesVectorsOverMCP plays every case of vectors/moves.json through
// the tools over HTTP, two agents in two accounts; each human confirms
// through the service as the web and email doors will.
func TestMovesVectorsOverMCP(t *testing.T) {
	t.Parallel()
	e := setup(t)
	b, err := os.ReadFile(filepath.Join("..", "vectors", "moves.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Schema json.RawMessage            `json:"schema"`
		Terms  map[string]json.RawMessage `json:"terms"`
		Cases  []struct {
			Name  string `json:"name"`
			Start string `json:"start"`
			Steps []struct {
				Actor   string          `json:"actor"`
				Verdict string          `json:"verdict"`
				Terms   string          `json:"terms"`
				Subject json.RawMessage `json:"subject"`
				Approve string          `json:"approve"`
				Join    string          `json:"join"`
				Refused *string         `json:"refused"`
				Room    *struct {
					State string  `json:"state"`
					Round *int    `json:"round"`
					Turn  *string `json:"turn"`
				} `json:"room"`
			} `json:"steps"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, c := range f.Cases {
		open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": f.Schema, "title": "vectors"})
		tokens := map[string]string{"a": open["room_token"].(string)}
		join := func() string {
			out, msg := e.call(t, "b", "negotiation_join", map[string]any{"invite_url": open["invite_url"], "subject_schema": f.Schema})
			if msg == "" {
				tokens["b"] = out["room_token"].(string)
			}
			return msg
		}
		if c.Start != "draft" {
			if msg := join(); msg != "" {
				t.Fatal(msg)
			}
		}
		for i, st := range c.Steps {
			where := fmt.Sprintf("%s: step %d", c.Name, i)
			var msg string
			switch {
			case st.Join != "":
				msg = join()
			case tokens[st.Actor] == "":
				// b has no room token before it joins: it cannot move at all.
				_, msg = e.call(t, st.Actor, "negotiation_propose", map[string]any{"room_token": "rt_none", "verdict": st.Verdict})
				if msg == "" {
					t.Fatalf("%s: a move without a seat was accepted", where)
				}
				continue
			case st.Verdict == "approve" || st.Verdict == "reject" || st.Verdict == "cancel":
				args := map[string]any{"room_token": tokens[st.Actor]}
				tool := "negotiation_cancel"
				if st.Verdict != "cancel" {
					tool = "negotiation_respond"
					args["verdict"] = st.Verdict
				}
				if st.Approve == "on_table" {
					read := e.must(t, st.Actor, "negotiation_read", map[string]any{"room_token": tokens[st.Actor]})["room"].(map[string]any)
					args["subject_hash"] = read["terms_on_table"].(map[string]any)["options"].([]any)[0].(map[string]any)["subject_hash"]
				} else if st.Approve != "" {
					args["subject_hash"] = st.Approve
				}
				var out map[string]any
				out, msg = e.call(t, st.Actor, tool, args)
				if msg == "" {
					if out["status"] != "waiting_for_your_human" {
						t.Fatalf("%s: status %v", where, out["status"])
					}
					if d := e.confirm(t, st.Actor, tokens[st.Actor], out, true); d.Result != negotiation.ResultApplied {
						t.Fatalf("%s: confirmation %s: %s", where, d.Result, d.Why)
					}
				}
			default:
				subject := st.Subject
				if st.Terms != "" {
					subject = f.Terms[st.Terms]
				}
				args := map[string]any{"room_token": tokens[st.Actor], "verdict": st.Verdict}
				if subject != nil {
					args["subject"] = subject
				}
				_, msg = e.call(t, st.Actor, "negotiation_propose", args)
			}
			if st.Refused != nil {
				// The protocol's refusal, finished by the tools' hint, or
				// leading the list of every fault.
				if msg != *st.Refused && msg != hints[*st.Refused] && !strings.HasPrefix(msg, *st.Refused+" (") && !strings.HasPrefix(msg, *st.Refused+";") {
					t.Fatalf("%s: %q, want refused %q", where, msg, *st.Refused)
				}
				continue
			}
			if msg != "" {
				t.Fatalf("%s: %s", where, msg)
			}
			if st.Room == nil {
				continue
			}
			read := e.must(t, "a", "negotiation_read", map[string]any{"room_token": tokens["a"]})["room"].(map[string]any)
			if read["state"] != st.Room.State || (st.Room.Round != nil && int(read["round"].(float64)) != *st.Room.Round) {
				t.Fatalf("%s: room %v round %v, want %+v", where, read["state"], read["round"], *st.Room)
			}
			if st.Room.Turn != nil {
				want := map[string]string{"a": "you", "b": "them"}[*st.Room.Turn]
				if read["turn"] != want {
					t.Fatalf("%s: turn %v, want %s", where, read["turn"], want)
				}
			}
		}
	}
	e.check(t)
}

// TestPickBeforePreapproval: the peer picks a slot before the initiator's
// human answered the preapproval: that human is told their confirmation
// agrees the room, not that the other side will pick one.
func TestPickBeforePreapproval(t *testing.T) {
	t.Parallel()
	e := setup(t)
	slots := []map[string]string{
		{"start": "2026-12-03T10:00:00+01:00", "end": "2026-12-03T10:30:00+01:00"},
		{"start": "2026-12-03T14:00:00+01:00", "end": "2026-12-03T14:30:00+01:00"},
	}
	open := e.must(t, "a", "negotiation_open", map[string]any{"slots": slots, "preapprove": true})
	ta := open["room_token"].(string)
	const picks = "The other side picks one"
	if h := open["room"].(map[string]any)["for_your_human"].(string); !strings.Contains(h, picks) {
		t.Fatalf("a's human, before the pick:\n%s", h)
	}
	join := e.must(t, "b", "negotiation_join", map[string]any{"invite_code": open["invite_code"]})
	tb := join["room_token"].(string)
	pick := join["room"].(map[string]any)["terms_on_table"].(map[string]any)["options"].([]any)[1].(map[string]any)["subject_hash"]
	out := e.must(t, "b", "negotiation_respond", map[string]any{"room_token": tb, "verdict": "approve", "subject_hash": pick})
	e.confirm(t, "b", tb, out, true)
	h := e.must(t, "a", "negotiation_read", map[string]any{"room_token": ta})["room"].(map[string]any)["for_your_human"].(string)
	if strings.Contains(h, picks) || !strings.Contains(h, "The other side approved these terms: if you approve, they are agreed.") {
		t.Fatalf("a's human, after b picked:\n%s", h)
	}
	if d := e.confirm(t, "a", ta, open, true); d.State != negotiation.StateAgreed {
		t.Fatalf("the preapproval agrees the pick: %+v", d)
	}
	e.check(t)
}

// TestSlotsAndPreapproval: the peer picks a slot; with preapprove the pick
// agrees the room at once once the initiator's human confirmed.
func TestSlotsAndPreapproval(t *testing.T) {
	t.Parallel()
	e := setup(t)
	slots := []map[string]string{
		{"start": "2026-12-03T10:00:00+01:00", "end": "2026-12-03T10:30:00+01:00"},
		{"start": "2026-12-03T14:00:00+01:00", "end": "2026-12-03T14:30:00+01:00"},
	}
	open := e.must(t, "a", "negotiation_open", map[string]any{"slots": slots, "preapprove": true, "title": "Coffee?"})
	ta := open["room_token"].(string)
	room := open["room"].(map[string]any)
	if room["pending_confirmation"] == nil || !strings.Contains(room["for_your_human"].(string), "accept any of these options") {
		t.Fatalf("the preapproval is asked of a's human: %v", room)
	}
	e.confirm(t, "a", ta, open, true)
	join := e.must(t, "b", "negotiation_join", map[string]any{"invite_code": open["invite_code"]})
	tb := join["room_token"].(string)
	table := join["room"].(map[string]any)["terms_on_table"].(map[string]any)
	options := table["options"].([]any)
	if len(options) != 2 || table["as_options"] != true {
		t.Fatalf("b sees the slots as options: %v", table)
	}
	pick := options[1].(map[string]any)["subject_hash"]
	out := e.must(t, "b", "negotiation_respond", map[string]any{"room_token": tb, "verdict": "approve", "subject_hash": pick})
	if d := e.confirm(t, "b", tb, out, true); d.State != negotiation.StateAgreed {
		t.Fatalf("a preapproved pick agrees the room at once: %+v", d)
	}
	full := e.must(t, "a", "negotiation_read", map[string]any{"room_token": ta})
	read := full["room"].(map[string]any)
	if read["state"] != "agreed" || !strings.Contains(read["for_your_human"].(string), "AGREED") {
		t.Fatalf("a reads: %v", read)
	}
	// Agreed: nobody is told an approval would agree it (a's preapproval
	// stood for the option b picked).
	for side, token := range map[string]string{"a": ta, "b": tb} {
		h := e.must(t, side, "negotiation_read", map[string]any{"room_token": token})["room"].(map[string]any)["for_your_human"].(string)
		if strings.Contains(h, "if you approve") {
			t.Errorf("%s's human, agreed, is asked to approve:\n%s", side, h)
		}
	}
	// An agreed room's read carries its receipt when asked for, the same
	// for both sides.
	if _, ok := full["receipt"]; ok {
		t.Error("a read that did not ask for the receipt carries it")
	}
	if next := read["next"].(map[string]any)["say"].(string); !strings.Contains(next, "receipt: true") {
		t.Errorf("an agreed room's next does not say how to get the receipt: %q", next)
	}
	full = e.must(t, "a", "negotiation_read", map[string]any{"room_token": ta, "receipt": true})
	jws, _ := full["receipt"].(string)
	r, err := testReceiptKeys(t, e.url).Verify(jws)
	if err != nil {
		t.Fatalf("a's receipt: %v (%v)", err, full["receipt"])
	}
	if r.Parties.A.Confirmation.Verdict != "preapprove" || r.Room.Title != "Coffee?" || r.Parties.B.Account != "beta" {
		t.Errorf("receipt facts %+v", r)
	}
	if theirs := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb, "receipt": true})["receipt"]; theirs != jws {
		t.Errorf("b's receipt differs")
	}
	if _, ok := join["receipt"]; ok {
		t.Error("a room not agreed has a receipt")
	}
	e.check(t)
}

func testReceiptKeys(t testing.TB, issuer string) *receipt.Keyring {
	t.Helper()
	k, err := receipt.NewKeyring(issuer, 1, func(v int) []byte { return bytes.Repeat([]byte{byte(v)}, 32) })
	if err != nil {
		t.Fatal(err)
	}
	return k
}
