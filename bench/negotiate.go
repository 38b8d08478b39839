package bench

import (
	"context"
	"fmt"
	"net/http"
	"time"
)

// Pair is two agents in two accounts, and their two humans' mailboxes.
type Pair struct {
	A, B           *Agent
	EmailA, EmailB string
	Sink           *Sink
	Web            *http.Client // the humans' browser for one-tap links
	Lat            *Latencies
	clients        gate
	lastRoom       [2]string      // the room tokens of the pair's latest negotiation, a's and b's
	seen           map[string]int // per mailbox: the next message to look at
}

type roomView struct {
	State        string `json:"state"`
	Round        int    `json:"round"`
	TermsOnTable *struct {
		Options []struct {
			SubjectHash string `json:"subject_hash"`
		} `json:"options"`
	} `json:"terms_on_table"`
}

type opened struct {
	RoomToken string   `json:"room_token"`
	InviteURL string   `json:"invite_url"`
	Room      roomView `json:"room"`
}

type joined struct {
	RoomToken string   `json:"room_token"`
	Room      roomView `json:"room"`
}

type waiting struct {
	Status       string `json:"status"`
	Confirmation struct {
		ID          string `json:"id"`
		SubjectHash string `json:"subject_hash"`
	} `json:"confirmation"`
}

var meetingSchema = map[string]any{
	"meeting_time": map[string]any{"type": "timerange", "label": "Meeting time"},
	"fee":          map[string]any{"type": "money", "label": "Fee", "currency": "EUR"},
}

func meetingTerms(n int) map[string]any {
	start := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC).Add(time.Duration(n%500) * time.Hour)
	return map[string]any{
		"meeting_time": map[string]any{"start": start.Format(time.RFC3339), "end": start.Add(30 * time.Minute).Format(time.RFC3339)},
		"fee":          map[string]any{"amount": fmt.Sprintf("%d.00", 100+n%400), "currency": "EUR"},
	}
}

// Result counts what one negotiation did.
type Result struct {
	Moves int // calls that changed a room, humans' answers included
	Reads int
}

// Negotiate runs one whole negotiation to agreement: open, join, offer and
// `counters` counters (or, with slots, a pick), then both sides approve and
// each human confirms through the one-tap link in their email.
func (p *Pair) Negotiate(ctx context.Context, slots bool, counters, n int) (Result, error) {
	var res Result
	var open opened
	var err error
	if slots {
		var ss []map[string]string
		for i := range 3 {
			s := time.Date(2026, 12, 1, 9+i, 0, 0, 0, time.UTC)
			ss = append(ss, map[string]string{"start": s.Format(time.RFC3339), "end": s.Add(30 * time.Minute).Format(time.RFC3339)})
		}
		err = p.A.Call(ctx, "negotiation_open", map[string]any{"slots": ss, "title": "Bench slots"}, &open)
	} else {
		err = p.A.Call(ctx, "negotiation_open", map[string]any{"subject_schema": meetingSchema, "title": "Bench"}, &open)
	}
	if err != nil {
		return res, err
	}
	res.Moves++
	var join joined
	args := map[string]any{"invite_url": open.InviteURL}
	if !slots {
		args["subject_schema"] = meetingSchema
	}
	if err := p.B.Call(ctx, "negotiation_join", args, &join); err != nil {
		return res, err
	}
	res.Moves++
	tokens := map[string]string{"a": open.RoomToken, "b": join.RoomToken}
	p.lastRoom = [2]string{open.RoomToken, join.RoomToken}
	agents := map[string]*Agent{"a": p.A, "b": p.B}
	turn := "b" // who answers the terms on the table
	if !slots {
		if err := p.A.Call(ctx, "negotiation_propose", map[string]any{"room_token": tokens["a"], "verdict": "offer", "subject": meetingTerms(n)}, nil); err != nil {
			return res, err
		}
		res.Moves++
		for i := range counters {
			if err := agents[turn].Call(ctx, "negotiation_propose", map[string]any{"room_token": tokens[turn], "verdict": "counter", "subject": meetingTerms(n + i + 1)}, nil); err != nil {
				return res, err
			}
			res.Moves++
			turn = other(turn)
		}
	}
	for range 2 {
		var read struct {
			Room roomView `json:"room"`
		}
		if err := agents[turn].Call(ctx, "negotiation_read", map[string]any{"room_token": tokens[turn]}, &read); err != nil {
			return res, err
		}
		v := read.Room
		res.Reads++
		if v.TermsOnTable == nil || len(v.TermsOnTable.Options) == 0 {
			return res, fmt.Errorf("nothing on the table to approve")
		}
		hash := v.TermsOnTable.Options[len(v.TermsOnTable.Options)-1].SubjectHash
		asked := time.Now()
		var w waiting
		if err := agents[turn].Call(ctx, "negotiation_respond", map[string]any{"room_token": tokens[turn], "verdict": "approve", "subject_hash": hash}, &w); err != nil {
			return res, err
		}
		res.Moves++
		email := p.EmailA
		if turn == "b" {
			email = p.EmailB
		}
		if err := p.confirm(ctx, email, asked); err != nil {
			return res, err
		}
		res.Moves++
		turn = other(turn)
	}
	var endRead struct {
		Room roomView `json:"room"`
	}
	if err := p.A.Call(ctx, "negotiation_read", map[string]any{"room_token": tokens["a"]}, &endRead); err != nil {
		return res, err
	}
	end := endRead.Room
	res.Reads++
	if end.State != "agreed" {
		return res, fmt.Errorf("the room ended %s, not agreed", end.State)
	}
	return res, nil
}

func other(s string) string {
	if s == "a" {
		return "b"
	}
	return "a"
}
