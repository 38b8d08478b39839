package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/negotiation"
)

type handler = func(ctx context.Context, agent app.Agent, args json.RawMessage) (any, error)

// roomOut is a room view as the tools return it: the latest round only
// (negotiation.Window) unless the whole history is asked for, and each
// set of terms once: an entry whose terms (a move) or hash (an approval)
// are the ones on the table leaves them out (terms_on_table has them,
// with their hashes and what they break of your limits).
type roomOut struct {
	*app.View
	Rounds        []app.RoundView `json:"rounds"`
	EarlierRounds int             `json:"earlier_rounds,omitempty"`
	ForYourHuman  string          `json:"for_your_human"`
}

func room(v *app.View, history bool) *roomOut {
	from := negotiation.Window(len(v.Rounds), history)
	rounds := slices.Clone(v.Rounds[from:]) // v is shared between reads
	for i, r := range rounds {
		if onTable(r.Terms, v.TermsOnTable) {
			rounds[i].Terms = nil
		}
		if t := v.TermsOnTable; t != nil && len(t.Options) == 1 && r.SubjectHash == t.Options[0].SubjectHash {
			rounds[i].SubjectHash = ""
		}
	}
	return &roomOut{View: v, Rounds: rounds, EarlierRounds: from, ForYourHuman: forYourHuman(v)}
}

