package dashboard

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// limitLine is one of the "your limits" section's lines: the field's label
// and the limit in words.
var limitLine = regexp.MustCompile(`<dt>([^<]*)</dt><dd>([^<]*)</dd>`)

// limitsOn reads the "your limits" section of a room page, label by label.
func limitsOn(t *testing.T, page string) map[string]string {
	t.Helper()
	_, section, ok := strings.Cut(page, `aria-labelledby="limits-h"`)
	section, _, _ = strings.Cut(section, "</section>")
	if !ok {
		t.Fatalf("the room page has no limits:\n%s", page)
	}
	out := map[string]string{}
	for _, m := range limitLine.FindAllStringSubmatch(section, -1) {
		out[html.UnescapeString(m[1])] = html.UnescapeString(m[2])
	}
	return out
}

// TestRoomLimitsInReadersWords: a human's own limits on the room page are
// said in their language, their moments in their words and zone (named by
// its IANA name, as the page's other moments), for a timerange, an enum
// and a money field; the party's own words (an enum value) and amounts
// stay as written.
func TestRoomLimitsInReadersWords(t *testing.T) {
	t.Parallel()
	b := setup(t)
	if err := b.accounts.SetUserTimeZone(b.ctx, b.bob.ID, "Asia/Tokyo"); err != nil {
		t.Fatal(err)
	}
	limits := `{"meeting_time":{"min":"2026-12-01T09:00:00+01:00","max":"2026-12-20T18:00:00+01:00"},` +
		`"place":{"one_of":["office"]},"fee":{"max":{"amount":"100.00","currency":"EUR"}}}`
	_, roomID, _ := b.askedToApprove(t, "Kick-off", limits, meeting(3, 10, "video", "120"))
	page := "/rooms/" + strconv.FormatInt(roomID, 10)
	bob := b.client(&b.bob)
	for _, c := range []struct {
		lang string
		want map[string]string
	}{
		{"en", map[string]string{
			"Meeting time": "not before Tue 1 Dec 2026, 17:00 (Asia/Tokyo); not after Mon 21 Dec 2026, 02:00 (Asia/Tokyo)",
			"Where":        "one of: office",
			"Fee":          "at most EUR\u00a0100.00",
		}},
		{"de", map[string]string{
			"Meeting time": "nicht vor Di., 1. Dez. 2026, 17:00 (Asia/Tokyo); nicht nach Mo., 21. Dez. 2026, 02:00 (Asia/Tokyo)",
			"Where":        "einer von: office",
			"Fee":          "höchstens 100,00\u00a0EUR",
		}},
		{"ja", map[string]string{
			"Meeting time": "2026年12月1日(火) 17:00 (Asia/Tokyo)以降; 2026年12月21日(月) 2:00 (Asia/Tokyo)まで",
			"Where":        "次のいずれか：office",
			"Fee":          "EUR\u00a0100.00以下",
		}},
	} {
		if err := b.accounts.SetUserLanguage(b.ctx, b.bob.ID, c.lang); err != nil {
			t.Fatal(err)
		}
		st, _, body := bob.get(page)
		if st != 200 {
			t.Fatalf("%s: the room page: %d", c.lang, st)
		}
		got := limitsOn(t, body)
		for label, want := range c.want {
			if got[label] != want {
				t.Errorf("%s: %s: got %q, want %q", c.lang, label, got[label], want)
			}
		}
		if len(got) != len(c.want) {
			t.Errorf("%s: limits %q, want %d lines", c.lang, got, len(c.want))
		}
	}
}
