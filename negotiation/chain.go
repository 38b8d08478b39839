package negotiation

import "strconv"

// The room log's chain. Each event of a room carries the hash of the
// event before it, so the whole log comes down to one head hash: change,
// drop or reorder one event and every link after it, and the head, no
// longer match. An event's hash is
//
//	sha256(JCS({"event": <the event as logged>, "prev": <its link>, "seq": <its seq>}))
//
// written "sha256:" and lowercase hex, like a subject_hash; the first
// event's link is ChainGenesis. docs/protocol.md states the rule and
// vectors/chain.json holds worked cases.

// ChainGenesis is the link of a room's first event: nothing came before it.
const ChainGenesis SubjectHash = "sha256:0000000000000000000000000000000000000000000000000000000000000000"

// ChainLink is the hash of the event logged as seq (from 1) with link prev:
// the link the next event carries, or the room's head when it is the last.
func ChainLink(prev SubjectHash, seq int, event []byte) (SubjectHash, error) {
	ev, err := Canonical(event)
	if err != nil {
		return "", err
	}
	buf := make([]byte, 0, len(ev)+len(prev)+40)
	buf = append(buf, `{"event":`...)
	buf = append(buf, ev...)
	buf = append(buf, `,"prev":`...)
	buf = appendJCSString(buf, string(prev))
	buf = append(buf, `,"seq":`...)
	buf = strconv.AppendInt(buf, int64(seq), 10)
	buf = append(buf, '}')
	return hashOf(buf), nil
}

// ChainBreak is where a log stops chaining: the link that event Link
// carries (Link is one past the last event for the room's head) is not the
// hash of event Link-1 (0: not the genesis link). The event most likely
// changed is Link-1; a changed link is told apart by no one but a receipt.
type ChainBreak struct {
	Link      int
	Want, Got SubjectHash // the hash the chain gives, the link or head stored
}

// CheckChain walks a room's log (events as logged, links as stored, one
// per event) up to its stored head and returns the first break, or nil.
func CheckChain(events [][]byte, links []SubjectHash, head SubjectHash) *ChainBreak {
	want := ChainGenesis
	for i, ev := range events {
		var got SubjectHash
		if i < len(links) {
			got = links[i]
		}
		if got != want {
			return &ChainBreak{Link: i + 1, Want: want, Got: got}
		}
		var err error
		if want, err = ChainLink(want, i+1, ev); err != nil {
			want = "" // an event that is no longer JSON hashes to nothing
		}
	}
	if head != want {
		return &ChainBreak{Link: len(events) + 1, Want: want, Got: head}
	}
	return nil
}
