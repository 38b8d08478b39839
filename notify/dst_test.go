package notify

import (
	"encoding/json"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
)

// TestMomentsAcrossAClockChange: a confirmation request whose meeting runs
// across a change of the reader's clocks says each end's offset, in the
// mail (text and HTML) and the push, and a deadline in the hour the clocks
// go back names its offset: the hour from 01:30 in New York on 1 Nov 2026
// is not "01:30–01:30", nor are two deadlines an hour apart written alike.
func TestMomentsAcrossAClockChange(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		t.Fatal(err)
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		loc               *time.Location
		lang              string
		start, end, due   string
		meeting, deadline string
	}{
		{ny, "", "2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-01T05:30:00Z",
			"Meeting time: Sun 1 Nov 2026, 01:30 UTC-04:00 – 01:30 UTC-05:00 (America/New_York)",
			"Deadline: Sun 1 Nov 2026, 01:30 (America/New_York, UTC-04:00)"},
		{ny, "", "2026-11-01T05:30:00Z", "2026-11-01T06:30:00Z", "2026-11-01T06:30:00Z",
			"Meeting time: Sun 1 Nov 2026, 01:30 UTC-04:00 – 01:30 UTC-05:00 (America/New_York)",
			"Deadline: Sun 1 Nov 2026, 01:30 (America/New_York, UTC-05:00)"},
		{ny, "", "2026-03-08T06:30:00Z", "2026-03-08T07:30:00Z", "2026-03-08T06:30:00Z",
			"Meeting time: Sun 8 Mar 2026, 01:30 UTC-05:00 – 03:30 UTC-04:00 (America/New_York)",
			"Deadline: Sun 8 Mar 2026, 01:30 (America/New_York)"},
		{paris, "", "2026-10-25T00:45:00Z", "2026-10-25T01:15:00Z", "2026-10-25T01:15:00Z",
			"Meeting time: Sun 25 Oct 2026, 02:45 UTC+02:00 – 02:15 UTC+01:00 (Europe/Paris)",
			"Deadline: Sun 25 Oct 2026, 02:15 (Europe/Paris, UTC+01:00)"},
		{paris, "de", "2026-03-29T00:30:00Z", "2026-03-29T01:30:00Z", "2026-03-29T01:30:00Z",
			"Meeting time: So., 29. März 2026, 01:30 UTC+01:00 – 03:30 UTC+02:00 (Europe/Paris)",
			"Frist: So., 29. März 2026, 03:30 (Europe/Paris)"},
		// No change in between: as ever.
		{paris, "", "2026-10-14T10:00:00Z", "2026-10-14T10:30:00Z", "2026-10-26T10:00:00Z",
			"Meeting time: Wed 14 Oct 2026, 12:00–12:30 (Europe/Paris, UTC+02:00)",
			"Deadline: Mon 26 Oct 2026, 11:00 (Europe/Paris)"},
	} {
		m := sample(KindRequest)
		m.TimeZone, m.Lang = c.loc, c.lang
		m.Card.Options[0].Fields[0].Values = []negotiation.Value{{Start: moment(c.start), End: moment(c.end)}}
		m.Deadline = moment(c.due)
		_, p := render(t, m)
		for _, want := range []string{c.meeting, c.deadline} {
			if !strings.Contains(p.Text, want) {
				t.Errorf("the mail's text lacks %q:\n%s", want, p.Text)
			}
		}
		meeting := strings.TrimPrefix(c.meeting, "Meeting time: ")
		if !strings.Contains(html.UnescapeString(p.HTML), meeting) {
			t.Errorf("the mail's HTML lacks %q:\n%s", meeting, p.HTML)
		}
		var push PushPayload
		if err := json.Unmarshal(Push(m), &push); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(push.Body, c.meeting) {
			t.Errorf("the push lacks %q: %q", c.meeting, push.Body)
		}
	}
}
