package dashboard

import (
	"encoding/json"
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/negotiation"
)

// receiptTermLine is one agreed field on the printable receipt.
var receiptTermLine = regexp.MustCompile(`<dt>([^<]*)</dt><dd>(.*?)</dd>`)

// receiptItem is one of a repeated field's values, listed.
var receiptItem = regexp.MustCompile(`<li>([^<]*)</li>`)

// TestReceiptPageValuesInReadersWords: the printable receipt says every
// agreed value as the card does, in the reader's language and zone:
// repeated time ranges each as a range, yes/no and days in their words;
// never as JSON, never in UTC for a reader in Paris. A repeated field's
// values are listed, one an item: one value "a; b" is other terms than
// two, "a" and "b".
func TestReceiptPageValuesInReadersWords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserLanguage(b.ctx, b.alice.ID, "de"); err != nil {
		t.Fatal(err)
	}
	if err := b.accounts.SetUserTimeZone(b.ctx, b.alice.ID, "Europe/Paris"); err != nil {
		t.Fatal(err)
	}
	schema := json.RawMessage(`{"slots":{"type":"timerange","label":"Termine","repeated":true},"remote":{"type":"bool","label":"Remote"},"day":{"type":"date","label":"Tag"},"tags":{"type":"string","label":"Tags","repeated":true}}`)
	subject := json.RawMessage(`{"slots":[{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T09:30:00Z"},{"start":"2026-12-04T09:00:00Z","end":"2026-12-04T09:30:00Z"}],"remote":true,"day":"2026-12-05","tags":["a; b","c"]}`)
	open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Schema: schema, Subject: subject, Title: "Serie"})
	if err != nil {
		t.Fatal(err)
	}
	j, err := b.rooms.Join(b.ctx, b.beta, app.JoinInput{InviteCode: open.InviteCode, Schema: schema})
	if err != nil {
		t.Fatal(err)
	}
	ta, tb, id := open.RoomToken, j.RoomToken, j.View.RoomID
	v, err := b.rooms.Read(b.ctx, b.alpha, ta)
	if err != nil {
		t.Fatal(err)
	}
	hash := v.TermsOnTable.Options[0].SubjectHash
	for _, s := range []struct {
		agent app.Agent
		token string
		user  app.User
	}{{b.beta, tb, b.bob}, {b.alpha, ta, b.alice}} {
		c, _, err := b.rooms.RequestConfirmation(b.ctx, s.agent, s.token, negotiation.VerdictApprove, hash)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := b.rooms.DecideAsOwner(b.ctx, s.user.ID, id, c.ID, hash, true); err != nil {
			t.Fatal(err)
		}
	}
	st, _, page := b.client(&b.alice).get("/rooms/" + strconv.FormatInt(id, 10) + "/receipt")
	if st != 200 {
		t.Fatalf("the printable receipt: %d", st)
	}
	got := map[string]string{}
	for _, m := range receiptTermLine.FindAllStringSubmatch(page, -1) {
		value := m[2]
		if items := receiptItem.FindAllStringSubmatch(value, -1); items != nil {
			var list []string
			for _, it := range items {
				list = append(list, it[1])
			}
			value = strings.Join(list, " | ")
		}
		got[html.UnescapeString(m[1])] = html.UnescapeString(value)
	}
	for field, want := range map[string]string{
		"slots":  "Do., 3. Dez. 2026, 10:00–10:30 (Europe/Paris, UTC+01:00) | Fr., 4. Dez. 2026, 10:00–10:30 (Europe/Paris, UTC+01:00)",
		"remote": "ja",
		"day":    "Sa., 5. Dez. 2026",
		"tags":   "a; b | c",
	} {
		if got[field] != want {
			t.Errorf("%s: got %q, want %q", field, got[field], want)
		}
	}
}

// TestTermsInWords: what /verify shows (in UTC, for a reader whose zone
// it does not know), value by value, in every shape terms take; what is no
// moment, day, yes/no or amount stays as the party wrote it, an amount is
// in the reader's separators, and a shape Taasky does not know is shown as
// its JSON rather than lost.
func TestTermsInWords(t *testing.T) {
	terms := json.RawMessage(`{"slots":[{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T09:30:00Z"},{"start":"2026-12-04T23:00:00Z","end":"2026-12-05T01:00:00Z"}],` +
		`"remote":false,"days":["2026-12-05","2026-12-06"],"n":3,"fee":{"amount":"20.00","currency":"EUR"},"fees":[{"amount":"1.50","currency":"EUR"}],` +
		`"bhd":{"amount":"1234.500","currency":"BHD"},` +
		`"place":"office","places":["office","video"],"note":"2026-12-05 maybe","other":{"a":1}}`)
	want := map[string]map[string]string{
		"ja": {
			"slots":  "2026年12月3日(木) 9:00–9:30 (UTC); 2026年12月4日(金) 23:00 – 2026年12月5日(土) 1:00 (UTC)",
			"remote": "いいえ",
			"days":   "2026年12月5日(土); 2026年12月6日(日)",
			"n":      "3",
			"fee":    "EUR\u00a020.00",
			"fees":   "EUR\u00a01.50",
			"bhd":    "BHD\u00a01,234.500",
			"place":  "office",
			"places": "office; video",
			"note":   "2026-12-05 maybe",
			"other":  `{"a":1}`,
		},
		"fr": {
			"slots":  "jeu. 3 déc. 2026, 09:00–09:30 (UTC); ven. 4 déc. 2026, 23:00 – sam. 5 déc. 2026, 01:00 (UTC)",
			"remote": "non",
			"days":   "sam. 5 déc. 2026; dim. 6 déc. 2026",
			"fee":    "20,00\u00a0EUR",
			"fees":   "1,50\u00a0EUR",
			"bhd":    "1\u202f234,500\u00a0BHD",
		},
	}
	for lang, fields := range want {
		got := map[string]string{}
		for _, rt := range termsInWords(locale.NewPrinter(lang), terms, time.UTC) {
			got[rt.Field] = rt.Value
		}
		for field, w := range fields {
			if got[field] != w {
				t.Errorf("%s %s: got %q, want %q", lang, field, got[field], w)
			}
		}
	}
}
