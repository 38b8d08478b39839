package bench

import (
	"encoding/json"

	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/taasky/taasky/internal/golden"
	"github.com/taasky/taasky/negotiation"
)

// TestSampleViewIsARead keeps echo_view's answer (testdata/sample_view.json)
// what it stands for in the bench: negotiation_read's result for a room of
// the bench's default mix (an offer, two counters, both humans' approvals),
// with the same keys and within a tenth of its size. -update rewrites it.
func TestSampleViewIsARead(t *testing.T) {
	t.Parallel()
	s := newService(t)
	agents := s.connect(t)
	must := func(side int, tool string, args map[string]any) map[string]any {
		t.Helper()
		var out map[string]any
		if err := agents[side].Call(s.ctx, tool, args, &out); err != nil {
			t.Fatalf("%s's %v", s.agents[side].AccountSlug, err)
		}
		return out
	}
	schema := map[string]any{
		"meeting_time": map[string]any{"type": "timerange", "label": "Meeting time"},
		"fee":          map[string]any{"type": "money", "label": "Fee", "currency": "EUR"},
	}
	terms := func(n int) map[string]any {
		start := time.Date(2026, 12, 1, 8, 0, 0, 0, time.UTC).Add(time.Duration(n) * time.Hour)
		return map[string]any{
			"meeting_time": map[string]any{"start": start.Format(time.RFC3339), "end": start.Add(30 * time.Minute).Format(time.RFC3339)},
			"fee":          map[string]any{"amount": "1" + string(rune('0'+n)) + "0.00", "currency": "EUR"},
		}
	}
	const a, b = 0, 1
	open := must(a, "negotiation_open", map[string]any{"subject_schema": schema, "title": "Bench"})
	tokens := [2]string{open["room_token"].(string)}
	tokens[b] = must(b, "negotiation_join", map[string]any{"invite_url": open["invite_url"], "subject_schema": schema})["room_token"].(string)
	must(a, "negotiation_propose", map[string]any{"room_token": tokens[a], "verdict": "offer", "subject": terms(1)})
	must(b, "negotiation_propose", map[string]any{"room_token": tokens[b], "verdict": "counter", "subject": terms(2)})
	must(a, "negotiation_propose", map[string]any{"room_token": tokens[a], "verdict": "counter", "subject": terms(3)})
	for _, side := range []int{b, a} {
		v := must(side, "negotiation_read", map[string]any{"room_token": tokens[side]})["room"].(map[string]any)
		hash := v["terms_on_table"].(map[string]any)["options"].([]any)[0].(map[string]any)["subject_hash"].(string)
		w := must(side, "negotiation_respond", map[string]any{"room_token": tokens[side], "verdict": "approve", "subject_hash": hash})
		// The human answers yes, as the web and email doors do.
		c := w["confirmation"].(map[string]any)
		room, err := s.rooms.Read(s.ctx, s.agents[side], tokens[side])
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.rooms.DecideAsOwner(s.ctx, s.agents[side].OwnerUserID, room.RoomID, c["id"].(string), negotiation.SubjectHash(hash), true); err != nil {
			t.Fatalf("%s's human: %v", s.agents[side].AccountSlug, err)
		}
	}
	res := must(a, "negotiation_read", map[string]any{"room_token": tokens[a]})
	if res["room"].(map[string]any)["state"] != "agreed" || res["receipt"] == nil {
		t.Fatalf("read: %v", res)
	}
	// The echo floor stands for the reads of a negotiation: the receipt an
	// agreed room's read adds (once per side, at the end) is left out.
	delete(res, "receipt")
	read, _ := json.Marshal(res)
	path := filepath.Join("testdata", "sample_view.json")
	if golden.Update() {
		if err := os.WriteFile(path, append(read, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return // the binary embeds the file as it was: check it at the next run
	}
	var sample map[string]any
	if err := json.Unmarshal(sampleView, &sample); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if got, want := slices.Sorted(maps.Keys(sample)), slices.Sorted(maps.Keys(res)); !slices.Equal(got, want) {
		t.Errorf("%s has the keys %v; a read has %v (go test ./bench -run SampleView -update)", path, got, want)
	}
	if n, m := len(sampleView), len(read); n < m*9/10 || n > m*11/10 {
		t.Errorf("%s is %d bytes; a read is %d (go test ./bench -run SampleView -update)", path, n, m)
	}
}
