package negotiation

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/taasky/taasky/internal/golden"
)

// refusalWords is a refusal as the catalog says it, beside its message:
// what testdata/refusals.golden.json holds for internal/locale to check
// (negotiation may not import it), that every key is in every language
// and that the English text is the message word for word.
type refusalWords struct {
	Code    Code   `json:"code"`
	Message string `json:"message"`
	At      string `json:"at,omitempty"`
	Key     string `json:"key"`
	Args    []any  `json:"args,omitempty"`
}

// refusals collects the refusals the vector tests meet (errText notes
// each), while TestRefusalWords runs them.
var refusals refusalLog

type refusalLog struct {
	mu   sync.Mutex
	on   bool
	seen map[string]refusalWords
}

func (l *refusalLog) note(err error) {
	e, ok := err.(*Error)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.on {
		return
	}
	add := func(msg string, w Words) {
		l.seen[msg] = refusalWords{Code: e.Code, Message: msg, At: w.At, Key: w.Key, Args: w.Args}
	}
	add(e.Message, e.Words)
	for _, f := range e.Faults {
		add(f.Message, f.Words)
	}
}

// TestRefusalWords: every refusal of the vectors that a person can meet
// (all but a schema's and limits' rules, which only an agent writes, and
// a title's lookalikes) carries its words: a key for the catalog, the
// values that fill it, and the place its message begins with. The list
// is testdata/refusals.golden.json, which internal/locale's tests read.
func TestRefusalWords(t *testing.T) {
	refusals.mu.Lock()
	refusals.on, refusals.seen = true, map[string]refusalWords{}
	refusals.mu.Unlock()
	defer func() {
		refusals.mu.Lock()
		refusals.on = false
		refusals.mu.Unlock()
	}()
	for name, run := range map[string]func(*testing.T){"terms": TestTermsVectors, "limits": TestLimitsVectors,
		"titles": TestTitleVectors, "rooms": TestRoomVectors, "moves": TestMovesVectors, "faults": TestEveryFaultAtOnce} {
		t.Run(name, run)
	}
	var out []refusalWords
	for _, w := range refusals.seen {
		out = append(out, w)
	}
	slices.SortFunc(out, func(a, b refusalWords) int { return strings.Compare(a.Message, b.Message) })
	var keyed int
	for _, w := range out {
		if w.Key != "" {
			keyed++
			continue
		}
		if !agentOnly(w) {
			t.Errorf("%q has no words for the catalog", w.Message)
		}
	}
	if keyed < 60 {
		t.Fatalf("%d refusals with words: the vectors were not all run", keyed)
	}
	golden.JSON(t, "refusals.golden.json", out)
}

// agentOnly tells the refusals only an agent meets: a schema's and
// limits' rules (a person answers with the inviter's schema and no
// limits), and a title that imitates something else.
func agentOnly(w refusalWords) bool {
	return w.Code == CodeInvalidSchema || w.Code == CodeInvalidLimits || strings.HasPrefix(w.Message, "title: ")
}
