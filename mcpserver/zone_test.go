package mcpserver

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

// for_your_human writes moments in the human's IANA time zone, named.
func TestForYourHumanInTheirZone(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if err := e.accounts.SetUserTimeZone(e.ctx, e.agents["b"].OwnerUserID, "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"meeting_time": map[string]any{"type": "timerange", "label": "Meeting time"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema,
		"subject": map[string]any{"meeting_time": map[string]any{"start": "2026-12-03T09:00:00Z", "end": "2026-12-03T09:30:00Z"}}})
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room_token"].(string)
	human := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)["for_your_human"].(string)
	if !strings.Contains(human, "10:00") || !strings.Contains(human, "Europe/Paris") {
		t.Errorf("b's human (Europe/Paris) is told:\n%s", human)
	}
	mine := open["room"].(map[string]any)["for_your_human"].(string)
	if !strings.Contains(mine, "(UTC)") {
		t.Errorf("a's human (no zone set) is told:\n%s", mine)
	}
}

// for_your_human is in the human's language (their setting), also when
// the room did not move since the agent's last read: the kept view is
// the human's in one language only.
func TestForYourHumanInTheirLanguage(t *testing.T) {
	t.Parallel()
	e := setup(t)
	b := e.agents["b"].OwnerUserID
	if err := e.accounts.SetUserLanguage(e.ctx, b, "de"); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"fee": map[string]any{"type": "int", "label": "Fee"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "subject": map[string]any{"fee": 100}})
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room_token"].(string)
	read := func() string {
		return e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)["for_your_human"].(string)
	}
	if human := read(); !strings.Contains(human, "Frist:") || !strings.Contains(human, "Von der anderen Seite vorgeschlagene Bedingungen:") {
		t.Errorf("b's human (de) is told:\n%s", human)
	}
	if err := e.accounts.SetUserLanguage(e.ctx, b, "fr"); err != nil {
		t.Fatal(err)
	}
	if human := read(); !strings.Contains(human, "Échéance :") || !strings.Contains(human, "- Fee : 100\n") {
		t.Errorf("b's human (now fr), with no move since the last read, is told:\n%s", human)
	}
	if mine := open["room"].(map[string]any)["for_your_human"].(string); !strings.Contains(mine, "Deadline:") {
		t.Errorf("a's human (no language set) is told:\n%s", mine)
	}
}

// for_your_human writes every value as the human's card does: dates,
// time ranges and yes/no in their language and zone.
func TestForYourHumanValuesInTheirWords(t *testing.T) {
	t.Parallel()
	e := setup(t)
	b := e.agents["b"].OwnerUserID
	if err := e.accounts.SetUserLanguage(e.ctx, b, "de"); err != nil {
		t.Fatal(err)
	}
	if err := e.accounts.SetUserTimeZone(e.ctx, b, "Europe/Berlin"); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{
		"meeting_time": map[string]any{"type": "timerange", "label": "Termin"},
		"day":          map[string]any{"type": "date", "label": "Tag"},
		"remote":       map[string]any{"type": "bool", "label": "Remote"},
	}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema,
		"subject": map[string]any{"meeting_time": map[string]any{"start": "2026-12-03T09:00:00Z", "end": "2026-12-03T09:30:00Z"},
			"day": "2026-12-04", "remote": true}})
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room_token"].(string)
	human := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)["for_your_human"].(string)
	for _, want := range []string{"- Termin: Do., 3. Dez. 2026, 10:00–10:30 (Europe/Berlin", "- Tag: Fr., 4. Dez. 2026", "- Remote: ja"} {
		if !strings.Contains(human, want) {
			t.Errorf("b's human (de, Europe/Berlin) is not told %q:\n%s", want, human)
		}
	}
}

