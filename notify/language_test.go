package notify

import (
	"strings"
	"testing"
	"time"
)

// TestEmailInTheRecipientsLanguage: a mail is in the recipient's language,
// moments in its patterns and the recipient's zone, while what the other
// party wrote (title, labels, values) stays as written.
func TestEmailInTheRecipientsLanguage(t *testing.T) {
	m := sample(KindRequest)
	m.Lang = "de"
	_, p := render(t, m)
	if want := "Diesen Bedingungen zustimmen? – Board, review; \"Q4\""; p.Subject != want {
		t.Errorf("subject %q, want %q", p.Subject, want)
	}
	for _, want := range []string{
		"Ihr Agent Bob's agent bittet Sie in „Board, review; \"Q4\"“ mit Alice & Co, diesen Bedingungen zuzustimmen.",
		"Meeting time: Mi., 14. Okt. 2026, 12:00–12:30:00.25 (Europe/Paris, UTC+02:00)",
		"Their <b>room</b> (Feld der anderen Seite): <script>x</script>",
		"Frist: Mo., 26. Okt. 2026, 11:00 (Europe/Paris)",
	} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("German request lacks %q:\n%s", want, p.Text)
		}
	}
	if !strings.Contains(p.HTML, `<html lang="de">`) {
		t.Error("the HTML part does not say its language")
	}
	m = sample(KindAgreed)
	m.Lang = "ja"
	_, p = render(t, m)
	if !strings.HasPrefix(p.Subject, "合意成立 — ") || !strings.Contains(p.Text, "2026年10月14日(水) 12:00–12:30:00.25 (Europe/Paris, UTC+02:00)") {
		t.Errorf("Japanese agreed mail: %q\n%s", p.Subject, p.Text)
	}
}

// TestAgreedMailHasNoDeadline: once agreed, a deadline means nothing: the
// notices of an ended room do not print one.
func TestAgreedMailHasNoDeadline(t *testing.T) {
	for _, kind := range []Kind{KindAgreed, KindClosed, KindNoDeal} {
		_, p := render(t, sample(kind))
		if strings.Contains(p.Text, "Deadline") || strings.Contains(p.HTML, "Deadline") {
			t.Errorf("%s mail prints a deadline:\n%s", kind, p.Text)
		}
	}
	_, p := render(t, sample(KindReminder))
	if !strings.Contains(p.Text, "Deadline: Mon 26 Oct 2026, 11:00 (Europe/Paris)") {
		t.Errorf("a reminder lacks its deadline:\n%s", p.Text)
	}
}

// TestInvitationMailInUTC: the invitee's zone is not known, so the
// invitation mail says its moments in UTC and says so, naming no zone of
// the inviter's.
func TestInvitationMailInUTC(t *testing.T) {
	m := sample(KindInvite)
	m.To, m.InviteURL, m.TimeZone = "carol@example.test", "https://taasky.example/i/inv_x", time.UTC
	m.ExpiresAt = moment("2026-10-15T10:00:00Z")
	_, p := render(t, m)
	for _, want := range []string{"Deadline: Mon 26 Oct 2026, 10:00 (UTC)", "The invitation expires Thu 15 Oct 2026, 10:00 (UTC)",
		"Times here are in UTC; the invitation shows them in your own time zone."} {
		if !strings.Contains(p.Text, want) {
			t.Errorf("invitation lacks %q:\n%s", want, p.Text)
		}
	}
	if strings.Contains(p.Text, "Paris") {
		t.Errorf("the invitation names the inviter's zone:\n%s", p.Text)
	}
}

// TestMailTextInTheReadersPunctuation: the text part writes "label:
// value" and "label:" before a link as its language does, as the lines
// from the catalog beside them do ("La salle : …", "ルーム： …"): French
// puts a space before the colon, Japanese a full-width colon.
func TestMailTextInTheReadersPunctuation(t *testing.T) {
	for lang, wants := range map[string][]string{
		"fr": {"  Meeting time : mer. 14 oct. 2026, 12:00–12:30:00.25 (Europe/Paris, UTC+02:00)\n",
			"  Their <b>room</b> (champ de l'autre partie) : <script>x</script>\n", "  Notes : manquant\n",
			"\nVoir et répondre :\nhttps://taasky.example/c/ot_x\n", "\nArrêter ces avis : https://taasky.example/unsubscribe/un_x\n"},
		"ja": {"  Meeting time：2026年10月14日(水) 19:00–19:30:00.25 (Asia/Tokyo, UTC+09:00)\n",
			"  Their <b>room</b>（相手側の項目）：<script>x</script>\n", "\n確認して回答：\nhttps://taasky.example/c/ot_x\n"},
		"en": {"  Meeting time: Wed 14 Oct 2026, 12:00–12:30:00.25 (Europe/Paris, UTC+02:00)\n",
			"  Their <b>room</b> (their field): <script>x</script>\n", "\nReview and answer:\nhttps://taasky.example/c/ot_x\n",
			"\nStop these notices: https://taasky.example/unsubscribe/un_x\n"},
	} {
		m := sample(KindReminder)
		m.Lang = lang
		if lang == "ja" {
			m.TimeZone, _ = time.LoadLocation("Asia/Tokyo")
		}
		_, p := render(t, m)
		text := strings.ReplaceAll(p.Text, "\r\n", "\n")
		for _, want := range wants {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the text part lacks %q:\n%s", lang, want, text)
			}
		}
	}
}
