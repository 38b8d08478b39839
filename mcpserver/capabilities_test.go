package mcpserver

import (
	"encoding/json"
	"testing"
)

// TestCapabilitiesAreWhatAStatelessServerDoes: the initialize result, as
// go-sdk's client reads it over HTTP, announces tools and nothing the
// stateless door cannot do: no tool list notifications (listChanged) and
// no logging, since no notification ever reaches a client (each call is
// its own request; a GET for a stream is 405).
func TestCapabilitiesAreWhatAStatelessServerDoes(t *testing.T) {
	e := setup(t)
	caps := e.sessions["a"].InitializeResult().Capabilities
	if caps == nil || caps.Tools == nil {
		t.Fatalf("capabilities %+v: no tools", caps)
	}
	if caps.Tools.ListChanged {
		t.Errorf("tools.listChanged announced: a stateless server never sends notifications/tools/list_changed")
	}
	// As the client reads it (go-sdk deprecates the Go field for logging).
	var announced map[string]any
	if b, err := json.Marshal(caps); err != nil || json.Unmarshal(b, &announced) != nil {
		t.Fatalf("capabilities %+v: %v", caps, err)
	}
	if _, ok := announced["logging"]; ok {
		t.Errorf("logging announced: a stateless server never sends notifications/message")
	}
	if caps.Resources != nil || caps.Prompts != nil {
		t.Errorf("resources %+v, prompts %+v announced: Taasky has none", caps.Resources, caps.Prompts)
	}
	e.must(t, "a", "negotiation_list", map[string]any{})
}
