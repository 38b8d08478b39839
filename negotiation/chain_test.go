package negotiation

import (
	"encoding/json"
	"testing"
)

// TestChainVectors plays vectors/chain.json: the JCS form of any JSON
// value, and each event's link and the head of worked logs.
func TestChainVectors(t *testing.T) {
	var f struct {
		Description string      `json:"description"`
		Genesis     SubjectHash `json:"genesis"`
		Canonical   []struct {
			Name      string `json:"name"`
			JSON      string `json:"json"`
			Canonical string `json:"canonical"`
		} `json:"canonical"`
		Chains []struct {
			Name   string            `json:"name"`
			Events []json.RawMessage `json:"events"`
			Links  []SubjectHash     `json:"links"`
			Head   SubjectHash       `json:"head"`
		} `json:"chains"`
	}
	readVector(t, "chain.json", &f)
	if f.Genesis != ChainGenesis {
		t.Errorf("genesis %s, want %s", ChainGenesis, f.Genesis)
	}
	if len(f.Canonical) == 0 || len(f.Chains) == 0 {
		t.Fatal("vectors/chain.json holds no cases")
	}
	for _, c := range f.Canonical {
		got, err := Canonical([]byte(c.JSON))
		if err != nil || string(got) != c.Canonical {
			t.Errorf("%s: %s (%v), want %s", c.Name, got, err, c.Canonical)
		}
	}
	for _, c := range f.Chains {
		prev := ChainGenesis
		var events [][]byte
		for i, ev := range c.Events {
			if c.Links[i] != prev {
				t.Errorf("%s: event %d: link %s, want %s", c.Name, i+1, prev, c.Links[i])
			}
			var err error
			if prev, err = ChainLink(prev, i+1, ev); err != nil {
				t.Fatalf("%s: event %d: %v", c.Name, i+1, err)
			}
			events = append(events, ev)
		}
		if prev != c.Head {
			t.Errorf("%s: head %s, want %s", c.Name, prev, c.Head)
		}
		if b := CheckChain(events, c.Links, c.Head); b != nil {
			t.Errorf("%s: CheckChain: %+v", c.Name, b)
		}
		// Every single change breaks the chain where it happened.
		for i := range events {
			tampered := append([][]byte(nil), events...)
			tampered[i] = append([]byte(`{"tampered":true,"was":`), append(append([]byte(nil), events[i]...), '}')...)
			if b := CheckChain(tampered, c.Links, c.Head); b == nil || b.Link != i+2 {
				t.Errorf("%s: event %d changed: break %+v, want at link %d", c.Name, i+1, b, i+2)
			}
			links := append([]SubjectHash(nil), c.Links...)
			links[i] = "sha256:" + SubjectHash(string(c.Head)[7:])
			if b := CheckChain(events, links, c.Head); b == nil || b.Link != i+1 {
				t.Errorf("%s: link %d changed: break %+v", c.Name, i+1, b)
			}
		}
		if len(events) > 1 {
			swapped := append([][]byte{events[1], events[0]}, events[2:]...)
			if b := CheckChain(swapped, c.Links, c.Head); b == nil {
				t.Errorf("%s: reordered events chain", c.Name)
			}
		}
	}
}
