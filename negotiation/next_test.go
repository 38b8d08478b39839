package negotiation

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"
)

// tryVerdict makes the move a Next verdict names, with plausible arguments.
func tryVerdict(r *Room, side Side, v Verdict, at time.Time) error {
	switch v {
	case VerdictOffer, VerdictCounter:
		_, _, err := r.Propose(side, Move{Verdict: v, Subject: qty3}, at)
		return err
	case VerdictNeedMoreDetail:
		_, _, err := r.Propose(side, Move{Verdict: v, Fields: []string{"qty"}}, at)
		return err
	case VerdictApprove:
		_, _, err := r.Request(side, v, r.Table.Options[0].Hash(), "try", at, Announced)
		return err
	default:
		_, _, err := r.Request(side, v, "", "try", at, Announced)
		return err
	}
}

func TestNextInEveryState(t *testing.T) {
	all := []Verdict{VerdictApprove, VerdictCounter, VerdictNeedMoreDetail, VerdictReject, VerdictCancel}
	none := []Verdict{}
	type want struct {
		verdicts []Verdict
		say      string
	}
	cases := []struct {
		name string
		room func(t *testing.T) *Room
		a, b want
	}{
		{"draft without terms", func(t *testing.T) *Room { return openPlay(t, OpenRequest{}).r },
			want{[]Verdict{VerdictOffer, VerdictCancel}, "Waiting for the other side to join. You may table opening terms now (offer), or cancel the invitation."},
			want{none, "Waiting for the invitation to be answered."}},
		{"draft with opening terms", func(t *testing.T) *Room { return openPlay(t, OpenRequest{Subject: qty1}).r },
			want{[]Verdict{VerdictCancel}, "Your opening terms wait for the other side to join. You may cancel the invitation."},
			want{none, "Waiting for the invitation to be answered."}},
		{"joined, nothing on the table", func(t *testing.T) *Room { return joined(t, nil).r },
			want{[]Verdict{VerdictOffer, VerdictCancel}, "Your turn: offer terms."},
			want{[]Verdict{VerdictCancel}, "It is the other side's turn: wait for their move."}},
		{"terms on the table, b's turn", func(t *testing.T) *Room { return joined(t, qty1).r },
			want{[]Verdict{VerdictCancel}, "It is the other side's turn: wait for their move."},
			want{all, "Your turn: approve the terms on the table (quote their subject_hash), counter, ask for more detail, or reject."}},
		{"b approved, a's turn", func(t *testing.T) *Room {
			p := joined(t, qty1)
			p.confirm(SideB, VerdictApprove, p.r.Table.Options[0].Hash())
			return p.r
		},
			want{all, "The other side approved sha256:" + "%HASH%" + ". Approve the same subject_hash to agree, or counter."},
			want{[]Verdict{VerdictCancel}, "It is the other side's turn: wait for their move."}},
		{"b's human asked, on b's turn; a's cancel asked out of turn", func(t *testing.T) *Room {
			p := joined(t, qty1)
			p.request(SideB, VerdictApprove, p.r.Table.Options[0].Hash(), "b1")
			p.request(SideA, VerdictCancel, "", "a1")
			return p.r
		},
			want{[]Verdict{VerdictCancel}, "Waiting for your human to confirm (cancel). Do not ask them again; they were notified."},
			want{[]Verdict{VerdictApprove, VerdictCounter, VerdictNeedMoreDetail, VerdictReject, VerdictCancel}, "Waiting for your human to confirm (approve). Do not ask them again; they were notified. A new request replaces it."}},
		{"agreed", func(t *testing.T) *Room {
			p := joined(t, qty1)
			h := p.r.Table.Options[0].Hash()
			p.confirm(SideB, VerdictApprove, h)
			p.confirm(SideA, VerdictApprove, h)
			return p.r
		},
			want{none, "Agreed: both humans approved the same terms. Read with receipt: true for the signed receipt."},
			want{none, "Agreed: both humans approved the same terms. Read with receipt: true for the signed receipt."}},
		{"rejected", func(t *testing.T) *Room {
			p := joined(t, qty1)
			p.confirm(SideB, VerdictReject, "")
			return p.r
		},
			want{none, "The room is closed (rejected). Nothing more to do."},
			want{none, "The room is closed (rejected). Nothing more to do."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := c.room(t)
			for _, w := range []struct {
				side Side
				want want
			}{{SideA, c.a}, {SideB, c.b}} {
				got := r.Next(w.side)
				say := w.want.say
				if strings.Contains(say, "%HASH%") {
					say = strings.Replace(say, "sha256:%HASH%", string(r.Approval(SideB)), 1)
				}
				if !slices.Equal(got.Verdicts, w.want.verdicts) || got.Say != say {
					t.Errorf("Next(%s) = %v %q\nwant %v %q", w.side, got.Verdicts, got.Say, w.want.verdicts, say)
				}
				// The verdicts are a list in JSON, never null.
				if b, _ := json.Marshal(got); !bytes.Contains(b, []byte(`"verdicts":[`)) {
					t.Errorf("Next(%s) encodes as %s", w.side, b)
				}
				// Every verdict offered is one the room takes now.
				for _, v := range got.Verdicts {
					if err := tryVerdict(r, w.side, v, t0.Add(time.Hour)); err != nil {
						t.Errorf("Next(%s) offers %s, but it is refused: %v", w.side, v, err)
					}
				}
			}
		})
	}
}