// onTable reports whether a move's terms are the terms on the table.
func onTable(terms []app.OptionView, t *app.TableView) bool {
	if t == nil || len(terms) == 0 || len(terms) != len(t.Options) {
		return false
	}
	for i, o := range terms {
		if o.SubjectHash != t.Options[i].SubjectHash {
			return false
		}
	}
	return true
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
		Deadline      *string           `json:"deadline"`
		InviteEmail   string            `json:"invite_email"`
	}
	f := decodeArgs(raw, &in)
	oi := app.OpenInput{Schema: optional(in.SubjectSchema), Limits: optional(in.Limits), Subject: optional(in.Subject),
		Options: in.Options, Slots: in.Slots, Preapprove: in.Preapprove, InviteEmail: in.InviteEmail}
	if in.Title != nil {
		if err := negotiation.CheckTitle(*in.Title); err != nil { // "" too: a title given is 1 to 120 characters
			f.add("title", negotiation.RuleInvalidValue, "%s", err.Error())
		}
		oi.Title = *in.Title
	}
	if in.Deadline != nil { // "" too: a deadline given is a moment, as a moment in terms is
		if d, err := negotiation.ReadMoment("deadline", *in.Deadline); err != nil {
			f.add("deadline", negotiation.RuleInvalidValue, "%s", err.Message)
		} else {
			oi.Deadline = &d
		}
	}
	if err := f.err(); err != nil {
		return nil, err
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
		InviteCode    string          `json:"invite_code" args:"old"` // the names invite had before
		InviteURL     string          `json:"invite_url" args:"old"`
		SubjectSchema json.RawMessage `json:"subject_schema"`
		Limits        json.RawMessage `json:"limits"`
	}
	f := decodeArgs(raw, &in)
	code, given := "", 0
	for _, c := range []string{in.Invite, in.InviteCode, in.InviteURL} {
		if c != "" {
			code, given = c, given+1
		}
	}
	switch given {
	case 0:
		f.add("invite", negotiation.RuleMissingField, "invite: required (the invitation's code or its whole URL)")
	case 1:
	default:
		f.add("invite", negotiation.RuleInvalidValue, "invite: pass it once (invite, or its old names invite_code or invite_url)")
	}
	if err := f.err(); err != nil {
		return nil, err
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
	f := decodeArgs(raw, &in)
	if in.RoomTokens != nil && len(in.RoomTokens) == 0 {
		// An empty list is not "all my rooms": that is leaving it out.
		f.add("room_tokens", negotiation.RuleInvalidValue, "room_tokens: at least one token; leave it out to list all your rooms")
	}
	if len(in.RoomTokens) > 0 && in.Cursor != "" {
		f.add("cursor", negotiation.RuleInvalidValue, "cursor: pages the list of your rooms; pass it without room_tokens")
	}
	if err := f.err(); err != nil {
		return nil, err
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
		Receipt     bool   `json:"receipt"`
	}
	f := decodeArgs(raw, &in)
	f.needToken(in.RoomToken)
	if in.WaitSeconds < 0 || in.WaitSeconds > int(app.MaxWait/time.Second) {
		f.add("wait_seconds", negotiation.RuleInvalidValue, "wait_seconds: 0 to %d", int(app.MaxWait/time.Second))
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	wait := time.Duration(in.WaitSeconds) * time.Second
	ctx, cancel := context.WithTimeout(ctx, wait+callTimeout) // the tool waits (wrap)
	defer cancel()
	// A read of the whole history without a wait reads the room whole at
	// once: one statement, as a read is. Read would read it light first
	// (its kept view), and the history again.
	var v *app.View
	var err error
	if in.History && wait == 0 {
		v, err = s.svc.ReadHistory(ctx, agent, in.RoomToken)
	} else {
		v, err = s.svc.ReadWait(ctx, agent, in.RoomToken, wait)
	}
	if err != nil {
		return nil, err
	}
	// An agreed room's receipt, when asked for (a JWS of about 1.4 KB,
	// kept out of every other read): issued once, then the same bytes.
	var receipt string
	if in.Receipt && v.State == negotiation.StateAgreed {
		if receipt, err = s.svc.Receipt(ctx, v.RoomID); err != nil {
			return nil, err
		}
	}
	if in.History {
		if v.Elided() { // the waited view leaves out earlier rounds' terms: read them
			if v, err = s.svc.ReadHistory(ctx, agent, in.RoomToken); err != nil {
				return nil, err
			}
		}
		return inRoom{room(v, true), receipt}, nil
	}
	if receipt != "" {
		return inRoom{room(v, false), receipt}, nil
	}
	b, err := v.Rendered(func(v *app.View) ([]byte, error) { return json.Marshal(inRoom{Room: room(v, false)}) })
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
	f := decodeArgs(raw, &in)
	f.needToken(in.RoomToken)
	switch in.Verdict {
	case negotiation.VerdictOffer, negotiation.VerdictCounter, negotiation.VerdictNeedMoreDetail:
	case negotiation.VerdictApprove, negotiation.VerdictReject:
		f.add("verdict", negotiation.RuleInvalidValue, "verdict: %s goes through negotiation_respond: your human confirms it", in.Verdict)
	case negotiation.VerdictCancel:
		f.add("verdict", negotiation.RuleInvalidValue, "verdict: cancel goes through negotiation_cancel: your human confirms it")
	default:
		f.add("verdict", negotiation.RuleInvalidValue, "verdict: must be offer, counter or need_more_detail")
	}
	if in.Fields != nil && len(in.Fields) == 0 {
		f.add("fields", negotiation.RuleInvalidValue, "fields: name at least one field, or leave it out")
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	v, err := s.svc.Propose(ctx, agent, in.RoomToken, app.MoveInput{Verdict: in.Verdict, Subject: optional(in.Subject), Options: in.Options, Fields: in.Fields})
	if err != nil {
		return nil, err
	}
	return inRoom{Room: room(v, false)}, nil
}

// waiting is what respond and cancel answer: the human is asked, by
// confirmation (while it waits, also the room's pending_confirmation; a
// retried call meets it as it stands now, with its outcome once the
// human answered).
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
	f := decodeArgs(raw, &in)
	f.needToken(in.RoomToken)
	switch in.Verdict {
	case negotiation.VerdictApprove:
		if in.SubjectHash == "" {
			f.add("subject_hash", negotiation.RuleMissingField, "subject_hash: required to approve (the hash of the terms you accept, from negotiation_read)")
		}
	case negotiation.VerdictReject:
		if in.SubjectHash != "" {
			f.add("subject_hash", negotiation.RuleInvalidValue, "subject_hash: goes with approve only")
		}
	default:
		f.add("verdict", negotiation.RuleInvalidValue, "verdict: must be approve or reject")
	}
	if err := f.err(); err != nil {
		return nil, err
	}
	return s.ask(ctx, agent, in.RoomToken, in.Verdict, in.SubjectHash)
}

func (s *Server) cancel(ctx context.Context, agent app.Agent, raw json.RawMessage) (any, error) {
	var in tokenArgs
	f := decodeArgs(raw, &in)
	f.needToken(in.RoomToken)
	if err := f.err(); err != nil {
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
