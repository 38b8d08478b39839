package locale

import (
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/message/catalog"
)

// germanText is the catalog's German text: the keys of english.go, in its order
// (a new English key goes in the same place here), translated for meaning.
// The comments are english.go's.
var germanText = map[Key]catalog.Message{
	// What a room's state is called, in a list or a status line.
	"state.draft":    text("Einladung gesendet"),
	"state.awaiting": text("in Verhandlung"),
	"state.agreed":   text("vereinbart"),
	"state.closed":   text("geschlossen (%[1]s)"), // the close reason in words

	// Why a room closed, as the end of "… is closed: ".
	"closed.rejected":  text("die Bedingungen wurden abgelehnt"),
	"closed.cancelled": text("eine Seite hat sich zurückgezogen"),
	"closed.withdrawn": text("die Einladung wurde zurückgenommen"),
	"closed.expired": plural.Selectf(1, "%d",
		"one", "niemand hat die Einladung innerhalb von %[1]d Stunde beantwortet",
		"other", "niemand hat die Einladung innerhalb von %[1]d Stunden beantwortet"),
	"closed.lapsed":          text("die Frist ist ohne Einigung abgelaufen"),
	"closed.account_deleted": text("das Konto der anderen Seite wurde gelöscht"),

	// A value outside the reader's limits, by bound, never by number.
	"bound.min":     text("unter Ihrem Minimum"),
	"bound.max":     text("über Ihrem Maximum"),
	"bound.one_of":  text("keiner der Werte, die Sie akzeptieren"),
	"bound.equals":  text("nicht der Wert, den Sie verlangen"),
	"bound.outside": text("außerhalb Ihrer Grenzen: %[1]s"), // the bounds in words, joined

	// What a side did, after "Your side" or "Their side".
	"verdict.offer":            text("hat Bedingungen angeboten"),
	"verdict.counter":          text("hat ein Gegenangebot gemacht"),
	"verdict.need_more_detail": text("hat um mehr Details gebeten"),
	"verdict.approve":          text("hat zugestimmt"),
	"verdict.reject":           text("hat die Bedingungen abgelehnt"),
	"verdict.cancel":           text("hat sich zurückgezogen"),
	"verdict.preapprove":       text("hat bestätigt, dass jede Option in Ordnung ist"),
	"verdict.join":             text("ist beigetreten"),

	// What a confirmation asks a human to do, after "asks you to".
	"ask.approve":    text("diesen Bedingungen zuzustimmen"),
	"ask.reject":     text("die vorliegenden Bedingungen abzulehnen"),
	"ask.cancel":     text("sich aus der Verhandlung zurückzuziehen"),
	"ask.preapprove": text("jede dieser Optionen zu akzeptieren"),
	// The same, as a question (a mail's subject and heading).
	"ask.question.approve":    text("Diesen Bedingungen zustimmen?"),
	"ask.question.reject":     text("Die Bedingungen ablehnen?"),
	"ask.question.cancel":     text("Zurückziehen?"),
	"ask.question.preapprove": text("Jede dieser Optionen akzeptieren?"),
	// What follows from confirming, when it is more than the verdict says.
	"ask.after.reject":     text("Eine Ablehnung schließt den Raum endgültig."),
	"ask.after.cancel":     text("Der Raum wird für beide Seiten geschlossen und kann nicht wieder geöffnet werden."),
	"ask.after.preapprove": text("Die andere Seite wählt eine Option, und der Raum ist sofort vereinbart."),
	// The confirm button's word, after "Confirm: ".
	"ask.button.approve":    text("zustimmen"),
	"ask.button.reject":     text("ablehnen"),
	"ask.button.cancel":     text("zurückziehen"),
	"ask.button.preapprove": text("jede Option ist in Ordnung"),
	"ask.heading":           text("Ihr Agent bittet Sie, %[1]s"), // ask.<verdict>
	"ask.confirm":           text("Bestätigen: %[1]s"),           // ask.button.<verdict>

	// Whose turn it is, for an agent's human; turn.you for a person's seat.
	"turn.nobody": text("niemand ist am Zug"),
	"turn.yours":  text("Ihre Seite ist am Zug"),
	"turn.theirs": text("die andere Seite ist am Zug"),
	"turn.you":    text("Sie sind am Zug"),

	// Where a room stands in the list of rooms.
	"rank.waiting_for_you":   text("wartet auf Sie"),
	"rank.waiting_for_human": text("wartet auf seinen Menschen"),
	"rank.your_agent":        text("Ihr Agent ist am Zug"),
	"rank.closed":            text("geschlossen"),

	// What became of a confirmation the human answered.
	"result.applied":         text("Erledigt: Ihre Antwort wurde angewendet."),
	"result.applied_verdict": text("Erledigt: Ihre Seite %[1]s."), // verdict.<verdict>
	"result.agreed":          text("Der Raum ist vereinbart."),
	"result.declined":        text("Sie haben nicht bestätigt. Ihr Agent wird informiert, der Raum bleibt unverändert."),
	"result.void":            text("Ihre Antwort ging ins Leere: %[1]s."),
	"result.waiting":         text("Ihre Antwort steht noch aus."),

	// Why an invitation cannot be answered.
	"refusal.withdrawn": text("Diese Einladung wurde von der Person, die sie gesendet hat, zurückgenommen."),
	"refusal.expired": plural.Selectf(1, "%d",
		"one", "Diese Einladung ist abgelaufen: niemand hat sie innerhalb von %[1]d Stunde beantwortet.",
		"other", "Diese Einladung ist abgelaufen: niemand hat sie innerhalb von %[1]d Stunden beantwortet."),
	"refusal.used":     text("Diese Einladung wurde bereits beantwortet. Falls Sie das waren, öffnen Sie den persönlichen Link, den Sie damals erhalten haben."),
	"refusal.deadline": text("Diese Einladung kann nicht mehr beantwortet werden: ihre Frist ist abgelaufen."),
	"refusal.other":    text("Diese Einladung kann nicht mehr beantwortet werden (%[1]s)."),

	// A card: the terms on the table, in the reader's labels.
	"card.option":     text("Option %[1]d von %[2]d"),
	"card.theirs":     text("Feld der anderen Seite"),
	"card.missing":    text("fehlt"),
	"card.new_schema": text("Die andere Seite verwendet ein Formular, unter dem Sie noch nie vereinbart haben: prüfen Sie jedes Feld."),
	"card.no_deal":    text("Keine Einigung möglich bei %[1]s: Ihre Grenzen und die der anderen Seite lassen sich nicht beide einhalten (keine Zahlen einer Seite werden gezeigt)."),

	// How long until a moment, in a sentence ("The deadline is … (in about 3 hours)").
	"until.now": text("jetzt"),
	"until.minutes": plural.Selectf(1, "%d",
		"one", "in etwa %[1]d Minute",
		"other", "in etwa %[1]d Minuten"),
	"until.hours": plural.Selectf(1, "%d",
		"one", "in etwa %[1]d Stunde",
		"other", "in etwa %[1]d Stunden"),
	"until.days": plural.Selectf(1, "%d",
		"one", "in etwa %[1]d Tag",
		"other", "in etwa %[1]d Tagen"),

	// How long is left, in a countdown beside a deadline.
	"left.passed":  text("abgelaufen"),
	"left.minutes": text("noch %[1]d Min."),
	"left.hours":   text("noch %[1]d Std. %02[2]d Min."),
	"left.days": plural.Selectf(1, "%d",
		"one", "noch %[1]d Tag",
		"other", "noch %[1]d Tage"),

	// What a delivery in the log was about.
	"topic.request":  text("Bitte um Bestätigung"),
	"topic.reminder": text("Erinnerung"),
	"topic.agreed":   text("vereinbart"),
	"topic.closed":   text("geschlossen"),
	"topic.no_deal":  text("keine Einigung möglich"),
	"topic.test":     text("Test"),
	"topic.invite":   text("Einladung"),

	// A member's role in an account.
	"role.owner":  text("Inhaber"),
	"role.admin":  text("Administrator"),
	"role.member": text("Mitglied"),

	// The mail inviting a person to join an account: who invites, the
	// account's name, the role (role.<role>), the link's expiry.
	"member_invite.subject": text("%[1]s lädt Sie ein, %[2]s auf Taasky beizutreten"),
	"member_invite.heading": text("%[1]s auf Taasky beitreten"),
	"member_invite.intro":   text("%[1]s lädt Sie ein, %[2]s als %[3]s beizutreten. Mitglieder verbinden ihre KI-Agenten mit Taasky und bestätigen, was ihre Agenten vereinbaren."),
	"member_invite.action":  text("Einladung annehmen"),
	"member_invite.expires": text("Der Link funktioniert einmal und läuft %[1]s ab."),
	"member_invite.sign_in": text("Melden Sie sich mit %[1]s an, um anzunehmen: die Einladung gilt für diese Adresse."),
	"member_invite.why":     text("%[1]s hat Taasky Ihre Adresse gegeben, um Sie einzuladen. Mehr wird nicht gesendet, außer Sie werden erneut eingeladen."),

	// A note on a room's timeline that is not a move.
	"note.member_left": text("%[1]s ist nicht mehr Mitglied des Kontos: dessen Inhaber beantworten jetzt die Bestätigungen dieser Seite."),

	// for_your_human: the room in plain text, for an agent to show its human.
	"human.title":          text("Verhandlung: %[1]q (die Worte der einladenden Seite)."),
	"human.draft":          text("Warten, bis die andere Seite die Einladung annimmt."),
	"human.your_turn":      text("Ihre Seite ist am Zug."),
	"human.their_turn":     text("Warten auf die andere Seite."),
	"human.agreed":         text("VEREINBART: beide Seiten haben die folgenden Bedingungen bestätigt."),
	"human.closed":         text("Geschlossen (%[1]s). Es wurde nichts vereinbart."), // closed.<reason>
	"human.deadline":       text("Frist: %[1]s."),
	"human.options.yours":  text("Von Ihrer Seite vorgeschlagene Optionen (eine ist zu wählen):"),
	"human.options.theirs": text("Von der anderen Seite vorgeschlagene Optionen (eine ist zu wählen):"),
	"human.terms.yours":    text("Von Ihrer Seite vorgeschlagene Bedingungen:"),
	"human.terms.theirs":   text("Von der anderen Seite vorgeschlagene Bedingungen:"),
	"human.option":         text("%[1]s:"), // card.option
	"human.their_field":    text("%[1]s (Feld der anderen Seite)"),
	"human.not_given":      text("nicht angegeben"),
	"human.their_words":    text("%[1]s (ihre Worte)"),
	"human.outside":        text("AUSSERHALB IHRER GRENZEN; eine Bestätigung akzeptiert es trotzdem"),
	"human.no_deal_field":  text("bei diesem Feld ist keine Einigung möglich"),
	"human.confirm":        text("Ihre Bestätigung wird benötigt: %[1]s."), // ask.<verdict>
	"human.confirm_where":  text("Sie haben einen Link erhalten; Sie können auch im Dashboard antworten."),

	// Values that are words, in a card: a yes/no field.
	"value.true":  text("ja"),
	"value.false": text("nein"),

	// Where a delivery went, and what became of it (jobs' Channel, Status).
	"channel.email":   text("E-Mail"),
	"channel.push":    text("Web Push"),
	"status.queued":   text("in der Warteschlange"),
	"status.sent":     text("gesendet"),
	"status.retrying": text("wird erneut versucht"),
	"status.failed":   text("fehlgeschlagen"),
	"status.skipped":  text("übersprungen"),
	"status.gone":     text("entfernt"),

	// The regions of the time-zone picker (the IANA name's first part).
	"region.utc":        text("Universell"),
	"region.africa":     text("Afrika"),
	"region.america":    text("Amerika"),
	"region.antarctica": text("Antarktis"),
	"region.arctic":     text("Arktis"),
	"region.asia":       text("Asien"),
	"region.atlantic":   text("Atlantischer Ozean"),
	"region.australia":  text("Australien"),
	"region.europe":     text("Europa"),
	"region.indian":     text("Indischer Ozean"),
	"region.pacific":    text("Pazifischer Ozean"),

	// A time zone a browser told that does not exist.
	"zone.unknown": text("time_zone: %[1]q ist kein IANA-Zeitzonenname wie Europe/Berlin."),

	// Every page's frame.
	"layout.skip":       text("Zum Inhalt springen"),
	"layout.nav":        text("Hauptmenü"),
	"layout.rooms":      text("Räume"),
	"layout.waiting":    text("wartet auf einen Menschen"),
	"layout.settings":   text("Einstellungen"),
	"layout.sign_out":   text("Abmelden"),
	"layout.zone_offer": text("Zeiten werden in UTC angezeigt."),
	"layout.zone_use":   text("In dieser Zeitzone anzeigen:"), // followed by the browser's zone
	"layout.signed_in":  text("Angemeldet als %[1]s · Zeiten in %[2]s"),
	"layout.tagline":    text("Taasky: Ihr Agent verhandelt, Sie stimmen zu."),
	"layout.copy":       text("Kopieren"),
	"layout.copied":     text("Kopiert"),

	// The signed-out home page.
	"welcome.heading":    text("Ihr Agent verhandelt. Sie stimmen zu."),
	"welcome.lead":       text("Bei Taasky handeln die KI-Agenten zweier Menschen Bedingungen aus – einen Termin, einen Ort, ein Honorar –, und nur ihre Menschen können Ja sagen. Jede Zusage bestätigen Sie selbst, auf einer Karte, die genau zeigt, wozu Sie zustimmen."),
	"welcome.sign_in":    text("Anmelden"),
	"welcome.invited":    text("Von jemandem eingeladen? Öffnen Sie den Einladungslink, den Sie erhalten haben: Zum Antworten brauchen Sie kein Konto."),
	"signed_out.heading": text("Sie sind abgemeldet"),
	"signed_out.text":    text("Ihre Sitzung in diesem Browser ist beendet."),
	"signed_out.again":   text("Erneut anmelden"),

	// The error page.
	"error.title":    text("Etwas stimmt nicht"),
	"error.back":     text("Zurück zu Taasky"),
	"error.too_many": text("Zu viele Anfragen"),
	"error.try_again": plural.Selectf(1, "%d",
		"one", "Aus Ihrem Netzwerk kamen zu viele Anfragen. Versuchen Sie es in %[1]d Sekunde erneut.",
		"other", "Aus Ihrem Netzwerk kamen zu viele Anfragen. Versuchen Sie es in %[1]d Sekunden erneut."),

	// A card on a page.
	"card.label":          text("Vorliegende Bedingungen"),
	"card.new_schema_tag": text("Neues Schema."),
	"card.options": plural.Selectf(1, "%d",
		"one", "%[1]d Option:",
		"other", "%[1]d Optionen zur Auswahl:"),
	"card.outside":        text("Außerhalb Ihrer Grenzen: Wer zustimmt, akzeptiert es trotzdem."),
	"card.not_said":       text("die Bedingungen der anderen Seite sagen nichts dazu"),
	"card.hash_summary":   text("Fingerabdruck dieser Bedingungen"),
	"card.hash_explained": text("Agenten bezeichnen genau diese Bedingungen mit diesem subject_hash:"),
	"card.pick":           text("Diese wählen"),
	"card.pick_option":    text("%[1]s wählen"), // card.option
	"card.approve":        text("Zustimmen"),

	// A room's timeline.
	"timeline.heading": text("Verlauf"),
	"timeline.yours":   text("Ihre Seite"),
	"timeline.theirs":  text("Die andere Seite"),
	"timeline.round":   text("Runde %[1]d"),
	"timeline.about":   text("betrifft:"), // followed by field names
	"timeline.empty":   text("Noch nichts vorgelegt."),

	// What a person can answer, on any page.
	"answer.decline":       text("Nicht bestätigen"),
	"answer.propose_else":  text("Etwas anderes vorschlagen"),
	"answer.send_proposal": text("Meinen Vorschlag senden"),

	// The form generated from a schema.
	"form.optional": text("(optional)"),
	"form.from":     text("Von"),
	"form.to":       text("Bis"),
	"form.zone":     text("Zeitzone"),
	"form.none":     text("(keine Angabe)"),
	"form.choose":   text("Auswählen …"),
	"form.amount":   text("Betrag"),
	"form.currency": text("Währung"),
	"form.repeated": text("Mehrere Werte: Füllen Sie so viele Zeilen aus, wie Sie brauchen; leere Zeilen werden ausgelassen."),

	// The list of rooms.
	"rooms.heading":        text("Ihre Räume"),
	"rooms.filter":         text("Räume filtern"),
	"rooms.filter_all":     text("Alle"),
	"rooms.filter_waiting": text("Wartet auf einen Menschen"),
	"rooms.filter_live":    text("Laufend"),
	"rooms.filter_agreed":  text("Vereinbart"),
	"rooms.filter_closed":  text("Geschlossen"),
	"rooms.untitled":       text("Raum %[1]s"),
	"rooms.start_heading":  text("Beginnen Sie mit einem Konto"),
	"rooms.start_text":     text("Sie gehören noch keinem Konto an. Erstellen Sie eines für sich oder Ihr Team und verbinden Sie dann einen Agenten – oder öffnen Sie den Link einer Einladung, die Sie erhalten haben."),
	"rooms.create_account": text("Konto erstellen"),
	"rooms.none_here":      text("Hier gibt es keine Räume."),
	"rooms.none_yet":       text("Noch keine Räume. Sobald Ihr Agent eine Verhandlung eröffnet oder ihr beitritt, erscheint sie hier."),
	"rooms.first_page":     text("Erste Seite"),
	"rooms.next_page":      text("Nächste Seite"),

	// A room's page, for an account's member.
	"room.side_with":          text("%[1]s (Seite %[2]s) mit %[3]s"),
	"room.side_waiting":       text("%[1]s (Seite %[2]s), die Einladung ist noch nicht beantwortet"),
	"room.round":              text("Runde %[1]s"), // the round's number, marked up
	"room.deadline":           text("Frist"),
	"room.answered_by_you":    text("Beantwortet von Ihnen"),
	"room.answered_by_owners": text("Beantwortet von den Inhabern des Kontos"),
	"room.answered_by":        text("Beantwortet von %[1]s"),
	"room.agreed":             text("Vereinbart: beide Menschen haben denselben Bedingungen zugestimmt."),
	"room.answer_marked":      text("Ihre Antwort gilt für die unten markierten Bedingungen."),
	"room.owners_answer":      text("Der Mensch dieser Seite hat das Konto verlassen: dessen Inhaber antworten; Sie können mitlesen."),
	"room.theirs_to_answer":   text("Die Antwort liegt bei %[1]s (der eigene Agent hat gefragt); Sie können mitlesen."),
	"room.tabled_by_you":      text("Von Ihrer Seite vorgelegt."),
	"room.tabled_by":          text("Von %[1]s vorgelegt, in Ihren Worten gezeigt."),
	"room.no_terms":           text("Keine Bedingungen liegen vor."),
	"room.limits":             text("Ihre Grenzen"),
	"room.limits_private":     text("(nur Sie sehen sie)"),

	// The page of a one-tap link.
	"onetap.title":          text("Bestätigen: %[1]s"), // the room's title
	"onetap.title_untitled": text("Bestätigen: eine Verhandlung"),
	"onetap.with":           text("Mit %[1]s"),
	"onetap.with_person":    text("Mit einer Person ohne Konto, eingeladen per E-Mail oder Link"),
	"onetap.deadline":       text("Frist:"),
	"onetap.nothing_yet":    text("Das Öffnen dieser Seite hat nichts verändert; nur diese Schaltflächen antworten."),
	"onetap.not_waiting":    text("Diese Bestätigung wartet nicht mehr auf Sie."),
	"onetap.used":           text("Dieser Link wurde am %[1]s verwendet. Jeder Link funktioniert einmal."),
	"onetap.room_state":     text("Stand des Raums: %[1]s."),
	"onetap.open":           text("Taasky öffnen"),

	// The invitation page, for a person without an account.
	"invite.title":          text("Einladung von %[1]s"),
	"invite.heading":        text("%[1]s lädt Sie zu einer Vereinbarung ein"),
	"invite.heading_titled": text("%[1]s lädt Sie zu einer Vereinbarung ein: %[2]s"), // the title, their words
	"invite.title_theirs":   text("Der Titel stammt von %[1]s."),
	"invite.answer_by":      text("Antworten Sie bis"),
	"invite.your_tap":       text("Ihr Klick ist Ihre Antwort: niemand antwortet für Sie."),
	"invite.pick_heading":   text("Wählen Sie die passende Option"),
	"invite.their_proposal": text("Vorschlag der anderen Seite"),
	"invite.preapproved":    text("%[1]s hat bereits jeder dieser Optionen zugestimmt: Ihre Wahl entscheidet."),
	"invite.decline":        text("Einladung ablehnen"),
	"invite.no_terms":       text("%[1]s hat noch keine Bedingungen vorgeschlagen. Treten Sie jetzt bei und kommen Sie zurück, sobald es so weit ist."),
	"invite.join":           text("Beitreten"),

	// A person's own page in a negotiation (their seat).
	"seat.title":         text("Ihre Antwort an %[1]s"),
	"seat.answer_in":     text("Ihre Antwort ist eingegangen."),
	"seat.keep_link":     text("Bewahren Sie Ihren persönlichen Link auf, um zu dieser Verhandlung zurückzukehren:"),
	"seat.with":          text("Mit %[1]s"),
	"seat.agreed":        text("Vereinbart: Sie haben beide denselben Bedingungen zugestimmt."),
	"seat.your_proposal": text("Ihr Vorschlag"),
	"seat.no_terms":      text("Noch liegen keine Bedingungen vor."),
	"seat.reject":        text("Ablehnen und schließen"),
	"seat.waiting":       text("Warten auf %[1]s. Diese Seite aktualisiert sich selbst."),
	"seat.leave":         text("Diese Verhandlung verlassen"),
	"seat.leave_button":  text("Verlassen und schließen"),
	"seat.link":          text("Ihr persönlicher Link:"),

	// The delivery log.
	"log.heading":       text("Zustellprotokoll"),
	"log.intro":         text("Jede Benachrichtigung, die Taasky Ihnen gesendet hat oder zu senden versuchte, und die Einladungen, die Ihre Agenten per E-Mail verschicken ließen, neueste zuerst. Ein fehlgeschlagener Versuch wird mit wachsendem Abstand wiederholt."),
	"log.pages":         text("Seiten"),
	"log.newest":        text("Neueste"),
	"log.older":         text("Ältere"),
	"log.nothing_older": text("Nichts Älteres."),
	"log.nothing_yet":   text("Ihnen wurde noch nichts gesendet."),
	"log.not_set_up":    text("Benachrichtigungen sind auf diesem Server nicht eingerichtet."),
	"log.when":          text("Wann"),
	"log.what":          text("Was"),
	"log.channel":       text("Kanal"),
	"log.to":            text("An"),
	"log.status":        text("Status"),
	"log.attempts":      text("Versuche"),
	"log.error":         text("Fehler"),

	// The page that stops email notices.
	"unsubscribe.heading":       text("E-Mail-Hinweise abbestellen?"),
	"unsubscribe.what":          text("Taasky sendet Ihnen dann keine Erinnerungen, Vereinbarungen, geschlossenen Räume und „keine Einigung möglich“-Hinweise mehr per E-Mail."),
	"unsubscribe.done_heading":  text("E-Mail-Hinweise sind aus"),
	"unsubscribe.done":          text("Taasky sendet %[1]s keine Erinnerungen, Vereinbarungen, geschlossenen Räume oder „keine Einigung möglich“-Hinweise mehr per E-Mail."),
	"unsubscribe.requests_stay": text("Bitten um Bestätigung kommen weiterhin: Ihr Agent kann ohne Sie nicht handeln, daher lassen sie sich nie per Link abbestellen."),
	"unsubscribe.settings":      text("Alles Weitere wählen Sie in den %[1]s."), // a link to Settings
	"unsubscribe.button":        text("E-Mail-Hinweise abbestellen"),

	// The page that refuses further invitations to an address.
	"refuse.heading":      text("Einladungen an %[1]s ablehnen?"),
	"refuse.what":         text("Taasky schickt dieser Adresse keine weitere Einladung zu einer Verhandlung, egal wer fragt. Einladungen, die Sie schon haben, funktionieren weiter."),
	"refuse.button":       text("Weitere Einladungen ablehnen"),
	"refuse.done_heading": text("Keine Einladungen mehr"),
	"refuse.done":         text("Taasky schickt %[1]s keine weitere Einladung."),
	"refuse.invalid":      text("Dieser Link ist ungültig: öffnen Sie den aus der Einladungs-E-Mail."),

	// The settings page.
	"settings.done.revoked":        text("Der Schlüssel wurde widerrufen: er funktioniert nicht mehr."),
	"settings.done.zone":           text("Ihre Zeitzone wurde gespeichert."),
	"settings.done.language":       text("Ihre Sprache wurde gespeichert."),
	"settings.done.notify":         text("Ihre Benachrichtigungseinstellungen wurden gespeichert."),
	"settings.done.push_on":        text("Dieser Browser erhält Ihre Benachrichtigungen."),
	"settings.done.push_off":       text("Das Gerät wurde entfernt: es erhält keine Benachrichtigungen mehr."),
	"settings.done.push_test":      text("Eine Testbenachrichtigung ist unterwegs zu Ihren Geräten: das Zustellprotokoll unten zeigt, wie es lief."),
	"settings.done.disconnected":   text("Der Agent wurde getrennt: seine Tokens funktionieren nicht mehr."),
	"settings.done.push_nothing":   text("Es gibt kein Gerät für einen Test: schalten Sie zuerst Benachrichtigungen in diesem Browser ein."),
	"settings.key_ready":           text("%[1]s ist bereit"),
	"settings.key_give":            text("Geben Sie Ihrem Agenten diese MCP-URL und diesen Schlüssel."),
	"settings.key_once":            text("Der Schlüssel wird nur dieses eine Mal angezeigt: kopieren Sie ihn jetzt."),
	"settings.mcp_url":             text("MCP-URL"),
	"settings.key":                 text("Schlüssel"),
	"settings.key_header":          text("Der Agent sendet ihn im Header %[1]s."),
	"settings.account_you_are":     text("(%[1]s, Sie sind %[2]s)"), // role.<role>
	"settings.account_mcp":         text("MCP-URL für die Agenten dieses Kontos: %[1]s"),
	"settings.members":             text("Mitglieder"),
	"settings.members_invitations": text("Mitglieder und Einladungen"),
	"settings.account_settings":    text("Kontoeinstellungen und Prüfprotokoll"),
	"settings.agent_owner":         text("gehört %[1]s"),
	"settings.agent_orphan":        text("sein Mensch hat das Konto verlassen: seine Schlüssel sind widerrufen"),
	"settings.oauth_connected":     text("Mit OAuth verbunden durch %[1]s"),
	"settings.oauth_disconnected":  text("Getrennt am %[1]s, verbunden war %[2]s"),
	"settings.last_used":           text("zuletzt verwendet %[1]s"),
	"settings.never_used":          text("nie verwendet"),
	"settings.disconnect":          text("Trennen"),
	"settings.disconnect_agent":    text("%[1]s trennen"),
	"settings.revoked":             text("widerrufen"),
	"settings.since":               text("seit %[1]s"),
	"settings.revoke":              text("Widerrufen"),
	"settings.revoke_key":          text("Schlüssel %[1]s widerrufen"),
	"settings.another_key":         text("Weiteren Schlüssel ausstellen"),
	"settings.no_agents":           text("Noch keine Agenten."),
	"settings.agent_name":          text("Name des neuen Agenten"),
	"settings.agent_name_example":  text("z. B. Mein Kalenderassistent"),
	"settings.create_agent":        text("Agent erstellen"),
	"settings.no_account":          text("Sie sind noch kein Mitglied eines Kontos. %[1]s, oder öffnen Sie den Link einer Einladung, die Sie erhalten haben."),
	"settings.zone_heading":        text("Zeitzone"),
	"settings.zone_label":          text("Karten, Fristen und Nachrichten werden angezeigt in"),
	"settings.zone_search":         text("Zeitzonen durchsuchen"),
	"settings.zone_browser":        text("Ihr Browser meldet"),
	"settings.zone_use":            text("Übernehmen"),
	"settings.save":                text("Speichern"),
	"settings.language_heading":    text("Sprache"),
	"settings.language_label":      text("Taasky spricht mit Ihnen auf"),
	"settings.language_auto":       text("Sprache Ihres Browsers"),
	"settings.notify_heading":      text("Benachrichtigungen"),
	"settings.notify_intro":        text("Wenn Ihr Agent Ihre Bestätigung für einen Schritt braucht, sagt Taasky es Ihnen sofort; Hinweise sagen Ihnen, wie Ihre Verhandlungen enden."),
	"settings.by_email":            text("Per E-Mail an %[1]s"),
	"settings.email_requests":      text("Bitten um Bestätigung eines Schritts (mit Ein-Klick-Link)"),
	"settings.email_notices":       text("Hinweise: Erinnerungen vor einer Frist, vereinbart (mit Kalendereintrag), geschlossen, keine Einigung möglich"),
	"settings.push_legend":         text("Auf Ihren Geräten (Web Push)"),
	"settings.push_requests":       text("Bitten um Bestätigung eines Schritts"),
	"settings.push_notices":        text("Hinweise"),
	"settings.push_no_device":      text("Die Web-Push-Auswahl erscheint hier, sobald ein Browser benachrichtigt wird (siehe unten)."),
	"settings.requests_wait":       text("Wenn Sie Bitten überall abschalten, warten sie trotzdem auf der Seite Ihrer Räume auf Sie: Ihr Agent kann ohne Sie nicht handeln."),
	"settings.push_heading":        text("Web Push"),
	"settings.push_needs_js":       text("Benachrichtigungen in einem Browser einzuschalten braucht JavaScript: diese Seite erledigt es mit einer Schaltfläche, sobald ihr Skript läuft."),
	"settings.push_on":             text("In diesem Browser benachrichtigen"),
	"settings.push_off":            text("Diesen Browser nicht mehr benachrichtigen"),
	"settings.a_browser":           text("Ein Browser"),
	"settings.this_browser":        text("dieser Browser"),
	"settings.last_notified":       text("zuletzt benachrichtigt %[1]s"),
	"settings.send_test":           text("Test senden"),
	"settings.remove":              text("Entfernen"),
	"settings.send_test_all":       text("Test an alle Geräte senden"),
	"settings.no_device":           text("Noch erhält kein Gerät Ihre Benachrichtigungen."),
	"settings.server_key":          text("Serverschlüssel"),
	"settings.server_key_text":     text("Browser abonnieren mit diesem öffentlichen VAPID-Schlüssel:"),
	"settings.push_not_configured": text("Web Push ist auf diesem Server nicht eingerichtet (dafür braucht es %[1]s und %[2]s): Benachrichtigungen kommen nur per E-Mail."),
	"push_js.unsupported":          text("Dieser Browser kann hier keine Web-Push-Benachrichtigungen erhalten."),
	"push_js.needs_https":          text("Dieser Browser kann hier keine Web-Push-Benachrichtigungen erhalten (dafür braucht es https)."),
	"push_js.on":                   text("Dieser Browser erhält Ihre Benachrichtigungen."),
	"push_js.off":                  text("Dieser Browser erhält Ihre Benachrichtigungen nicht."),
	"push_js.blocked":              text("Benachrichtigungen sind für diese Website in diesem Browser blockiert: erlauben Sie sie in den Website-Einstellungen und kommen Sie dann zurück."),
	"push_js.failed":               text("Das hat nicht funktioniert:"),
	"settings.whole_log":           text("Das ganze Protokoll"),
	"settings.notify_not_set_up":   text("Benachrichtigungen sind auf diesem Server nicht eingerichtet: Bitten um Bestätigung warten auf der Seite Ihrer Räume auf Sie."),

	// The OAuth consent page: an assistant asks to become the person's agent.
	"consent.title":            text("%[1]s verbinden"),
	"consent.heading":          text("%[1]s mit Taasky verbinden?"),
	"consent.asks":             text("%[1]s möchte für Sie verhandeln."),
	"consent.asks_in":          text("%[1]s möchte für Sie im Konto %[2]s verhandeln."),
	"consent.agent":            text("Es wird Ihr Agent: es darf Verhandlungen eröffnen, ihnen beitreten, darin antworten und Sie um Bestätigung bitten."),
	"consent.still_yours":      text("Jede Zustimmung, Ablehnung und jeder Rückzug braucht weiterhin Ihre Bestätigung, hier oder über eine Benachrichtigung."),
	"consent.client":           text("Client"),
	"consent.answer_to":        text("Seine Antwort geht an"),
	"consent.new_client":       text("Dieser Client ist neu bei Taasky: niemand hat ihn bisher verbunden. Verbinden Sie ihn nur, wenn Sie Taasky gerade selbst zu Ihrem Assistenten hinzugefügt haben."),
	"consent.host_differs":     text("Seine Antwort geht an %[1]s, nicht an %[2]s, woher der Client nach eigener Angabe stammt. Für eine App auf Ihrem Computer ist das üblich; andernfalls lehnen Sie ab."),
	"consent.account":          text("Für das Konto"),
	"consent.connect":          text("%[1]s verbinden"),
	"consent.decline":          text("Ablehnen"),
	"consent.disconnect_later": text("Sie können ihn jederzeit unter Einstellungen → Agenten trennen: er funktioniert dann sofort nicht mehr."),

	// Emails (subject, heading, intro, why the recipient gets it) and
	// their parts; "in" names the room inside a sentence.
	"mail.subject":               text("%[1]s – %[2]s"), // what, about what
	"mail.about_with":            text("Verhandlung mit %[1]s"),
	"mail.about_yours":           text("Ihre Verhandlung"),
	"mail.in_with":               text(" in „%[1]s“ mit %[2]s"),
	"mail.in":                    text(" in „%[1]s“"),
	"mail.with":                  text(" mit %[1]s"),
	"mail.your_agent":            text("Ihr Agent"),
	"mail.your_agent_named":      text("Ihr Agent %[1]s"),
	"mail.review":                text("Ansehen und antworten"),
	"mail.open_room":             text("Raum öffnen"),
	"mail.the_room":              text("Der Raum:"),
	"mail.calendar":              text("Die vereinbarte Zeit ist als Kalendereintrag angehängt (invite.ics)."),
	"mail.stop":                  text("Diese Hinweise abbestellen"),
	"mail.settings":              text("Benachrichtigungseinstellungen"),
	"mail.request.intro":         text("%[1]s bittet Sie%[3]s, %[2]s."), // agent, ask.<verdict>, in
	"mail.request.why":           text("Ihr Agent kann diesen Schritt nicht ohne Sie tun. Der Link zeigt zuerst die Bedingungen; nichts geschieht, bevor Sie eine Schaltfläche drücken."),
	"mail.reminder.subject":      text("Erinnerung: Ihre Antwort steht aus"),
	"mail.reminder.heading":      text("Ihre Antwort steht noch aus"),
	"mail.reminder.intro":        text("%[1]s hat Sie%[3]s gebeten, %[2]s."),
	"mail.reminder.deadline":     text("Die Frist endet %[1]s (%[2]s); stimmt bis dahin niemand zu, wird der Raum geschlossen."), // until.*
	"mail.reminder.why":          text("Eine Erinnerung vor der Frist einer Bestätigung, die Sie noch nicht beantwortet haben."),
	"mail.agreed.heading":        text("Vereinbart"),
	"mail.agreed.intro":          text("Vereinbart%[1]s: Sie haben beide diesen Bedingungen zugestimmt."),
	"mail.agreed.why":            text("Ein Hinweis: eine Ihrer Verhandlungen ist vereinbart."),
	"mail.closed.heading":        text("Geschlossen"),
	"mail.closed.intro":          text("Die Verhandlung%[1]s ist geschlossen: %[2]s."), // in, closed.<reason>
	"mail.closed.why":            text("Ein Hinweis: eine Ihrer Verhandlungen endete ohne Vereinbarung."),
	"mail.no_deal.subject":       text("Keine Einigung möglich bei %[1]s"),
	"mail.no_deal.heading":       text("Keine Einigung möglich"),
	"mail.no_deal.intro":         text("Keine Einigung ist möglich%[1]s bei %[2]s: Ihre Grenzen und die der anderen Seite überschneiden sich nicht. Keine Seite hat ihre Zahlen der anderen gezeigt."),
	"mail.no_deal.why":           text("Ein Hinweis: Taasky vergleicht die Grenzen beider Seiten einmal, wenn die andere Seite beitritt."),
	"mail.invite.someone":        text("Jemand"),
	"mail.invite.subject":        text("%[1]s lädt Sie zu einer Verhandlung ein"),
	"mail.invite.subject_titled": text("%[1]s lädt Sie zu einer Verhandlung ein: „%[2]s“"),
	"mail.invite.heading":        text("%[1]s lädt Sie ein"),
	"mail.invite.intro":          text("Der Agent von %[1]s möchte sich mit Ihnen auf Bedingungen einigen. Öffnen Sie die Einladung, um den Vorschlag zu sehen: Sie können im Browser antworten (wählen, zustimmen, ein Gegenangebot machen oder ablehnen) oder den Link einem eigenen Agenten geben."),
	"mail.invite.intro_titled":   text("Der Agent von %[1]s möchte sich mit Ihnen über „%[2]s“ einigen. Öffnen Sie die Einladung, um den Vorschlag zu sehen: Sie können im Browser antworten (wählen, zustimmen, ein Gegenangebot machen oder ablehnen) oder den Link einem eigenen Agenten geben."),
	"mail.invite.action":         text("Einladung ansehen"),
	"mail.invite.expires":        text("Die Einladung läuft %[1]s ab, wenn niemand sie beantwortet."),
	"mail.invite.zone":           text("Zeiten sind hier in UTC angegeben; die Einladung zeigt sie in Ihrer eigenen Zeitzone."),
	"mail.invite.refuse":         text("Jede weitere Einladung an diese Adresse ablehnen"),
	"mail.invite.why":            text("%[1]s hat Taasky Ihre Adresse beim Eröffnen dieser Verhandlung gegeben. Mehr wird Ihnen nicht gesendet, außer Sie antworten."),
	"mail.test.subject":          text("Taasky-Testbenachrichtigung"),
	"mail.test.heading":          text("Es funktioniert"),
	"mail.test.intro":            text("Dieses Gerät zeigt Taaskys Bitten um Ihre Bestätigung an."),

	// Push notifications: the title, and a count of options in the body.
	"push.request":  text("%[1]s bittet Sie, %[2]s"), // agent, ask.<verdict>
	"push.reminder": text("Wartet noch: %[1]s"),
	"push.options": plural.Selectf(1, "%d",
		"one", "%[1]d Option",
		"other", "%[1]d Optionen"),

	// A calendar entry's description (.ics): the exact agreed moments.
	"ics.agreed":      text("Vereinbart auf Taasky."),
	"ics.agreed_with": text("Vereinbart auf Taasky mit %[1]s."),
	"ics.range":       text("%[1]s: %[2]s bis %[3]s"),

	// Webhooks
	"webhook.disabled.subject": text("Ein Webhook von %[1]s wurde abgeschaltet"),
	"webhook.disabled.heading": text("Ein Webhook wurde abgeschaltet"),
	"webhook.disabled.intro": text("Taasky konnte drei Tage lang nicht an %[1]s zustellen und sendet die Webhooks von %[2]s " +
		"deshalb nicht mehr dorthin. Ereignisse seitdem stehen im Zustellprotokoll; gesendet wird erst wieder, wenn der Endpunkt eingeschaltet ist."),
	"webhook.disabled.last":   text("Der letzte Versuch: %[1]s."),
	"webhook.disabled.action": text("Webhooks öffnen"),
	"webhook.disabled.why":    text("Ihnen gehört %[1]s auf Taasky; die Inhaber werden benachrichtigt, wenn ein Webhook stoppt."),

	// Account deletion
	"party.deleted_account":        text("ein gelöschtes Konto"),
	"account_delete.heading":       text("Konto löschen"),
	"account_delete.intro":         text("Das Löschen des Kontos kann nicht rückgängig gemacht werden. Sofort gilt:"),
	"account_delete.rooms":         text("jede offene Verhandlung wird geschlossen, und der anderen Seite wird mitgeteilt, dass dieses Konto gelöscht wurde;"),
	"account_delete.access":        text("kein Agentenschlüssel, kein verbundener Assistent und keine Sitzung eines Mitglieds funktioniert mehr;"),
	"account_delete.erased":        text("die Seite des Kontos in jedem Raum (seine Agenten, seine Grenzen, seine Notizen), seine Mitglieder, Einladungen, sein Prüfprotokoll und Zustellprotokoll werden gelöscht, ebenso jedes Mitglied, das keinem anderen Konto angehört, mit seinen Einstellungen und Geräten;"),
	"account_delete.kept":          text("die andere Seite behält ihre Kopie jedes Raums, auch der vereinbarten, und sieht diese Seite als „ein gelöschtes Konto“."),
	"account_delete.export_first":  text("Um eine Kopie zu behalten, laden Sie zuerst oben den Export herunter."),
	"account_delete.confirm_label": text("Geben Sie zur Bestätigung das Kürzel des Kontos ein: %[1]s"),
	"account_delete.button":        text("Konto löschen"),
	"account_delete.done_title":    text("Das Konto wurde gelöscht"),
	"account_delete.done_rooms":    text("Seine offenen Verhandlungen wurden geschlossen und die anderen Seiten benachrichtigt. Seine Schlüssel und Sitzungen funktionieren nicht mehr."),
	"account_delete.done_back":     text("Zurück zu Ihren Räumen"),
	"account_delete.done_erased":   text("Sie gehörten keinem anderen Konto an, daher wurde auch gelöscht, was Taasky über Sie gespeichert hatte."),
	"account_delete.done_signup":   text("Ein neues Konto anlegen"),
	"topic.member_invite":          text("Einladung in das Konto"),
	"request.handed_over":          text("Das Mitglied, das für diesen Agenten geantwortet hat, gehört dem Konto nicht mehr an: Als Inhaber antworten Sie jetzt für ihn."),

	// Failover
	"failover.retry": text("Taasky wechselt zu seiner Standby-Datenbank. Versuchen Sie es in einigen Sekunden erneut: Was durchging, bleibt erhalten, und nichts geschieht doppelt."),

	// Receipts
	"receipt.heading":            text("Beleg der Vereinbarung"),
	"receipt.intro":              text("Taasky hat einen Beleg dieser Vereinbarung signiert: wer welchen Bedingungen zugestimmt hat und wie jede Seite bestätigt hat. Jeder kann ihn prüfen."),
	"receipt.download":           text("Beleg herunterladen (.jws-Datei)"),
	"receipt.print":              text("Druckbarer Beleg"),
	"receipt.verify_at":          text("Einen Beleg prüfen unter %[1]s"),
	"receipt.room":               text("Raum %[1]d: %[2]s (Worte der einladenden Seite)"),
	"receipt.room_untitled":      text("Raum %[1]d"),
	"receipt.agreed_at":          text("Vereinbart %[1]s."),
	"receipt.side_a":             text("Die Seite, die den Raum eröffnet hat"),
	"receipt.side_b":             text("Die Seite, die beigetreten ist"),
	"receipt.account":            text("Konto: %[1]s"),
	"receipt.no_account":         text("Eine Person, die die Einladung ohne Konto beantwortet hat"),
	"receipt.confirmed_by":       text("Bestätigt von %[1]s %[2]s, %[3]s."), // name, receipt.channel.*, moment
	"receipt.confirmed":          text("Bestätigt %[1]s, %[2]s."),           // receipt.channel.*, moment
	"receipt.preapproved":        text("Diese Seite hat vorab bestätigt, dass jede der angebotenen Optionen in Ordnung war."),
	"receipt.channel.dashboard":  text("im Taasky-Dashboard"),
	"receipt.channel.email":      text("mit einem Ein-Tipp-Link aus einer E-Mail"),
	"receipt.channel.push":       text("mit einem Ein-Tipp-Link aus einer Push-Benachrichtigung"),
	"receipt.channel.invitation": text("auf der Einladungsseite"),
	"receipt.terms":              text("Vereinbarte Bedingungen"),
	"receipt.subject_hash":       text("Fingerabdruck der Bedingungen (subject_hash): %[1]s"),
	"receipt.log":                text("Das Protokoll des Raums: %[1]d Ereignisse, verkettet bis zum Kopf-Hash %[2]s"),
	"receipt.issued":             text("Ausgestellt %[1]s von %[2]s mit dem Schlüssel %[3]s."),
	"verify.heading":             text("Einen Taasky-Beleg prüfen"),
	"verify.intro":               text("Fügen Sie einen Beleg ein (den Text einer .jws-Datei) oder laden Sie die Datei hoch. Nichts, was Sie senden, wird gespeichert."),
	"verify.paste":               text("Beleg"),
	"verify.upload":              text("Oder die Datei hochladen"),
	"verify.submit":              text("Prüfen"),
	"verify.empty":               text("Fügen Sie einen Beleg ein oder wählen Sie seine Datei."),
	"verify.valid":               text("Gültig: %[1]s hat diesen Beleg signiert, und nichts darin wurde seitdem geändert."),
	"verify.invalid":             text("Nicht gültig: %[1]s"),
	"verify.problem.malformed":   text("dies ist kein Taasky-Beleg (%[1]s)."),
	"verify.problem.foreign":     text("ein anderer Dienst hat ihn ausgestellt (%[1]s)."),
	"verify.problem.unknown_key": text("er wurde mit einem Schlüssel signiert, den dieser Dienst nicht veröffentlicht (%[1]s)."),
	"verify.problem.tampered":    text("er wurde nach der Signatur verändert."),
	"receipt.attached":           text("Der signierte Beleg dieser Vereinbarung ist angehängt (%[1]s): Jeder kann ihn unter %[2]s prüfen."),
	"verify.offline":             text("Zum Prüfen ohne diese Seite: taasky receipt verify DATEI --jwks %[1]s"),
}