// TestNextWithPendingCancelAndNothingOnTheTable documents a bug: with
// nothing on the table, a side whose cancel waits for its human is offered
// counter and need_more_detail (both refused: "nothing to counter yet",
// "nothing to ask about yet") and is not offered offer, which is allowed.
func TestNextWithPendingCancelAndNothingOnTheTable(t *testing.T) {
	p := joined(t, nil)
	p.request(SideA, VerdictCancel, "", "a1")
	got := p.r.Next(SideA)
	want := []Verdict{VerdictOffer, VerdictCancel}
	if !slices.Equal(got.Verdicts, want) {
		t.Fatalf("Next(a) = %v, want %v", got.Verdicts, want)
	}
}

// TestNextUnannounced: a request no message told the human of is recorded
// so with the request, and next tells the agent to tell its human, not
// that they were notified; the log replays it, the snapshot keeps it, and
// a new request (announced) replaces it.
func TestNextUnannounced(t *testing.T) {
	p := joined(t, qty1)
	h := p.r.Table.Options[0].Hash()
	r, ev, err := p.r.Request(SideB, VerdictApprove, h, "b1", p.tick(), Unannounced)
	p.ok(r, ev, err)
	if !ev.Unannounced || !p.r.PendingFor(SideB).Unannounced {
		t.Fatalf("not recorded: event %+v, pending %+v", ev, p.r.PendingFor(SideB))
	}
	want := "Waiting for your human to confirm (approve). Taasky sent them no message about it (their notification settings send none): tell them to open Taasky to confirm. A new request replaces it."
	if got := p.r.Next(SideB).Say; got != want {
		t.Errorf("Next(b).Say = %q\nwant %q", got, want)
	}
	if got := p.r.Next(SideA).Say; strings.Contains(got, "notification") {
		t.Errorf("the other side is told of b's settings: %q", got)
	}
	p.replayThroughJSON()
	restored, err := Restore(p.r.Snapshot(), p.limits)
	if err != nil {
		t.Fatal(err)
	}
	if !restored.PendingFor(SideB).Unannounced {
		t.Errorf("the snapshot loses it: %s", p.r.Snapshot())
	}
	p.request(SideB, VerdictReject, "", "b2")
	if p.r.PendingFor(SideB).Unannounced || strings.Contains(p.r.Next(SideB).Say, "no message") {
		t.Errorf("an announced request after it still says none was sent: %q", p.r.Next(SideB).Say)
	}
}

// TestNextInADraftSaysWhatWaits: in a draft, the opener's next says that
// its human is asked (a cancel of the invitation, or a preapproval), and
// not to ask them again, as in a live room.
func TestNextInADraftSaysWhatWaits(t *testing.T) {
	p := openPlay(t, OpenRequest{})
	p.request(SideA, VerdictCancel, "", "c1")
	if n := p.r.Next(SideA); !strings.HasSuffix(n.Say, "Waiting for your human to confirm (cancel). Do not ask them again; they were notified.") {
		t.Errorf("next %q", n.Say)
	}
}

// TestNextWhileAPreapprovalWaitsOnAChosenOption: b approved one of a's
// options while a's human has not confirmed the preapproval yet; a's next
// names the option chosen, which the preapproval, once confirmed, agrees.
func TestNextWhileAPreapprovalWaitsOnAChosenOption(t *testing.T) {
	p := openPlay(t, OpenRequest{Options: []json.RawMessage{qty1, qty2}, Preapprove: true, PreapprovalID: "pre"})
	p.join(qtySchema, nil)
	h := p.r.Table.Options[1].Hash()
	p.confirm(SideB, VerdictApprove, h)
	if n := p.r.Next(SideA); !strings.HasPrefix(n.Say, "The other side approved "+string(h)+": your human's preapproval, once confirmed, agrees it. Waiting for your human to confirm (preapprove).") {
		t.Errorf("next %q", n.Say)
	}
	p.decide(SideA, "pre", true)
	if p.r.State != StateAgreed {
		t.Errorf("the preapproval confirmed: %s", p.r.State)
	}
}