// What for_your_human says of a confirmation: an approval of one of
// several options shows that option, as the mail and the card do; a
// value outside the limits is "accepted anyway" only by an approval.
func TestForYourHumanSaysWhatIsConfirmed(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{"fee": map[string]any{"type": "money", "label": "Fee", "currency": "EUR"}}
	fee := func(amount string) map[string]any {
		return map[string]any{"fee": map[string]any{"amount": amount, "currency": "EUR"}}
	}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "options": []any{fee("380.00"), fee("330.00")}})
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema,
		"limits": map[string]any{"fee": map[string]any{"max": map[string]any{"amount": "350.00", "currency": "EUR"}}}})["room_token"].(string)
	room := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)
	options := room["terms_on_table"].(map[string]any)["options"].([]any)
	second := options[1].(map[string]any)["subject_hash"].(string)
	human := e.must(t, "b", "negotiation_respond", map[string]any{"room_token": tb, "verdict": "approve", "subject_hash": second})["room"].(map[string]any)["for_your_human"].(string)
	if !strings.Contains(human, "EUR\u00a0330.00") || strings.Contains(human, "EUR\u00a0380.00") {
		t.Errorf("asked to approve the second option, b's human is told:\n%s", human)
	}
	e2 := setup(t)
	open = e2.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "subject": fee("900.00")})
	tb = e2.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema,
		"limits": map[string]any{"fee": map[string]any{"max": map[string]any{"amount": "500.00", "currency": "EUR"}}}})["room_token"].(string)
	human = e2.must(t, "b", "negotiation_respond", map[string]any{"room_token": tb, "verdict": "reject"})["room"].(map[string]any)["for_your_human"].(string)
	if !strings.Contains(human, "EUR\u00a0900.00 — OUTSIDE YOUR LIMITS\n") || strings.Contains(human, "accepts it anyway") {
		t.Errorf("asked to confirm a reject, b's human is told:\n%s", human)
	}
}

// for_your_human writes an amount in the human's separators, with the
// digits agreed, in their language's currency pattern: one and a half
// Bahraini dinars is "1,500 BHD" to a German reader, who would read
// "1.500 BHD" as fifteen hundred, and "BHD 1.500" to an English one.
func TestForYourHumanAmountsInTheirSeparators(t *testing.T) {
	t.Parallel()
	e := setup(t)
	b := e.agents["b"].OwnerUserID
	if err := e.accounts.SetUserLanguage(e.ctx, b, "de"); err != nil {
		t.Fatal(err)
	}
	schema := map[string]any{"fee": map[string]any{"type": "money", "label": "Honorar"},
		"deposit": map[string]any{"type": "money", "label": "Anzahlung", "currency": "EUR"}}
	subject := map[string]any{"fee": map[string]any{"amount": "1.500", "currency": "BHD"},
		"deposit": map[string]any{"amount": "1234567.50", "currency": "EUR"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "subject": subject})
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema,
		"limits": map[string]any{"fee": map[string]any{"max": map[string]any{"amount": "2", "currency": "BHD"}}}})["room_token"].(string)
	human := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)["for_your_human"].(string)
	for _, want := range []string{"- Honorar: 1,500\u00a0BHD\n", "- Anzahlung: 1.234.567,50\u00a0EUR\n"} {
		if !strings.Contains(human, want) {
			t.Errorf("b's human (de) is not told %q:\n%s", want, human)
		}
	}
	if mine := open["room"].(map[string]any)["for_your_human"].(string); !strings.Contains(mine, "BHD\u00a01.500") || !strings.Contains(mine, "EUR\u00a01,234,567.50") {
		t.Errorf("a's human (en) is told:\n%s", mine)
	}
}

