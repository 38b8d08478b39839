package dashboard

import (
	"encoding/json"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/taasky/taasky/app"
)

// A room opened with slots has a schema Taasky wrote: the invitation page
// and the room page name its field in the reader's language, and do not
// mark it as the other side's words. An ordinary schema's labels are
// shown as written, even the same English words.
func TestSlotsFieldInTheReadersLanguageOnPages(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ lang, label string }{
		{"ja", "打ち合わせの日時"},
		{"de", "Termin"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			t.Parallel()
			b := setup(t)
			slots := []json.RawMessage{
				json.RawMessage(`{"start":"2026-12-10T09:00:00Z","end":"2026-12-10T09:30:00Z"}`),
				json.RawMessage(`{"start":"2026-12-10T14:00:00Z","end":"2026-12-10T14:30:00Z"}`),
			}
			open, err := b.rooms.Open(b.ctx, b.alpha, app.OpenInput{Slots: slots, Title: "Intro"})
			if err != nil {
				t.Fatal(err)
			}
			pat := b.client(nil)
			pat.lang = c.lang
			_, _, body := pat.get("/i/" + open.InviteCode)
			dt := "<dt>" + c.label + "</dt>"
			if !strings.Contains(body, dt) || strings.Contains(body, "Meeting time") || strings.Contains(body, `class="their-words">`+c.label) {
				t.Errorf("the invitation (%s) lacks %q: %q", c.lang, dt, terms(body))
			}
			hash := regexp.MustCompile(`name="subject_hash" value="([^"]+)"`).FindStringSubmatch(body)
			if hash == nil {
				t.Fatalf("no option to pick:\n%s", body)
			}
			if st, _, _ := pat.post("/i/"+open.InviteCode, url.Values{"verdict": {"approve"}, "subject_hash": {hash[1]}}); st != 303 {
				t.Fatalf("pick: %d", st)
			}
			alice := b.client(&b.alice)
			alice.lang = c.lang
			_, _, body = alice.get("/")
			room := regexp.MustCompile(`href="(/rooms/\d+)`).FindStringSubmatch(body)
			if room == nil {
				t.Fatalf("no room listed:\n%s", body)
			}
			_, _, body = alice.get(room[1])
			if !strings.Contains(body, dt) || strings.Contains(body, "Meeting time") || strings.Contains(body, `class="their-words">`+c.label) {
				t.Errorf("the room page (%s) lacks %q: %q", c.lang, dt, terms(body))
			}
		})
	}
	b := setup(t)
	_, _, token := b.askedToApprove(t, "fee talk", "", meeting(4, 9, "video", "20"))
	bob := b.client(nil)
	bob.lang = "ja"
	if _, _, body := bob.get("/c/" + token); !strings.Contains(body, "<dt>Meeting time</dt>") || strings.Contains(body, "打ち合わせの日時") {
		t.Errorf("an ordinary schema's label is not shown as written: %q", terms(body))
	}
}

// terms is what a page's cards name their fields.
func terms(body string) []string {
	return regexp.MustCompile(`<dt>.*?</dt>`).FindAllString(body, -1)
}
