package mcpserver

import (
	"context"
	"encoding/json"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

type handler = func(ctx context.Context, agent app.Agent, args json.RawMessage) (any, error)

// roomOut is a room view as the tools return it: the latest rounds only
// (negotiation.Window) unless the whole history is asked for.
type roomOut struct {
	*app.View
	Rounds        []app.RoundView `json:"rounds"`
	EarlierRounds int             `json:"earlier_rounds,omitempty"`
	ForYourHuman  string          `json:"for_your_human"`
}

func room(v *app.View, history bool) *roomOut {
	from := negotiation.Window(len(v.Rounds), history)
	return &roomOut{View: v, Rounds: v.Rounds[from:], EarlierRounds: from, ForYourHuman: forYourHuman(v)}
}

// inRoom is the result of a tool that answers with the room and nothing
// else: every tool's room is under "room". negotiation_read of an agreed
// room adds its receipt.
type inRoom struct {
	Room    *roomOut `json:"room"`
	Receipt string   `json:"receipt,omitempty"`
}

func (s *Server) open(ctx context.Context, agent app.Agent, raw json.RawMessage) (any, error) {
	var in struct {
		SubjectSchema json.RawMessage   `json:"subject_schema"`
		Limits        json.RawMessage   `json:"limits"`
		Subject       json.RawMessage   `json:"subject"`
		Options       []json.RawMessage `json:"options"`
		Slots         []json.RawMessage `json:"slots"`
		Preapprove    bool              `json:"preapprove"`
		Title         *string           `json:"title"`
		Deadline      string            `json:"deadline"`
		InviteEmail   string            `json:"invite_email"`
	}
	if err := decodeArgs(raw, &in); err != nil {
		return nil, err
	}
	oi := app.OpenInput{Schema: optional(in.SubjectSchema), Limits: optional(in.Limits), Subject: optional(in.Subject),
		Options: in.Options, Slots: in.Slots, Preapprove: in.Preapprove, InviteEmail: in.InviteEmail}
	if in.Title != nil {
		if err := negotiation.CheckTitle(*in.Title); err != nil { // "" too: a title given is 1 to 120 characters
			return nil, app.Errorf(app.ErrInvalid, "%s", err.Error())
		}
		oi.Title = *in.Title
	}
	if in.Deadline != "" {
		d, err := time.Parse(time.RFC3339, in.Deadline)
		if err != nil {
			return nil, app.Errorf(app.ErrInvalid, "deadline: must be an RFC 3339 moment with an offset, like 2026-12-03T18:00:00+02:00")
		}
		oi.Deadline = &d
	}
	res, err := s.svc.Open(ctx, agent, oi)
	if err != nil {
		return nil, err
	}
	return struct {
		RoomToken  string   `json:"room_token"`
		InviteURL  string   `json:"invite_url"`
		InviteCode string   `json:"invite_code"`
		Warnings   []string `json:"warnings,omitempty"`
		Room       *roomOut `json:"room"`
	}{res.RoomToken, res.InviteURL, res.InviteCode, res.Warnings, room(res.View, false)}, nil
}

func (s *Server) join(ctx context.Context, agent app.Agent, raw json.RawMessage) (any, error) {
	var in struct {
		Invite        string          `json:"invite"`
		InviteCode    string          `json:"invite_code"` // the names invite had before
		InviteURL     string          `json:"invite_url"`
		SubjectSchema json.RawMessage `json:"subject_schema"`
		Limits        json.RawMessage `json:"limits"`
	}
	if err := decodeArgs(raw, &in); err != nil {
		return nil, err
	}
	code, given := "", 0
	for _, c := range []string{in.Invite, in.InviteCode, in.InviteURL} {
		if c != "" {
			code, given = c, given+1
		}
	}
	switch given {
	case 0:
		return nil, app.Errorf(app.ErrInvalid, "invite: required (the invitation's code or its whole URL)")
	case 1:
	default:
		return nil, app.Errorf(app.ErrInvalid, "invite: pass it once (invite, or its old names invite_code or invite_url)")
	}
	res, err := s.svc.Join(ctx, agent, app.JoinInput{InviteCode: code, Schema: optional(in.SubjectSchema), Limits: optional(in.Limits)})
	if err != nil {
		return nil, err
	}
	return struct {
		RoomToken string   `json:"room_token"`
		Room      *roomOut `json:"room"`
	}{res.RoomToken, room(res.View, false)}, nil
}

func (s *Server) list(ctx context.Context, agent app.Agent, raw json.RawMessage) (any, error) {
	var in struct {
		RoomTokens []string `json:"room_tokens"`
		Cursor     string   `json:"cursor"`
	}
	if err := decodeArgs(raw, &in); err != nil {
		return nil, err
	}
	if len(in.RoomTokens) > 0 && in.Cursor != "" {
		return nil, app.Errorf(app.ErrInvalid, "cursor: pages the list of your rooms; pass it without room_tokens")
	}
	rooms, next, err := s.svc.List(ctx, agent, in.RoomTokens, in.Cursor)
	if err != nil {
		return nil, err
	}
	if rooms == nil {
		rooms = []app.Summary{}
	}
	return struct {
		Rooms      []app.Summary `json:"rooms"`
		NextCursor string        `json:"next_cursor,omitempty"`
	}{rooms, next}, nil
}

type tokenArgs struct {
	RoomToken string `json:"room_token"`
}

func (s *Server) read(ctx context.Context, agent app.Agent, raw json.RawMessage) (any, error) {
	var in struct {
		RoomToken   string `json:"room_token"`
		History     bool   `json:"history"`
		WaitSeconds int    `json:"wait_seconds"`
	}
	if err := decodeArgs(raw, &in); err != nil {
		return nil, err
	}
	v, err := s.svc.ReadWait(ctx, agent, in.RoomToken, time.Duration(in.WaitSeconds)*time.Second)
	if err != nil {
		return nil, err
	}
	var receipt string // an agreed room's: issued once, then the same bytes
	if v.State == negotiation.StateAgreed {
		if receipt, err = s.svc.Receipt(ctx, v.RoomID); err != nil {
			return nil, err
		}
	}
	if in.History {
		return inRoom{room(v, true), receipt}, nil
	}
	b, err := v.Rendered(func(v *app.View) ([]byte, error) { return json.Marshal(inRoom{room(v, false), receipt}) })
	return json.RawMessage(b), err
}

func (s *Server) propose(ctx context.Context, agent app.Agent, raw json.RawMessage) (any, error) {
	var in struct {
		RoomToken string              `json:"room_token"`
		Verdict   negotiation.Verdict `json:"verdict"`
		Subject   json.RawMessage     `json:"subject"`
		Options   []json.RawMessage   `json:"options"`
		Fields    []string            `json:"fields"`
	}
	if err := decodeArgs(raw, &in); err != nil {
		return nil, err
	}
	switch in.Verdict {
	case negotiation.VerdictOffer, negotiation.VerdictCounter, negotiation.VerdictNeedMoreDetail:
	case negotiation.VerdictApprove, negotiation.VerdictReject:
		return nil, app.Errorf(app.ErrInvalid, "verdict: %s goes through negotiation_respond: your human confirms it", in.Verdict)
	case negotiation.VerdictCancel:
		return nil, app.Errorf(app.ErrInvalid, "verdict: cancel goes through negotiation_cancel: your human confirms it")
	default:
		return nil, app.Errorf(app.ErrInvalid, "verdict: must be offer, counter or need_more_detail")
	}
	v, err := s.svc.Propose(ctx, agent, in.RoomToken, app.MoveInput{Verdict: in.Verdict, Subject: optional(in.Subject), Options: in.Options, Fields: in.Fields})
	if err != nil {
		return nil, err
	}
	return inRoom{Room: room(v, false)}, nil
}

// waiting is what respond and cancel answer: the human is asked.
type waiting struct {
	Status       string                `json:"status"`
	Confirmation *app.ConfirmationView `json:"confirmation"`
	Room         *roomOut              `json:"room"`
}

func (s *Server) respond(ctx context.Context, agent app.Agent, raw json.RawMessage) (any, error) {
	var in struct {
		RoomToken   string                  `json:"room_token"`
		Verdict     negotiation.Verdict     `json:"verdict"`
		SubjectHash negotiation.SubjectHash `json:"subject_hash"`
	}
	if err := decodeArgs(raw, &in); err != nil {
		return nil, err
	}
	switch in.Verdict {
	case negotiation.VerdictApprove:
		if in.SubjectHash == "" {
			return nil, app.Errorf(app.ErrInvalid, "subject_hash: required to approve (the hash of the terms you accept, from negotiation_read)")
		}
	case negotiation.VerdictReject:
		if in.SubjectHash != "" {
			return nil, app.Errorf(app.ErrInvalid, "subject_hash: goes with approve only")
		}
	default:
		return nil, app.Errorf(app.ErrInvalid, "verdict: must be approve or reject")
	}
	return s.ask(ctx, agent, in.RoomToken, in.Verdict, in.SubjectHash)
}

func (s *Server) cancel(ctx context.Context, agent app.Agent, raw json.RawMessage) (any, error) {
	var in tokenArgs
	if err := decodeArgs(raw, &in); err != nil {
		return nil, err
	}
	return s.ask(ctx, agent, in.RoomToken, negotiation.VerdictCancel, "")
}

func (s *Server) ask(ctx context.Context, agent app.Agent, token string, v negotiation.Verdict, h negotiation.SubjectHash) (any, error) {
	cv, view, err := s.svc.RequestConfirmation(ctx, agent, token, v, h)
	if err != nil {
		return nil, err
	}
	return waiting{Status: "waiting_for_your_human", Confirmation: cv, Room: room(view, false)}, nil
}
