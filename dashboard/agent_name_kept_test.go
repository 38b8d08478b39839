package dashboard

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

// TestAgentNameKeptOnARefusal: a refused "create agent" (the name taken,
// or not readable) shows the name as typed in that account's field, which
// is marked invalid and described by the refusal; nothing is created.
// Before, the field came back empty, away from the message at the top.
func TestAgentNameKeptOnARefusal(t *testing.T) {
	t.Parallel()
	b := setup(t)
	alice := b.client(&b.alice)
	alice.get("/settings")
	field := regexp.MustCompile(`<input id="agent-name-alpha"[^>]*>`)
	for _, name := range []string{"Alpha Studio's agent", "Cal\u202endar"} {
		st, _, body := alice.post("/settings/agents", url.Values{"account": {"alpha"}, "name": {name}})
		if st != http.StatusConflict && st != http.StatusBadRequest {
			t.Fatalf("%q: %d", name, st)
		}
		in := field.FindString(body)
		want := `value="` + strings.ReplaceAll(name, "'", "&#39;") + `"`
		if !strings.Contains(in, want) || !strings.Contains(in, `aria-invalid="true"`) ||
			!strings.Contains(in, `aria-describedby="settings-error"`) {
			t.Fatalf("%q: the field after the refusal: %s", name, in)
		}
		if !strings.Contains(body, `id="settings-error"`) || !strings.Contains(body, "agent name") {
			t.Fatalf("%q: the refusal does not name the field", name)
		}
	}
	agents, err := b.accounts.ListAgents(b.ctx, "alpha")
	if err != nil || len(agents) != 1 {
		t.Fatalf("agents: %v %d", err, len(agents))
	}
	// The other account's field stays as it was.
	_, _, body := alice.get("/settings")
	if in := field.FindString(body); strings.Contains(in, "aria-invalid") || strings.Contains(in, "value=") {
		t.Fatalf("a fresh page: %s", in)
	}
}
