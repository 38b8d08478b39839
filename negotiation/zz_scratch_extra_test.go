package negotiation

import (
	"fmt"
	"testing"
	"time"
)

func TestScratch(t *testing.T) {
	s := mustSchema(t, []byte(`{"t":{"type":"timerange","label":"T"}}`))
	for _, in := range []string{
		`{"t":{"start":"9999-12-31T23:00:00-02:00","end":"9999-12-31T23:30:00-02:00"}}`,
		`{"t":{"start":"0000-01-01T00:10:00+01:00","end":"0000-01-01T00:30:00+01:00"}}`,
	} {
		terms, err := s.ParseTerms([]byte(in))
		fmt.Println(err)
		if err == nil {
			fmt.Println(string(terms.Canonical()))
			_, err := s.ParseTerms(terms.Canonical())
			fmt.Println("reparse:", err)
		}
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r, ev, _, err := Open(OpenRequest{Schema: []byte(`{"t":{"type":"timerange","label":"T"}}`), Subject: []byte(`{"t":{"start":"9999-12-31T23:00:00-02:00","end":"9999-12-31T23:30:00-02:00"}}`)}, at)
	fmt.Println(err)
	_, err = Replay(ev, [2][]byte{})
	fmt.Println("replay:", err)
	_, err = Restore(r.Snapshot(), [2][]byte{})
	fmt.Println("restore:", err)
	// Next bug
	r, _, _, _ = Open(OpenRequest{Schema: []byte(`{"t":{"type":"int","label":"T"}}`)}, at)
	r, _, _ = r.Join([]byte(`{"t":{"type":"int","label":"T"}}`), nil, at)
	r, _, err = r.Request(SideA, VerdictCancel, "", "c1", at)
	fmt.Println(err, r.Next(SideA))
	_, _, err = r.Propose(SideA, Move{Verdict: VerdictCounter, Subject: []byte(`{"t":1}`)}, at)
	fmt.Println(err)
	_, _, err = r.Propose(SideA, Move{Verdict: VerdictOffer, Subject: []byte(`{"t":1}`)}, at)
	fmt.Println(err)
}
