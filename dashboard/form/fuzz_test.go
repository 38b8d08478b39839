package form

import (
	"net/url"
	"strings"
	"testing"

	"github.com/taasky/taasky/internal/locale"
	"github.com/taasky/taasky/internal/tz"
	"github.com/taasky/taasky/negotiation"
)

var fuzzLangs = []string{"en", "de", "fr", "es", "ja"}

// formOf is the form a browser sends back for fields as prefilled.
func formOf(fields []Field) url.Values {
	form := url.Values{}
	for _, f := range fields {
		for _, r := range f.Rows {
			set := func(part, v string) { form.Set(Input(f.Name, r.Index, part), v) }
			switch f.Type {
			case negotiation.TypeTimerange:
				set("start", r.Start)
				set("end", r.End)
				set("zone", r.Zone)
			case negotiation.TypeMoney:
				set("amount", r.Amount)
				set("currency", r.Currency)
			default:
				set("v", r.Value)
			}
		}
	}
	return form
}

// FuzzPrefillRoundTrip: whatever valid terms, zone and language, the
// form prefilled from the terms, sent back as it is, reads as the same
// terms (a person who changes nothing changes nothing: an amount in the
// reader's decimal mark, a moment in the zone's wall clock).
//
//	go test ./dashboard/form -run XXX -fuzz FuzzPrefillRoundTrip -fuzztime 3m -parallel 1
func FuzzPrefillRoundTrip(f *testing.F) {
	for i, in := range []string{
		`{"when":[{"start":"2026-12-03T09:00:00Z","end":"2026-12-03T09:30:00Z"}],"qty":2,"ok":true,"place":"office","fee":{"amount":"5.00","currency":"EUR"}}`,
		`{"when":[{"start":"2026-12-03T09:00:30Z","end":"2026-12-03T09:30:00.25Z"},{"start":"2026-12-04T05:30:15Z","end":"2026-12-04T06:30:45.123456789Z"}],"qty":2,"ok":true,"place":"office"}`,
		`{"when":[{"start":"2026-11-01T05:30:00Z","end":"2026-11-01T06:30:00Z"}],"qty":-9223372036854775808,"ok":false,"place":"video","tip":{"amount":"1234567.5","currency":"JPY"},"note":" a, b "}`,
		`{"when":[{"start":"1890-01-01T00:00:00+00:53","end":"2026-03-29T01:30:00Z"}],"qty":0,"ok":true,"place":"video","tip":{"amount":"0.001","currency":"BHD"},"day":"2026-02-28"}`,
	} {
		for j, zone := range []string{"America/New_York", "Europe/Berlin", "Asia/Kolkata", "UTC", "Australia/Lord_Howe"} {
			f.Add([]byte(in), zone, uint8(i+j))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, zone string, lang uint8) {
		s := schema(t)
		terms, err := s.ParseTerms(in)
		if err != nil {
			return
		}
		loc, err := tz.Load(zone)
		if err != nil {
			return
		}
		w := locale.NewPrinter(fuzzLangs[int(lang)%len(fuzzLangs)])
		fields := Prefill(s, terms.Values, loc, w)
		raw, back, ok := Parse(s, formOf(fields), w)
		if !ok {
			var errs []string
			for _, f := range back {
				if f.Error != "" {
					errs = append(errs, f.Error)
				}
			}
			t.Fatalf("%s in %s (%s): the prefilled form is refused: %s", in, zone, w.Lang(), strings.Join(errs, "; "))
		}
		again, err := s.ParseTerms(raw)
		if err != nil || again.Hash() != terms.Hash() {
			t.Fatalf("%s in %s (%s): reads back as %s (%v)", in, zone, w.Lang(), raw, err)
		}
	})
}