// for_your_human writes a moment's seconds when it has any: the agreed
// time is the one written, never the minute it falls in (a range of 20
// seconds was "09:00–09:00", a start at 10:00:30 "10:00").
func TestForYourHumanMomentsToTheSecond(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{"meeting_time": map[string]any{"type": "timerange", "label": "Meeting time"},
		"call": map[string]any{"type": "timerange", "label": "Call"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema,
		"subject": map[string]any{"meeting_time": map[string]any{"start": "2026-12-03T09:00:30Z", "end": "2026-12-03T09:00:50.25Z"},
			"call": map[string]any{"start": "2026-12-03T10:00:00Z", "end": "2026-12-03T10:30:00Z"}}})
	human := open["room"].(map[string]any)["for_your_human"].(string)
	for _, want := range []string{"- Meeting time: Thu 3 Dec 2026, 09:00:30–09:00:50.25 (UTC)\n", "- Call: Thu 3 Dec 2026, 10:00–10:30 (UTC)\n"} {
		if !strings.Contains(human, want) {
			t.Errorf("a's human is not told %q:\n%s", want, human)
		}
	}
}

// for_your_human of a room nobody joined yet says when the invitation
// expires (72 hours after the open), when that comes before the deadline:
// the room closes then, as expired, not at the deadline it shows.
func TestForYourHumanSaysWhenTheInvitationExpires(t *testing.T) {
	t.Parallel()
	e := setup(t)
	schema := map[string]any{"n": map[string]any{"type": "int", "label": "N"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
	human := open["room"].(map[string]any)["for_your_human"].(string)
	if !strings.Contains(human, "The invitation expires ") || !strings.Contains(human, "if nobody accepts it.") {
		t.Errorf("a's human is not told when the invitation expires:\n%s", human)
	}
	// A deadline before the invitation's end: the room lapses then, and
	// the deadline alone is said.
	soon := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema,
		"deadline": time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)})
	if human := soon["room"].(map[string]any)["for_your_human"].(string); strings.Contains(human, "invitation expires") {
		t.Errorf("with a deadline in 24 hours, a's human is told:\n%s", human)
	}
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room"].(map[string]any)["for_your_human"].(string)
	if strings.Contains(tb, "invitation expires") {
		t.Errorf("once joined, b's human is told:\n%s", tb)
	}
}

// A human whose settings send no message for a request (email and push
// requests off) is asked by nobody: for_your_human says so and sends them
// to the dashboard, and next asks the agent to tell them.
func TestForYourHumanWhenNoMessageAsks(t *testing.T) {
	t.Parallel()
	e := setup(t)
	n, err := app.NewNotifications(app.NotificationsConfig{Pool: e.pool, River: e.river, Rooms: e.rooms,
		UnsubscribeKey: bytes.Repeat([]byte{5}, 32), BaseURL: e.url})
	if err != nil {
		t.Fatal(err)
	}
	off := app.DefaultNotifyPrefs
	off.EmailRequests, off.PushRequests = false, false
	if err := n.SetPrefs(e.ctx, e.agents["a"].OwnerUserID, off); err != nil {
		t.Fatal(err)
	}
	slots := []map[string]string{
		{"start": "2026-12-03T10:00:00Z", "end": "2026-12-03T10:30:00Z"},
		{"start": "2026-12-03T14:00:00Z", "end": "2026-12-03T14:30:00Z"},
	}
	open := e.must(t, "a", "negotiation_open", map[string]any{"slots": slots, "preapprove": true})
	read := e.must(t, "a", "negotiation_read", map[string]any{"room_token": open["room_token"]})["room"].(map[string]any)
	human, say := read["for_your_human"].(string), read["next"].(map[string]any)["say"].(string)
	if !strings.Contains(human, "No message was sent to you (your notification settings send none): answer on the dashboard.") ||
		strings.Contains(human, "You were sent a link") {
		t.Errorf("a's human is told:\n%s", human)
	}
	if !strings.Contains(say, "tell them to open Taasky to confirm") {
		t.Errorf("a's agent is told: %q", say)
	}
	if p := read["pending_confirmation"].(map[string]any); p["not_notified"] != true {
		t.Errorf("pending_confirmation: %v", p)
	}
}

