package negotiation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func readVector(t *testing.T, name string, into any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "vectors", name))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

type movesFile struct {
	Description string                     `json:"description"`
	Schema      json.RawMessage            `json:"schema"`
	Now         time.Time                  `json:"now"`
	Terms       map[string]json.RawMessage `json:"terms"`
	Cases       []struct {
		Name  string `json:"name"`
		Start string `json:"start"`
		Steps []struct {
			Actor   Side            `json:"actor"`
			Verdict Verdict         `json:"verdict"`
			Terms   string          `json:"terms"`
			Subject json.RawMessage `json:"subject"`
			Approve string          `json:"approve"`
			Join    Side            `json:"join"`
			Refused *string         `json:"refused"`
			Room    *struct {
				State State `json:"state"`
				Round *int  `json:"round"`
				Turn  *Side `json:"turn"`
			} `json:"room"`
		} `json:"steps"`
	} `json:"cases"`
}

// TestMovesVectors plays every case of vectors/moves.json, the approvals,
// rejections and cancels through a request and the human's confirmation.
func TestMovesVectors(t *testing.T) {
	var f movesFile
	readVector(t, "moves.json", &f)
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			at := f.Now
			r, _, _, err := Open(OpenRequest{Schema: f.Schema}, at)
			if err != nil {
				t.Fatal(err)
			}
			if c.Start != "draft" {
				if r, _, err = r.Join(f.Schema, nil, at); err != nil {
					t.Fatal(err)
				}
			}
			for i, st := range c.Steps {
				at = at.Add(time.Minute)
				before := r.Snapshot()
				var next *Room
				var err error
				switch {
				case st.Join != "":
					next, _, err = r.Join(f.Schema, nil, at)
				case st.Verdict == VerdictApprove || st.Verdict == VerdictReject || st.Verdict == VerdictCancel:
					hash := SubjectHash(st.Approve)
					if st.Approve == "on_table" {
						hash = r.Table.Options[0].Hash()
					}
					id := fmt.Sprintf("c%d", i)
					next, _, err = r.Request(st.Actor, st.Verdict, hash, id, at, Announced)
					if err == nil {
						var why string
						next, _, why, err = next.Decide(st.Actor, id, next.PendingFor(st.Actor).SubjectHash, true, at)
						if why != "" {
							t.Fatalf("step %d: confirmation void: %s", i, why)
						}
					}
				default:
					subject := st.Subject
					if st.Terms != "" {
						subject = f.Terms[st.Terms]
					}
					next, _, err = r.Propose(st.Actor, Move{Verdict: st.Verdict, Subject: subject}, at)
				}
				if st.Refused != nil {
					if err == nil {
						t.Fatalf("step %d (%s %s): applied, want refused %q", i, st.Actor, st.Verdict, *st.Refused)
					}
					if errText(err) != *st.Refused {
						t.Fatalf("step %d (%s %s): refused %q, want %q", i, st.Actor, st.Verdict, err, *st.Refused)
					}
					if !bytes.Equal(r.Snapshot(), before) {
						t.Fatalf("step %d: a refusal changed the room", i)
					}
					continue
				}
				if err != nil {
					t.Fatalf("step %d (%s %s): %v", i, st.Actor, st.Verdict, err)
				}
				r = next
				if w := st.Room; w != nil {
					if r.State != w.State {
						t.Errorf("step %d: state %s, want %s", i, r.State, w.State)
					}
					if w.Round != nil && r.Round != *w.Round {
						t.Errorf("step %d: round %d, want %d", i, r.Round, *w.Round)
					}
					want := Side("")
					if w.Turn != nil {
						want = *w.Turn
					}
					if r.Turn != want {
						t.Errorf("step %d: turn %q, want %q", i, r.Turn, want)
					}
				}
			}
		})
	}
}

type hashFile struct {
	Description string `json:"description"`
	Cases       []struct {
		Name        string          `json:"name"`
		Schema      json.RawMessage `json:"schema"`
		Terms       json.RawMessage `json:"terms"`
		Canonical   string          `json:"canonical"`
		SubjectHash SubjectHash     `json:"subject_hash"`
	} `json:"cases"`
}

func TestHashVectors(t *testing.T) {
	var f hashFile
	readVector(t, "hash.json", &f)
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			s, _, err := ParseSchema(c.Schema)
			if err != nil {
				t.Fatal(err)
			}
			terms, err := s.ParseTerms(c.Terms)
			if err != nil {
				t.Fatal(err)
			}
			if got := string(terms.Canonical()); got != c.Canonical {
				t.Errorf("canonical\n got %s\nwant %s", got, c.Canonical)
			}
			if terms.Hash() != c.SubjectHash {
				t.Errorf("hash %s, want %s", terms.Hash(), c.SubjectHash)
			}
			// The canonical form is a fixed point: it parses to itself.
			again, err := s.ParseTerms(terms.Canonical())
			if err != nil || again.Hash() != terms.Hash() {
				t.Errorf("canonical form does not reparse to the same hash: %v", err)
			}
		})
	}
}
