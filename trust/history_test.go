package trust

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

// history is every call the clients of a load made, as Jepsen records
// one: when it began and ended, what it asked and what it was told, or
// that it was told nothing definite (the call failed in transit, or was
// answered "retry": it may or may not have been applied). Each room's calls
// are then checked for linearizability with porcupine against roomModel: is
// there one order of the calls, within their real-time intervals, in which
// one room taking them one at a time answers what each caller saw?
type history struct {
	mu      sync.Mutex
	t0      time.Time
	ops     []porcupine.Operation
	clients map[string]int
}

func newHistory() *history { return &history{t0: time.Now(), clients: map[string]int{}} }

// now is the history's clock: monotonic nanoseconds since it began.
func (h *history) now() int64 { return int64(time.Since(h.t0)) }

// add records a call made by client that began at start and ends now; an
// answer that is not known ends at infinity (it may take effect at any
// moment after it began, or never). A read without an answer tells
// nothing and is not kept.
func (h *history) add(client string, in histIn, start int64, out histOut) {
	if !out.known && in.kind == "read" {
		return
	}
	end := h.now()
	if !out.known {
		end = math.MaxInt64
	}
	client = fmt.Sprintf("%s in %d", client, in.room) // one caller's calls of one room come one after another
	h.mu.Lock()
	defer h.mu.Unlock()
	id, ok := h.clients[client]
	if !ok {
		id = len(h.clients)
		h.clients[client] = id
	}
	if !out.known {
		// The same call again by the same client, still without an
		// answer, is one call that takes effect at most once (the promise
		// a retry relies on) and is kept as one, from the first attempt:
		// k open calls of one room would cost the checker 2^k states.
		for i := len(h.ops) - 1; i >= 0; i-- {
			if prev := h.ops[i]; prev.ClientId == id {
				if prev.Input == in && !prev.Output.(histOut).known {
					return
				}
				break
			}
		}
	}
	h.ops = append(h.ops, porcupine.Operation{ClientId: id, Input: in, Call: start, Output: out, Return: end})
}

// historyCheck is what checking a history found.
type historyCheck struct {
	rooms, ops, unknown int
	result              porcupine.CheckResult
	took                time.Duration
}

func (c historyCheck) String() string {
	return fmt.Sprintf("linearizability (porcupine): %d room histories, %d operations (%d without a definite answer), %s in %s",
		c.rooms, c.ops, c.unknown, c.result, c.took.Round(time.Millisecond))
}

// check checks the history; anything but Ok fails the test, and a history
// that no order explains is written out as porcupine's visualization (a
// page that shows each room's calls and the longest order that held).
func (h *history) check(t testing.TB) historyCheck {
	t.Helper()
	h.mu.Lock()
	ops := append([]porcupine.Operation(nil), h.ops...)
	h.mu.Unlock()
	c := historyCheck{ops: len(ops), rooms: len(partitionByRoom(ops))}
	for _, op := range ops {
		if !op.Output.(histOut).known {
			c.unknown++
		}
	}
	began := time.Now()
	res, info := porcupine.CheckOperationsVerbose(roomModel, ops, 2*time.Minute)
	c.result, c.took = res, time.Since(began)
	if res == porcupine.Unknown {
		t.Errorf("the history of %d calls: the check did not finish in 2 minutes", len(ops))
	}
	if res == porcupine.Illegal {
		dir, err := os.MkdirTemp("", "taasky-history-")
		path := filepath.Join(dir, "history.html")
		if err == nil {
			err = porcupine.VisualizePath(roomModel, info, path)
		}
		t.Errorf("the history of %d calls is not linearizable: no order of the calls explains what the clients saw (visualization: %s, %v)", len(ops), path, err)
	}
	return c
}

// histIn is one call on one room by one side: a move, a confirmation
// request, a human's answer, or a read.
type histIn struct {
	room    int    // the negotiation: the partition
	side    string // "a" (the initiator) or "b"
	kind    string // open, join, propose, request, decide, read
	verdict string // propose: offer, counter, need_more_detail; request: approve, reject, cancel
	hash    string // open, propose: the terms tabled; request, decide: the terms approved
	cid     string // decide: the confirmation answered
	accept  bool   // decide
}

// histOut is what the caller was told: the room as its side sees it, a
// refusal, or nothing definite (known false).
type histOut struct {
	known   bool
	refused string
	view    roomView
	cid     string // request: the confirmation waiting
	result  string // decide: applied, declined, void
}

// roomView is a view of the room in absolute sides (a view says "you" and
// "them"): what a model's state must match.
type roomView struct {
	state     string
	round     int
	turn      string // "a", "b" or ""
	table     string // the hash of the terms on the table
	approvals [2]string
	pending   string // the caller's side's waiting confirmation
}

func unknown() histOut { return histOut{} }

func refusal(msg string) histOut { return histOut{known: true, refused: msg} }

// sideOf turns a view's "you"/"them" into a side.
func sideOf(me, whose string) string {
	switch whose {
	case "you":
		return me
	case "them":
		return other(me)
	}
	return ""
}

func other(side string) string {
	if side == "a" {
		return "b"
	}
	return "a"
}

func sideIndex(side string) int {
	if side == "b" {
		return 1
	}
	return 0
}

// viewOfResult reads a tool's answer (the room merged in by callOn).
func viewOfResult(side string, out map[string]any) roomView {
	v := roomView{table: tableHash(out)}
	v.state, _ = out["state"].(string)
	round, _ := out["round"].(float64)
	v.round = int(round)
	turn, _ := out["turn"].(string)
	v.turn = sideOf(side, turn)
	ap, _ := out["approvals"].(map[string]any)
	you, _ := ap["you"].(string)
	them, _ := ap["them"].(string)
	v.approvals[sideIndex(side)], v.approvals[sideIndex(other(side))] = you, them
	p, _ := out["pending_confirmation"].(map[string]any)
	v.pending, _ = p["id"].(string)
	return v
}

// viewOfApp reads the service's own view (the humans read through it).
func viewOfApp(side string, v *app.View) roomView {
	r := roomView{state: string(v.State), round: v.Round}
	if v.Turn != nil {
		r.turn = sideOf(side, *v.Turn)
	}
	if v.TermsOnTable != nil && len(v.TermsOnTable.Options) > 0 {
		r.table = string(v.TermsOnTable.Options[0].SubjectHash)
	}
	if v.Approvals.You != nil {
		r.approvals[sideIndex(side)] = string(*v.Approvals.You)
	}
	if v.Approvals.Them != nil {
		r.approvals[sideIndex(other(side))] = string(*v.Approvals.Them)
	}
	if v.PendingConfirmation != nil {
		r.pending = v.PendingConfirmation.ID
	}
	return r
}

// outcome is what a tool's answer tells the history.
func outcome(side string, res result) histOut {
	if res.err != "" {
		return refusal(res.err)
	}
	// A request's confirmation is the room's pending_confirmation.
	v := viewOfResult(side, res.out)
	return histOut{known: true, view: v, cid: v.pending}
}

// termsHash is the subject_hash of terms under raceSchema, computed by the
// protocol package (the same as the server's: the vectors hold both).
func termsHash(terms map[string]any) string {
	schema, _ := json.Marshal(raceSchema)
	s, _, err := negotiation.ParseSchema(schema)
	if err != nil {
		panic(err)
	}
	b, _ := json.Marshal(terms)
	t, err := s.ParseTerms(b)
	if err != nil {
		panic(err)
	}
	return string(t.Hash())
}
