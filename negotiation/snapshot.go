package negotiation

import (
	"encoding/json"
	"fmt"
	"time"
)

// roomJSON is a room as stored: everything but the limits, which are
// secret and stored encrypted apart.
type roomJSON struct {
	State        State              `json:"state"`
	ClosedReason ClosedReason       `json:"closed_reason,omitempty"`
	Round        int                `json:"round"`
	Turn         Side               `json:"turn,omitempty"`
	Schemas      [2]json.RawMessage `json:"schemas"`
	Table        *tableJSON         `json:"table,omitempty"`
	Approvals    [2]SubjectHash     `json:"approvals"`
	Slots        bool               `json:"slots,omitempty"`
	Preapprove   bool               `json:"preapprove,omitempty"`
	Preapproved  bool               `json:"preapproved,omitempty"`
	Pending      [2]*Confirmation   `json:"pending"`
	Answered     []*HumanAnswer     `json:"answered,omitempty"` // two, or none when neither side has one
	NoDeal       []string           `json:"no_deal,omitempty"`
	Withheld     []string           `json:"no_deal_withheld,omitempty"` // never shown: WithheldNoDeal
	OpenedAt     time.Time          `json:"opened_at"`
	ExpiresAt    time.Time          `json:"expires_at"`
	Deadline     time.Time          `json:"deadline"`
}

type tableJSON struct {
	By        Side              `json:"by"`
	Round     int               `json:"round"`
	AsOptions bool              `json:"as_options,omitempty"`
	Terms     []json.RawMessage `json:"terms"`
}

// Snapshot is the room in a stable JSON form: the same room always gives
// the same bytes, so a stored room and a replayed one compare byte for byte.
func (r *Room) Snapshot() []byte {
	j := roomJSON{State: r.State, ClosedReason: r.ClosedReason, Round: r.Round, Turn: r.Turn,
		Approvals: r.Approvals, Slots: r.Slots, Preapprove: r.Preapprove, Preapproved: r.Preapproved,
		Pending: r.Pending, NoDeal: r.NoDeal, Withheld: r.NoDealWithheld,
		OpenedAt: r.OpenedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC(), Deadline: r.Deadline.UTC()}
	for i, p := range r.Parties {
		if p.Schema != nil {
			j.Schemas[i] = p.Schema.Declared()
		}
	}
	if t := r.Table; t != nil {
		j.Table = &tableJSON{By: t.By, Round: t.Round, AsOptions: t.AsOptions}
		for _, o := range t.Options {
			j.Table.Terms = append(j.Table.Terms, o.Canonical())
		}
	}
	for i, c := range j.Pending {
		if c != nil {
			cc := *c
			cc.RequestedAt = cc.RequestedAt.UTC()
			j.Pending[i] = &cc
		}
	}
	if r.Answered != [2]*HumanAnswer{} {
		j.Answered = r.Answered[:]
	}
	b, err := json.Marshal(j)
	if err != nil {
		panic(err) // only plain values: cannot fail
	}
	return b
}

// Restore rebuilds a room from its Snapshot and each side's limits.
func Restore(snapshot []byte, limits [2][]byte) (*Room, error) {
	return RestoreWith(nil, nil, snapshot, limits)
}

// Schemas gives the parsed schema of a schema's JSON, for RestoreWith: a
// cache the caller keeps (and bounds), so that restoring a room does not
// parse the same schemas again on every move. A Schema never changes once
// parsed, so one may be shared.
type Schemas interface {
	Parse(data []byte) (*Schema, error)
}

// RestoreWith is Restore taking the schemas from schemas (nil: parse
// them) and decoding the snapshot with unmarshal, encoding/json's
// Unmarshal or a drop-in for it (nil: encoding/json's). This package
// imports only the standard library; a faster decoder is the caller's.
func RestoreWith(schemas Schemas, unmarshal func([]byte, any) error, snapshot []byte, limits [2][]byte) (*Room, error) {
	if unmarshal == nil {
		unmarshal = json.Unmarshal
	}
	var j roomJSON
	if err := unmarshal(snapshot, &j); err != nil {
		return nil, fmt.Errorf("restore room: %w", err)
	}
	r := &Room{State: j.State, ClosedReason: j.ClosedReason, Round: j.Round, Turn: j.Turn,
		Approvals: j.Approvals, Slots: j.Slots, Preapprove: j.Preapprove, Preapproved: j.Preapproved,
		Pending: j.Pending, NoDeal: j.NoDeal, NoDealWithheld: j.Withheld, OpenedAt: j.OpenedAt, ExpiresAt: j.ExpiresAt, Deadline: j.Deadline}
	if len(j.Answered) == 2 {
		r.Answered = [2]*HumanAnswer{j.Answered[0], j.Answered[1]}
	}
	for i, raw := range j.Schemas {
		if raw == nil || string(raw) == "null" {
			continue
		}
		s, err := parseSchema(schemas, raw)
		if err != nil {
			return nil, fmt.Errorf("restore room: schema %d: %w", i, err)
		}
		lim, err := s.ParseLimits(limits[i])
		if err != nil {
			return nil, fmt.Errorf("restore room: limits %d: %w", i, err)
		}
		r.Parties[i] = Party{Schema: s, Limits: lim}
	}
	if t := j.Table; t != nil {
		r.Table = &Table{By: t.By, Round: t.Round, AsOptions: t.AsOptions}
		if t.By != SideA && t.By != SideB || r.Party(t.By).Schema == nil {
			return nil, fmt.Errorf("restore room: a table by %q, who has no schema", t.By)
		}
		for _, raw := range t.Terms {
			o, err := r.Party(t.By).Schema.ParseTerms(raw)
			if err != nil {
				return nil, fmt.Errorf("restore room: table: %w", err)
			}
			r.Table.Options = append(r.Table.Options, o)
		}
	}
	return r, nil
}

// parseSchema parses data, through schemas if there are.
func parseSchema(schemas Schemas, data []byte) (*Schema, error) {
	if schemas != nil {
		return schemas.Parse(data)
	}
	s, _, err := ParseSchema(data)
	return s, err
}