// for_your_human writes the hour as the human's language does: Spanish
// and Japanese without its leading zero (CLDR's H:mm), German with it.
func TestForYourHumanHourInTheirLanguage(t *testing.T) {
	t.Parallel()
	e := setup(t)
	b := e.agents["b"].OwnerUserID
	schema := map[string]any{"meeting_time": map[string]any{"type": "timerange", "label": "Meeting time"}}
	open := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema,
		"subject": map[string]any{"meeting_time": map[string]any{"start": "2026-12-03T09:00:00+01:00", "end": "2026-12-03T09:30:00+01:00"}}})
	tb := e.must(t, "b", "negotiation_join", map[string]any{"invite": open["invite_code"], "subject_schema": schema})["room_token"].(string)
	if err := e.accounts.SetUserTimeZone(e.ctx, b, "Europe/Madrid"); err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string]string{
		"es": "jue, 3 dic 2026, 9:00–9:30 (Europe/Madrid, UTC+01:00)",
		"ja": "2026年12月3日(木) 9:00–9:30 (Europe/Madrid, UTC+01:00)",
		"de": "Do., 3. Dez. 2026, 09:00–09:30 (Europe/Madrid, UTC+01:00)",
	} {
		if err := e.accounts.SetUserLanguage(e.ctx, b, lang); err != nil {
			t.Fatal(err)
		}
		human := e.must(t, "b", "negotiation_read", map[string]any{"room_token": tb})["room"].(map[string]any)["for_your_human"].(string)
		if !strings.Contains(human, want) {
			t.Errorf("b's human (%s) is not told %q:\n%s", lang, want, human)
		}
	}
}

// TestDeadlineDaysOnTheHumansCalendar: an agent that gives no deadline
// gets one 14 days later at the same time of day on its human's calendar,
// across the autumn clock change too (it was 14 × 24 hours: an hour
// earlier on the clock); a deadline 90 of those days away is taken,
// though it is 90 × 24 hours and one more.
func TestDeadlineDaysOnTheHumansCalendar(t *testing.T) {
	t.Parallel()
	e := setup(t)
	if err := e.accounts.SetUserTimeZone(e.ctx, e.agents["a"].OwnerUserID, "Europe/Berlin"); err != nil {
		t.Fatal(err)
	}
	e.clock.Store(time.Date(2026, 10, 20, 8, 0, 0, 0, time.UTC).UnixNano()) // 10:00 in Berlin, summer time
	schema := map[string]any{"fee": map[string]any{"type": "int", "label": "Fee"}}
	opened := e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema})
	room := opened["room"].(map[string]any)
	if room["deadline"] != "2026-11-03T09:00:00Z" || !strings.Contains(room["for_your_human"].(string), "Tue 3 Nov 2026, 10:00 (Europe/Berlin)") {
		t.Errorf("the default deadline, opened at 10:00 in Berlin before the clocks go back: %v\n%s", room["deadline"], room["for_your_human"])
	}
	// As kept: read back.
	if read := e.must(t, "a", "negotiation_read", map[string]any{"room_token": opened["room_token"]})["room"].(map[string]any); read["deadline"] != "2026-11-03T09:00:00Z" {
		t.Errorf("the default deadline read back: %v", read["deadline"])
	}
	e.clock.Store(time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC).UnixNano())
	room = e.must(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "deadline": "2026-11-30T10:00:00+01:00"})["room"].(map[string]any)
	if room["deadline"] != "2026-11-30T09:00:00Z" {
		t.Errorf("a deadline 90 days away on the human's calendar: %v", room["deadline"])
	}
	if _, msg := e.call(t, "a", "negotiation_open", map[string]any{"subject_schema": schema, "deadline": "2026-11-30T10:00:01+01:00"}); !strings.Contains(msg, "deadline must be at most 90 days away") {
		t.Errorf("a deadline a second past 90 days: %s", msg)
	}
}
