package notify

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestCalendarReadByICALjs: the agreed .ics as a calendar application
// reads it, with Mozilla's ical.js (test/verify/ics.mjs), for the entries
// that are hardest to write: a title that folds across multibyte
// characters and holds every TEXT escape, an organizer whose name needs
// RFC 6868 (a quote) and holds ; and , , a German description, two
// timerange values (two events, two UIDs), a range within one second. Each
// event reads back at the agreed instants, its texts as written. (The
// whole path, on the running service: cmd/taasky's
// TestAgreementCheckedByOthers.) Without test/verify's node_modules the
// test is skipped, unless in CI, whose .ci/run installs them.
func TestCalendarReadByICALjs(t *testing.T) {
	dir := filepath.Join("..", "test", "verify")
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "ical.js")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("test/verify has no node_modules: .ci/run must run npm ci --prefix test/verify")
		}
		t.Skip("run `npm ci --prefix test/verify` to read the .ics with ical.js")
	}
	m := sample(KindAgreed)
	m.Lang = "de"
	m.Title = strings.Repeat("Très long, titre; 日本語の題名 ", 4) + `back\slash "q"`
	m.Organizer = `"Ta\"asky; Rooms, Inc." <rooms@taasky.example>`
	second := negotiation.Value{Start: moment("2026-10-15T08:00:00.2Z"), End: moment("2026-10-15T08:00:00.7Z")}
	f := &m.Card.Options[0].Fields[0]
	f.Values = append(f.Values, second)
	file := filepath.Join(t.TempDir(), "invite.ics")
	if err := os.WriteFile(file, Calendar(m), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "ics.mjs", file)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("ical.js: %v\n%s\n%s", err, stderr, Calendar(m))
	}
	var cal struct {
		Method string
		Events []struct {
			UID, Summary, Start, End, Organizer, Description string
			OrganizerCN                                      string `json:"organizer_cn"`
			StartZone                                        string `json:"start_zone"`
		}
	}
	if err := json.Unmarshal(out, &cal); err != nil || len(cal.Events) != 2 || cal.Method != "PUBLISH" {
		t.Fatalf("ical.js read %s (%v)", out, err)
	}
	iso := func(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }
	for i, want := range []struct{ uid, start, end string }{
		{"taasky-room-7-meeting_time-0@taasky.example", "2026-10-14T10:00:00.000Z", "2026-10-14T10:30:00.000Z"},
		// A range within one second ends at the next second (DTEND after
		// DTSTART); the description keeps the exact moments.
		{"taasky-room-7-meeting_time-1@taasky.example", iso(second.Start.Truncate(time.Second)), iso(second.Start.Truncate(time.Second).Add(time.Second))},
	} {
		e := cal.Events[i]
		if e.UID != want.uid || e.Start != want.start || e.End != want.end || e.StartZone != "UTC" {
			t.Errorf("event %d: %s %s (%s) to %s; want %s %s to %s", i, e.UID, e.Start, e.StartZone, e.End, want.uid, want.start, want.end)
		}
		if !strings.HasPrefix(e.Summary, m.Title+" (") {
			t.Errorf("event %d: SUMMARY read as %q, want the title %q", i, e.Summary, m.Title)
		}
		if e.Organizer != "mailto:rooms@taasky.example" || e.OrganizerCN != `Ta"asky; Rooms, Inc.` {
			t.Errorf("event %d: ORGANIZER %q CN %q", i, e.Organizer, e.OrganizerCN)
		}
		if !strings.HasPrefix(e.Description, "Vereinbart auf Taasky mit Alice & Co.\n") || !strings.HasSuffix(e.Description, "\nhttps://taasky.example/rooms/7") {
			t.Errorf("event %d: DESCRIPTION %q", i, e.Description)
		}
	}
	if d := cal.Events[1].Description; !regexp.MustCompile(`10:00:00[.,]2–10:00:00[.,]7 \(Europe/Paris`).MatchString(d) {
		t.Errorf("the second event's description does not keep its exact moments: %q", d)
	}
}
