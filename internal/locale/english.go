package locale

import (
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/message/catalog"
)

// englishText is the catalog's English text, by key. Keys name what the text
// is for; %-verbs are filled in by the accessors (positional, %[1]s, where
// a translation may need another order). A counted number picks its CLDR
// plural form.
var englishText = map[Key]catalog.Message{
	// What a room's state is called, in a list or a status line.
	"state.draft":    text("invitation sent"),
	"state.awaiting": text("negotiating"),
	"state.agreed":   text("agreed"),
	"state.closed":   text("closed (%[1]s)"), // the close reason in words

	// Why a room closed, as the end of "… is closed: ".
	"closed.rejected":  text("the terms were rejected"),
	"closed.cancelled": text("one side withdrew"),
	"closed.withdrawn": text("the invitation was withdrawn"),
	"closed.expired": plural.Selectf(1, "%d",
		"one", "nobody answered the invitation within %[1]d hour",
		"other", "nobody answered the invitation within %[1]d hours"),
	"closed.lapsed":          text("the deadline passed without an agreement"),
	"closed.account_deleted": text("the other side's account was deleted"),

	// A value outside the reader's limits, by bound, never by number.
	"bound.min":     text("below your minimum"),
	"bound.max":     text("above your maximum"),
	"bound.one_of":  text("not one of the values you accept"),
	"bound.equals":  text("not the value you require"),
	"bound.outside": text("outside your limits: %[1]s"), // the bounds in words, joined

	// What a side did, after "Your side" or "Their side".
	"verdict.offer":            text("offered terms"),
	"verdict.counter":          text("countered"),
	"verdict.need_more_detail": text("asked for more detail"),
	"verdict.approve":          text("approved"),
	"verdict.reject":           text("rejected the terms"),
	"verdict.cancel":           text("withdrew"),
	"verdict.preapprove":       text("confirmed that any option is fine"),
	"verdict.join":             text("joined"),

	// What a confirmation asks a human to do, after "asks you to".
	"ask.approve":    text("approve these terms"),
	"ask.reject":     text("reject the terms on the table"),
	"ask.cancel":     text("withdraw from the negotiation"),
	"ask.preapprove": text("accept any of these options"),
	// The same, as a question (a mail's subject and heading).
	"ask.question.approve":    text("Approve these terms?"),
	"ask.question.reject":     text("Reject the terms?"),
	"ask.question.cancel":     text("Withdraw?"),
	"ask.question.preapprove": text("Accept any of these options?"),
	// What follows from confirming, when it is more than the verdict says.
	"ask.after.reject":     text("Rejecting closes the room for good."),
	"ask.after.cancel":     text("The room closes for both sides and cannot be reopened."),
	"ask.after.preapprove": text("The other side picks one, and the room is agreed at once."),
	// The confirm button's word, after "Confirm: ".
	"ask.button.approve":    text("approve"),
	"ask.button.reject":     text("reject"),
	"ask.button.cancel":     text("withdraw"),
	"ask.button.preapprove": text("any option is fine"),
	"ask.heading":           text("Your agent asks you to %[1]s"), // ask.<verdict>
	"ask.confirm":           text("Confirm: %[1]s"),               // ask.button.<verdict>

	// Whose turn it is, for an agent's human; turn.you for a person's seat.
	"turn.nobody": text("nobody's turn"),
	"turn.yours":  text("your side's turn"),
	"turn.theirs": text("their turn"),
	"turn.you":    text("your turn"),

	// Where a room stands in the list of rooms.
	"rank.waiting_for_you":   text("waiting for you"),
	"rank.waiting_for_human": text("waiting for its human"),
	"rank.your_agent":        text("your agent's turn"),
	"rank.closed":            text("closed"),

	// What became of a confirmation the human answered.
	"result.applied":         text("Done: your answer was applied."),
	"result.applied_verdict": text("Done: you %[1]s."), // verdict.<verdict>
	"result.agreed":          text("The room is agreed."),
	"result.declined":        text("You declined. Your agent is told and the room is unchanged."),
	"result.void":            text("Your answer applied to nothing: %[1]s."),
	"result.waiting":         text("Still waiting for your answer."),

	// Why an invitation cannot be answered.
	"refusal.withdrawn": text("This invitation was withdrawn by the person who sent it."),
	"refusal.expired": plural.Selectf(1, "%d",
		"one", "This invitation has expired: nobody answered it within %[1]d hour.",
		"other", "This invitation has expired: nobody answered it within %[1]d hours."),
	"refusal.used":     text("This invitation has been answered already. If it was you, open the personal link you were given then."),
	"refusal.deadline": text("This invitation can no longer be answered: its deadline has passed."),
	"refusal.other":    text("This invitation can no longer be answered (%[1]s)."),

	// A card: the terms on the table, in the reader's labels.
	"card.option":     text("Option %[1]d of %[2]d"),
	"card.theirs":     text("their field"),
	"card.missing":    text("missing"),
	"card.new_schema": text("The other side uses a form you have not agreed under before: check each field."),
	"card.no_deal":    text("No deal is possible on %[1]s: your limits and theirs cannot both be met (neither side's numbers are shown)."),

	// How long until a moment, in a sentence ("The deadline is … (in about 3 hours)").
	"until.now": text("now"),
	"until.minutes": plural.Selectf(1, "%d",
		"one", "in about %[1]d minute",
		"other", "in about %[1]d minutes"),
	"until.hours": plural.Selectf(1, "%d",
		"one", "in about %[1]d hour",
		"other", "in about %[1]d hours"),
	"until.days": plural.Selectf(1, "%d",
		"one", "in about %[1]d day",
		"other", "in about %[1]d days"),

	// How long is left, in a countdown beside a deadline.
	"left.passed":  text("passed"),
	"left.minutes": text("%[1]d min left"),
	"left.hours":   text("%[1]d h %02[2]d min left"),
	"left.days": plural.Selectf(1, "%d",
		"one", "%[1]d day left",
		"other", "%[1]d days left"),

	// What a delivery in the log was about.
	"topic.request":  text("request to confirm"),
	"topic.reminder": text("reminder"),
	"topic.agreed":   text("agreed"),
	"topic.closed":   text("closed"),
	"topic.no_deal":  text("no deal possible"),
	"topic.test":     text("test"),
	"topic.invite":   text("invitation"),

	// A member's role in an account.
	"role.owner":  text("owner"),
	"role.admin":  text("admin"),
	"role.member": text("member"),

	// The mail inviting a person to join an account: who invites, the
	// account's name, the role (role.<role>), the link's expiry.
	"member_invite.subject": text("%[1]s invites you to join %[2]s on Taasky"),
	"member_invite.heading": text("Join %[1]s on Taasky"),
	"member_invite.intro": text("%[1]s invites you to join %[2]s as %[3]s. Members connect their AI agents to Taasky " +
		"and confirm what their agents agree."),
	"member_invite.action":  text("Accept the invitation"),
	"member_invite.expires": text("The link works once and expires %[1]s."),
	"member_invite.sign_in": text("Sign in with %[1]s to accept: the invitation is for that address."),
	"member_invite.why":     text("%[1]s gave your address to Taasky to invite you. Nothing more is sent unless you are invited again."),

	// A note on a room's timeline that is not a move.
	"note.member_left": text("%[1]s is no longer a member of the account: its owners answer this side's confirmations now."),

	// for_your_human: the room in plain text, for an agent to show its human.
	"human.title":          text("Negotiation: %[1]q (the inviter's words)."),
	"human.draft":          text("Waiting for the other side to accept the invitation."),
	"human.your_turn":      text("It is your side's turn."),
	"human.their_turn":     text("Waiting for the other side."),
	"human.agreed":         text("AGREED: both sides confirmed the terms below."),
	"human.closed":         text("Closed (%[1]s). Nothing was agreed."), // closed.<reason>
	"human.deadline":       text("Deadline: %[1]s."),
	"human.options.yours":  text("Options proposed by your side (one is to be chosen):"),
	"human.options.theirs": text("Options proposed by the other side (one is to be chosen):"),
	"human.terms.yours":    text("Terms proposed by your side:"),
	"human.terms.theirs":   text("Terms proposed by the other side:"),
	"human.option":         text("%[1]s:"), // card.option
	"human.their_field":    text("%[1]s (their field)"),
	"human.not_given":      text("not given"),
	"human.their_words":    text("%[1]s (their words)"),
	"human.outside":        text("OUTSIDE YOUR LIMITS; confirming accepts it anyway"),
	"human.no_deal_field":  text("no deal possible on this field"),
	"human.confirm":        text("Your confirmation is needed: %[1]s."), // ask.<verdict>
	"human.confirm_where":  text("You were sent a link; you can also answer on the dashboard."),

	// Values that are words, in a card: a yes/no field.
	"value.true":  text("yes"),
	"value.false": text("no"),

	// Where a delivery went, and what became of it (jobs' Channel, Status).
	"channel.email":   text("email"),
	"channel.push":    text("Web Push"),
	"status.queued":   text("queued"),
	"status.sent":     text("sent"),
	"status.retrying": text("retrying"),
	"status.failed":   text("failed"),
	"status.skipped":  text("skipped"),
	"status.gone":     text("gone"),

	// The regions of the time-zone picker (the IANA name's first part).
	"region.utc":        text("Universal"),
	"region.africa":     text("Africa"),
	"region.america":    text("Americas"),
	"region.antarctica": text("Antarctica"),
	"region.arctic":     text("Arctic"),
	"region.asia":       text("Asia"),
	"region.atlantic":   text("Atlantic Ocean"),
	"region.australia":  text("Australia"),
	"region.europe":     text("Europe"),
	"region.indian":     text("Indian Ocean"),
	"region.pacific":    text("Pacific Ocean"),

	// A time zone a browser told that does not exist.
	"zone.unknown": text("time_zone: %[1]q is not an IANA time zone name like Europe/Paris."),

	// Every page's frame.
	"layout.skip":       text("Skip to the content"),
	"layout.nav":        text("Main"),
	"layout.rooms":      text("Rooms"),
	"layout.waiting":    text("waiting for a human"),
	"layout.settings":   text("Settings"),
	"layout.sign_out":   text("Sign out"),
	"layout.zone_offer": text("Times are shown in UTC."),
	"layout.zone_use":   text("Show them in"), // followed by the browser's zone
	"layout.signed_in":  text("Signed in as %[1]s · times in %[2]s"),
	"layout.tagline":    text("Taasky: your agent negotiates, you agree."),
	"layout.copy":       text("Copy"),
	"layout.copied":     text("Copied"),

	// The signed-out home page.
	"welcome.heading": text("Your agent negotiates. You agree."),
	"welcome.lead": text("Taasky is where two people's AI agents work out terms — a meeting time, a place, a fee — " +
		"and only their humans can say yes. Every acceptance is yours to confirm, on a card that shows exactly what you agree to."),
	"welcome.sign_in":    text("Sign in"),
	"welcome.invited":    text("Invited by someone? Open the invitation link you were sent: no account is needed to answer it."),
	"signed_out.heading": text("You are signed out"),
	"signed_out.text":    text("Your session in this browser has ended."),
	"signed_out.again":   text("Sign in again"),

	// The error page.
	"error.title":    text("Something is wrong"),
	"error.back":     text("Back to Taasky"),
	"error.too_many": text("Too many requests"),
	"error.try_again": plural.Selectf(1, "%d",
		"one", "Too many requests came from your network. Try again in %[1]d second.",
		"other", "Too many requests came from your network. Try again in %[1]d seconds."),
	"error.sign_in_late":        text("This sign-in took too long or was started in another browser. Start again from the sign-in page."),
	"error.sign_in_refused":     text("The identity provider refused the sign-in (%[1]s)."),        // its error code
	"error.sign_in_refused_why": text("The identity provider refused the sign-in (%[1]s): %[2]s."), // its error code and description
	"error.sign_in_state":       text("state: this answer is not for the sign-in this browser started. Start again."),
	"error.sign_in_unverified":  text("The sign-in could not be verified. Start again."),
	"error.sign_in_unavailable": text("Sign-in is unavailable right now: the identity provider did not answer. Try again in a minute."),
	"error.no_oauth":            text("This Taasky does not offer OAuth: connect your agent with a key from Settings."),
	"error.no_room":             text("room not found"),
	"error.unsubscribe_invalid": text("This unsubscribe link is not valid."),
	"error.unsubscribe_sign_in": text("This unsubscribe link is not valid. Sign in and open Settings to choose what Taasky emails you."),
	"error.form_expired":        text("This form has expired or did not come from this page. Go back, reload the page and try again."),

	// A card on a page.
	"card.label":          text("Terms on the table"),
	"card.new_schema_tag": text("New schema."),
	"card.options": plural.Selectf(1, "%d",
		"one", "%[1]d option:",
		"other", "%[1]d options to choose from:"),
	"card.outside":        text("Outside your limits: approving means accepting it anyway."),
	"card.not_said":       text("their terms do not say"),
	"card.hash_summary":   text("Fingerprint of these terms"),
	"card.hash_explained": text("Agents name these exact terms by this subject_hash:"),
	"card.pick":           text("Pick this one"),
	"card.pick_option":    text("Pick %[1]s"), // card.option
	"card.approve":        text("Approve"),

	// A room's timeline.
	"timeline.heading": text("Timeline"),
	"timeline.yours":   text("Your side"),
	"timeline.theirs":  text("Their side"),
	"timeline.round":   text("round %[1]d"),
	"timeline.about":   text("about:"), // followed by field names
	"timeline.empty":   text("Nothing tabled yet."),

	// What a person can answer, on any page.
	"answer.decline":       text("Decline"),
	"answer.propose_else":  text("Propose something else"),
	"answer.send_proposal": text("Send my proposal"),

	// The form generated from a schema.
	"form.optional": text("(optional)"),
	"form.from":     text("From"),
	"form.to":       text("To"),
	"form.zone":     text("Time zone"),
	"form.none":     text("(none)"),
	"form.choose":   text("Choose…"),
	"form.amount":   text("Amount"),
	"form.currency": text("Currency"),
	"form.repeated": text("Several values: fill as many rows as you need; empty rows are left out."),

	// The list of rooms.
	"rooms.heading":        text("Your rooms"),
	"rooms.filter":         text("Filter rooms"),
	"rooms.filter_all":     text("All"),
	"rooms.filter_waiting": text("Waiting for a human"),
	"rooms.filter_live":    text("In progress"),
	"rooms.filter_agreed":  text("Agreed"),
	"rooms.filter_closed":  text("Closed"),
	"rooms.untitled":       text("Room %[1]s"),
	"rooms.start_heading":  text("Start with an account"),
	"rooms.start_text": text("You belong to no account yet. Create one for yourself or your team, then connect an agent; " +
		"or open the link of an invitation you were sent."),
	"rooms.create_account": text("Create an account"),
	"rooms.none_here":      text("No rooms here."),
	"rooms.none_yet":       text("No rooms yet. When your agent opens or joins a negotiation, it shows up here."),
	"rooms.first_page":     text("First page"),
	"rooms.next_page":      text("Next page"),

	// A room's page, for an account's member.
	"room.side_with":          text("%[1]s (side %[2]s) with %[3]s"),
	"room.side_waiting":       text("%[1]s (side %[2]s), waiting for the invitation to be answered"),
	"room.round":              text("round %[1]s"), // the round's number, marked up
	"room.deadline":           text("deadline"),
	"room.answered_by_you":    text("Answered by you"),
	"room.answered_by_owners": text("Answered by the account's owners"),
	"room.answered_by":        text("Answered by %[1]s"),
	"room.agreed":             text("Agreed: both humans approved the same terms."),
	"room.answer_marked":      text("You answer for the terms marked below."),
	"room.owners_answer":      text("This side's human left the account: its owners answer it; you can follow along."),
	"room.theirs_to_answer":   text("This is %[1]s's to answer (their agent asked them); you can follow along."),
	"room.tabled_by_you":      text("Tabled by your side."),
	"room.tabled_by":          text("Tabled by %[1]s, shown in your words."),
	"room.no_terms":           text("No terms on the table."),
	"room.limits":             text("Your limits"),
	"room.limits_private":     text("(only you see these)"),

	// The page of a one-tap link.
	"onetap.title":          text("Confirm: %[1]s"), // the room's title
	"onetap.title_untitled": text("Confirm: a negotiation"),
	"onetap.with":           text("With %[1]s"),
	"onetap.with_person":    text("With a person without an account, invited by email or link"),
	"onetap.deadline":       text("Deadline:"),
	"onetap.nothing_yet":    text("Opening this page changed nothing; only these buttons answer."),
	"onetap.not_waiting":    text("This confirmation is no longer waiting for you."),
	"onetap.used":           text("This link was used on %[1]s. Each link works once."),
	"onetap.room_state":     text("Room state: %[1]s."),
	"onetap.open":           text("Open Taasky"),

	// The invitation page, for a person without an account.
	"invite.title":          text("Invitation from %[1]s"),
	"invite.heading":        text("%[1]s invites you to agree"),
	"invite.heading_titled": text("%[1]s invites you to agree: %[2]s"), // the title, their words
	"invite.title_theirs":   text("The title is %[1]s's words."),
	"invite.answer_by":      text("Answer by"),
	"invite.your_tap":       text("Your tap is your answer: nobody answers for you."),
	"invite.pick_heading":   text("Pick the one that suits you"),
	"invite.their_proposal": text("Their proposal"),
	"invite.preapproved":    text("%[1]s already accepted any of these: your pick settles it."),
	"invite.decline":        text("Decline the invitation"),
	"invite.no_terms":       text("%[1]s has not proposed terms yet. Join now and come back when they have."),
	"invite.join":           text("Join"),

	// A person's own page in a negotiation (their seat).
	"seat.title":         text("Your answer to %[1]s"),
	"seat.answer_in":     text("Your answer is in."),
	"seat.keep_link":     text("Keep your personal link to come back to this negotiation:"),
	"seat.with":          text("With %[1]s"),
	"seat.agreed":        text("Agreed: you both approved the same terms."),
	"seat.your_proposal": text("Your proposal"),
	"seat.no_terms":      text("No terms on the table yet."),
	"seat.reject":        text("Reject and close"),
	"seat.waiting":       text("Waiting for %[1]s. This page updates by itself."),
	"seat.leave":         text("Leave this negotiation"),
	"seat.leave_button":  text("Leave and close"),
	"seat.link":          text("Your personal link:"),

	// The delivery log.
	"log.heading":       text("Delivery log"),
	"log.intro":         text("Every notification Taasky sent you or tried to, and the invitations your agents asked it to email, newest first. A failed attempt is retried with a growing delay."),
	"log.pages":         text("Pages"),
	"log.newest":        text("Newest"),
	"log.older":         text("Older"),
	"log.nothing_older": text("Nothing older."),
	"log.nothing_yet":   text("Nothing was sent to you yet."),
	"log.not_set_up":    text("Notifications are not set up on this server."),
	"log.when":          text("When"),
	"log.what":          text("What"),
	"log.channel":       text("Channel"),
	"log.to":            text("To"),
	"log.status":        text("Status"),
	"log.attempts":      text("Attempts"),
	"log.error":         text("Error"),

	// The page that stops email notices.
	"unsubscribe.heading":      text("Stop email notices?"),
	"unsubscribe.what":         text("Taasky will stop emailing you reminders, agreements, closed rooms and \"no deal possible\" notices."),
	"unsubscribe.done_heading": text("Email notices are off"),
	"unsubscribe.done":         text("Taasky will no longer email %[1]s reminders, agreements, closed rooms or \"no deal possible\" notices."),
	"unsubscribe.requests_stay": text("Requests to confirm a move still come: your agent cannot move without you, " +
		"so those are never unsubscribed by a link."),
	"unsubscribe.settings": text("You can choose everything in %[1]s."), // a link to Settings
	"unsubscribe.button":   text("Stop email notices"),

	// The page that refuses further invitations to an address.
	"refuse.heading":      text("Refuse invitations to %[1]s?"),
	"refuse.what":         text("Taasky will not email this address another invitation to negotiate, whoever asks. Invitations you already have keep working."),
	"refuse.button":       text("Refuse further invitations"),
	"refuse.done_heading": text("No more invitations"),
	"refuse.done":         text("Taasky will not email %[1]s another invitation."),
	"refuse.invalid":      text("This link is not valid: open the one in the invitation mail."),

	// The settings page.
	"settings.done.revoked":        text("The key was revoked: it no longer works."),
	"settings.done.zone":           text("Your time zone was saved."),
	"settings.done.language":       text("Your language was saved."),
	"settings.done.notify":         text("Your notification choices were saved."),
	"settings.done.push_on":        text("This browser will get your notifications."),
	"settings.done.push_off":       text("The device was removed: it gets no more notifications."),
	"settings.done.push_test":      text("A test notification is on its way to your devices: the delivery log below says how it went."),
	"settings.done.disconnected":   text("The agent was disconnected: its tokens no longer work."),
	"settings.done.push_nothing":   text("There is no device to send a test to: turn notifications on in this browser first."),
	"settings.key_ready":           text("%[1]s is ready"),
	"settings.key_give":            text("Give your agent this MCP URL and key."),
	"settings.key_once":            text("The key is shown this once: copy it now."),
	"settings.mcp_url":             text("MCP URL"),
	"settings.key":                 text("Key"),
	"settings.key_header":          text("The agent sends it as the header %[1]s."),
	"settings.account_you_are":     text("(%[1]s, you are %[2]s)"), // role.<role>
	"settings.account_mcp":         text("MCP URL for this account's agents: %[1]s"),
	"settings.members":             text("Members"),
	"settings.members_invitations": text("Members and invitations"),
	"settings.account_settings":    text("Account settings and audit log"),
	"settings.agent_owner":         text("owned by %[1]s"),
	"settings.agent_orphan":        text("its human left the account: its keys are revoked"),
	"settings.oauth_connected":     text("Connected with OAuth by %[1]s"),
	"settings.oauth_disconnected":  text("Disconnected %[1]s by %[2]s"),
	"settings.last_used":           text("last used %[1]s"),
	"settings.never_used":          text("never used"),
	"settings.disconnect":          text("Disconnect"),
	"settings.disconnect_agent":    text("Disconnect %[1]s"),
	"settings.revoked":             text("revoked"),
	"settings.since":               text("since %[1]s"),
	"settings.revoke":              text("Revoke"),
	"settings.revoke_key":          text("Revoke key %[1]s"),
	"settings.another_key":         text("Issue another key"),
	"settings.no_agents":           text("No agents yet."),
	"settings.agent_name":          text("New agent's name"),
	"settings.agent_name_example":  text("e.g. My calendar assistant"),
	"settings.create_agent":        text("Create agent"),
	"settings.no_account":          text("You are not a member of any account yet. %[1]s, or open the link of an invitation you were sent."),
	"settings.zone_heading":        text("Time zone"),
	"settings.zone_label":          text("Cards, deadlines and messages are shown in"),
	"settings.zone_search":         text("Search time zones"),
	"settings.zone_browser":        text("Your browser says"),
	"settings.zone_use":            text("Use it"),
	"settings.save":                text("Save"),
	"settings.language_heading":    text("Language"),
	"settings.language_label":      text("Taasky speaks to you in"),
	"settings.language_auto":       text("Your browser's language"),
	"settings.notify_heading":      text("Notifications"),
	"settings.notify_intro":        text("When your agent needs you to confirm a move, Taasky tells you at once; notices tell you how your negotiations end."),
	"settings.by_email":            text("By email to %[1]s"),
	"settings.email_requests":      text("Requests to confirm a move (with a one-tap link)"),
	"settings.email_notices":       text("Notices: reminders before a deadline, agreed (with a calendar entry), closed, no deal possible"),
	"settings.push_legend":         text("On your devices (Web Push)"),
	"settings.push_requests":       text("Requests to confirm a move"),
	"settings.push_notices":        text("Notices"),
	"settings.push_no_device":      text("Web Push choices appear here once a browser is notified (below)."),
	"settings.requests_wait":       text("If you turn requests off everywhere, they still wait for you on your rooms' page: your agent cannot move without you."),
	"settings.push_heading":        text("Web Push"),
	"settings.push_needs_js":       text("Turning notifications on in a browser needs JavaScript: this page does it with a button once its script runs."),
	"settings.push_on":             text("Notify me in this browser"),
	"settings.push_off":            text("Stop notifying this browser"),
	"settings.a_browser":           text("A browser"),
	"settings.this_browser":        text("this browser"),
	"settings.last_notified":       text("last notified %[1]s"),
	"settings.send_test":           text("Send a test"),
	"settings.remove":              text("Remove"),
	"settings.send_test_all":       text("Send a test to every device"),
	"settings.no_device":           text("No device gets your notifications yet."),
	"settings.server_key":          text("Server key"),
	"settings.server_key_text":     text("Browsers subscribe with this VAPID public key:"),
	"settings.push_not_configured": text("Web Push is not configured on this server (it needs %[1]s and %[2]s): notifications come by email only."),
	"push_js.unsupported":          text("This browser cannot get Web Push notifications here."),
	"push_js.needs_https":          text("This browser cannot get Web Push notifications here (it needs https)."),
	"push_js.on":                   text("This browser gets your notifications."),
	"push_js.off":                  text("This browser does not get your notifications."),
	"push_js.blocked":              text("Notifications are blocked for this site in this browser: allow them in its site settings, then come back."),
	"push_js.failed":               text("That did not work:"),
	"settings.whole_log":           text("The whole log"),
	"settings.notify_not_set_up":   text("Notifications are not set up on this server: confirmation requests wait for you on your rooms' page."),

	// An account's pages for its people: its first steps, sign-up, joining
	// with an invitation's link, its members, its settings, its webhooks.
	"team.actions":           text("Actions"), // a table's column of buttons, for screen readers
	"team.send_again":        text("Send again"),
	"team.agents":            text("Agents"),
	"team.webhooks":          text("Webhooks"),
	"start.title":            text("First steps in %[1]s"),
	"start.ready":            text("%[1]s is ready"),
	"start.you_are":          text("you are %[1]s"), // role.<role>
	"start.agent_heading":    text("1. Connect an agent"),
	"start.agent_url":        text("Your AI assistant negotiates for this account over MCP, at this URL:"),
	"start.agent_key":        text("It needs a key: %[1]s, which shows its key once."), // start.agent_create, a link
	"start.agent_create":     text("create an agent in Settings"),
	"start.team_heading":     text("2. Bring your team"),
	"start.invite":           text("Invite people"),
	"start.invite_text":      text("by email: each connects their own agent, and confirms its moves."), // after start.invite
	"start.team_see":         text("The account's owners and admins invite people; %[1]s."),            // start.see_who, a link
	"start.see_who":          text("see who is here"),
	"start.rooms_heading":    text("3. Follow your negotiations"),
	"start.rooms_text":       text("When your agent opens or joins a negotiation, it shows up in %[1]s; you confirm every acceptance there, or from the mail or push you get."), // start.your_rooms, a link
	"start.your_rooms":       text("your rooms"),
	"signup.unverified":      text("Your identity provider has not verified your email address %[1]s: only a verified address may own an account. Verify it with your provider, then sign in again."),
	"signup.intro":           text("An account is your team's place on Taasky: its agents negotiate for it, and its people confirm what they agree. You will be its owner; you can invite others once it exists."),
	"signup.name":            text("Name"),
	"signup.name_hint":       text("(1–80 characters, shown to the other side of your negotiations)"),
	"signup.name_example":    text("e.g. Alpha Studio"),
	"signup.slug":            text("Address"),
	"signup.slug_hint":       text("(3–40 of a–z, 0–9 and '-'; your agents' URL ends with it; left empty, it is made from the name)"),
	"signup.create":          text("Create the account"),
	"signup.invited":         text("Were you invited to an account? Open the link in the invitation mail instead."),
	"join.title":             text("Join %[1]s"),
	"join.invites":           text("%[1]s invites you to join %[2]s as %[3]s."), // who, the account, role.<role>
	"join.operator":          text("An operator of Taasky"),
	"join.as":                text("Join %[1]s as %[2]s"), // the account, the person's email
	"join.sign_in_first":     text("Sign in with the address the invitation was sent to, then join."),
	"join.sign_in":           text("Sign in to join"),
	"join.once":              text("The link works once and expires %[1]s."),
	"join.expired":           text("This link expired %[1]s: ask the account's owners to send it again."),
	"join.accepted":          text("This link was already used to join %[1]s."),
	"join.revoked":           text("This invitation was revoked by the account."),
	"members.title":          text("Members of %[1]s"),
	"members.email":          text("Email"),
	"members.role":           text("Role"),
	"members.you":            text("(you)"),
	"members.role_of":        text("Role of %[1]s"),
	"members.change":         text("Change"),
	"members.remove":         text("Remove %[1]s"),
	"members.leave":          text("Leave the account"),
	"members.removal":        text("Removing a member (or leaving) revokes their agents' keys and signs them out everywhere at once. Their open rooms stay open; the account's owners answer those rooms' confirmations."),
	"members.invite":         text("Invite someone"),
	"members.address":        text("Email address"),
	"members.send":           text("Send the invitation"),
	"members.link_rule":      text("The link in the mail works once, for 7 days, for the invited address only (signed in, verified)."),
	"members.waiting":        text("Invitations waiting"),
	"members.expired":        text("expired %[1]s"),
	"members.sent":           text("sent %[1]s, expires %[2]s"),
	"members.by":             text("by %[1]s"),
	"members.done.invited":   text("The invitation is on its way."),
	"members.done.resent":    text("The invitation was sent again, with a new link (the old one no longer works)."),
	"members.done.revoked":   text("The invitation was revoked: its link no longer works."),
	"members.done.role":      text("The role was changed."),
	"members.done.removed":   text("The member was removed: their agents' keys and their sessions no longer work, and their open rooms' confirmations go to the account's owners."),
	"account.title":          text("Settings of %[1]s"),
	"account.name_heading":   text("Name"),
	"account.name_label":     text("The account's name (1–80 characters; its address, %[1]s, stays)"),
	"account.rename":         text("Rename"),
	"account.export_heading": text("Export"),
	"account.export_text":    text("A JSON file of the account's rooms as its side sees them (schemas, rounds, terms, your own limits, never the other side's) and of this audit log."),
	"account.export":         text("Download the export"),
	"account.audit_heading":  text("Audit log"),
	"account.audit_intro":    text("What happened in the account, newest first: who did it and when. It never holds limits or keys."),
	"account.audit_when":     text("When"),
	"account.audit_who":      text("Who"),
	"account.audit_what":     text("What"),
	"account.audit_details":  text("Details"),
	"account.audit_older":    text("Older entries"),
	"account.done.renamed":   text("The account was renamed."),
	// What an entry of the audit log records (app.AuditAction).
	"audit.account.created":        text("account created"),
	"audit.member.invited":         text("member invited"),
	"audit.invitation.resent":      text("invitation sent again"),
	"audit.invitation.revoked":     text("invitation revoked"),
	"audit.member.joined":          text("member joined"),
	"audit.member.added":           text("member added by an operator"),
	"audit.member.role_changed":    text("role changed"),
	"audit.member.removed":         text("member removed"),
	"audit.member.left":            text("member left"),
	"audit.agent.created":          text("agent created"),
	"audit.agent.key_issued":       text("agent key issued"),
	"audit.agent.key_revoked":      text("agent key revoked"),
	"audit.confirmation.answered":  text("confirmation answered"),
	"audit.account.renamed":        text("account renamed"),
	"audit.account.exported":       text("account exported"),
	"audit.webhook.created":        text("webhook added"),
	"audit.webhook.secret_rotated": text("webhook secret rotated"),
	"audit.webhook.enabled":        text("webhook turned on"),
	"audit.webhook.deleted":        text("webhook deleted"),
	"audit.webhook.disabled":       text("webhook turned off by Taasky after days of failures"),
	"webhooks.title":               text("Webhooks of %[1]s"),
	"webhooks.secret_new":          text("The new signing secret"),
	"webhooks.secret_of":           text("The signing secret of %[1]s"),
	"webhooks.secret_once":         text("Copy it now: Taasky shows it this once."),
	"webhooks.secret_both":         text("The previous secret keeps signing beside it for 24 hours (every webhook carries both signatures), so switch your receiver within a day."),
	"webhooks.intro":               text("Taasky posts each event your side of a room sees to the endpoints below, signed as the %[1]s specification says (webhook-id, webhook-timestamp, webhook-signature). A payload holds the room as your side sees it, never the other side's limits. Failed deliveries are retried for about a day; an endpoint that fails for three days is turned off and the owners are emailed."), // a link to Standard Webhooks
	"webhooks.endpoint":            text("Endpoint"),
	"webhooks.events":              text("Events"),
	"webhooks.state":               text("State"),
	"webhooks.added":               text("added %[1]s"),
	"webhooks.rotated":             text("secret rotated %[1]s"),
	"webhooks.previous_until":      text("(the previous one signs until %[1]s)"),
	"webhooks.off_since":           text("off since %[1]s"),
	"webhooks.failing_since":       text("failing since %[1]s"),
	"webhooks.on":                  text("on"),
	"webhooks.turn_on":             text("Turn on"),
	"webhooks.rotate":              text("Rotate the secret"),
	"webhooks.delete":              text("Delete"),
	"webhooks.none":                text("No endpoint yet."),
	"webhooks.add_heading":         text("Add an endpoint"),
	"webhooks.url":                 text("URL (https, on a public address)"),
	"webhooks.add":                 text("Add the endpoint"),
	"webhooks.done.deleted":        text("The endpoint was deleted."),
	"webhooks.done.enabled":        text("The endpoint is on again."),
	"webhook_log.title":            text("Webhook deliveries to %[1]s"),
	"webhook_log.heading":          text("Deliveries to %[1]s"),
	"webhook_log.all":              text("All webhooks"),
	"webhook_log.intro":            text("The latest 50 events sent to this endpoint, newest first, with every attempt. \"Send again\" sends the same payload with the same webhook-id (a receiver that has it already can tell), signed with the secrets valid now."),
	"webhook_log.event":            text("Event"),
	"webhook_log.status":           text("Status"),
	"webhook_log.attempts":         text("Attempts"),
	"webhook_log.room":             text("room %[1]d"),
	"webhook_log.no_answer":        text("no answer"),
	"webhook_log.none":             text("Nothing sent yet."),
	"webhook_log.sent_again":       text("Sent again with the same webhook-id; its attempt shows below once made."),
	"webhook_log.state.queued":     text("queued"),
	"webhook_log.state.sent":       text("sent"),
	"webhook_log.state.retrying":   text("retrying"),
	"webhook_log.state.failed":     text("failed"),

	// The OAuth consent page: an assistant asks to become the person's agent.
	"consent.title":       text("Connect %[1]s"),
	"consent.heading":     text("Connect %[1]s to Taasky?"),
	"consent.asks":        text("%[1]s asks to negotiate for you."),
	"consent.asks_in":     text("%[1]s asks to negotiate for you in the account %[2]s."),
	"consent.agent":       text("It will be your agent: it may open, join and answer negotiations, and ask you to confirm."),
	"consent.still_yours": text("Every approval, rejection and withdrawal still needs your confirmation, here or from a notification."),
	"consent.client":      text("Client"),
	"consent.answer_to":   text("Its answer goes to"),
	"consent.new_client":  text("This client is new to Taasky: nobody has connected it before. Connect it only if you just added Taasky to your assistant yourself."),
	"consent.host_differs": text("Its answer goes to %[1]s, not to %[2]s, where the client says it is from. " +
		"That is usual for an app on your computer; otherwise, decline."),
	"consent.account":          text("For the account"),
	"consent.connect":          text("Connect %[1]s"),
	"consent.decline":          text("Decline"),
	"consent.disconnect_later": text("You can disconnect it at any time in Settings → Agents: it stops working at once."),

	// Emails (subject, heading, intro, why the recipient gets it) and
	// their parts; "in" names the room inside a sentence.
	"mail.subject":               text("%[1]s — %[2]s"), // what, about what
	"mail.about_with":            text("negotiation with %[1]s"),
	"mail.about_yours":           text("your negotiation"),
	"mail.in_with":               text(" in “%[1]s” with %[2]s"),
	"mail.in":                    text(" in “%[1]s”"),
	"mail.with":                  text(" with %[1]s"),
	"mail.your_agent":            text("Your agent"),
	"mail.your_agent_named":      text("Your agent, %[1]s,"),
	"mail.review":                text("Review and answer"),
	"mail.open_room":             text("Open the room"),
	"mail.the_room":              text("The room:"),
	"mail.calendar":              text("The agreed time is attached as a calendar entry (invite.ics)."),
	"mail.stop":                  text("Stop these notices"),
	"mail.settings":              text("Notification settings"),
	"mail.request.intro":         text("%[1]s asks you to %[2]s%[3]s."), // agent, ask.<verdict>, in
	"mail.request.why":           text("Your agent cannot make this move without you. The link shows the terms first; nothing happens until you press a button."),
	"mail.reminder.subject":      text("Reminder: your answer is waiting"),
	"mail.reminder.heading":      text("Your answer is still waiting"),
	"mail.reminder.intro":        text("%[1]s asked you to %[2]s%[3]s."),
	"mail.reminder.deadline":     text("The deadline is %[1]s (%[2]s); if nobody agrees by then, the room closes."), // until.*
	"mail.reminder.why":          text("A reminder before the deadline of a confirmation you have not answered yet."),
	"mail.agreed.heading":        text("Agreed"),
	"mail.agreed.intro":          text("Agreed%[1]s: both of you approved these terms."),
	"mail.agreed.why":            text("A notice: a negotiation of yours is agreed."),
	"mail.closed.heading":        text("Closed"),
	"mail.closed.intro":          text("The negotiation%[1]s is closed: %[2]s."), // in, closed.<reason>
	"mail.closed.why":            text("A notice: a negotiation of yours ended without an agreement."),
	"mail.no_deal.subject":       text("No deal possible on %[1]s"),
	"mail.no_deal.heading":       text("No deal possible"),
	"mail.no_deal.intro":         text("No deal is possible%[1]s on %[2]s: your limits and theirs cannot overlap. Neither side's numbers were shared with the other."),
	"mail.no_deal.why":           text("A notice: Taasky compares both sides' limits once, when the other side joins."),
	"mail.invite.someone":        text("Someone"),
	"mail.invite.subject":        text("%[1]s invites you to negotiate"),
	"mail.invite.subject_titled": text("%[1]s invites you to negotiate “%[2]s”"),
	"mail.invite.heading":        text("%[1]s invites you"),
	"mail.invite.intro": text("%[1]s's agent would like to agree on terms with you. Open the invitation to see what they propose: " +
		"you can answer in the browser (pick, approve, counter or decline), or give the link to an agent of your own."),
	"mail.invite.intro_titled": text("%[1]s's agent would like to agree on “%[2]s” with you. Open the invitation to see what they propose: " +
		"you can answer in the browser (pick, approve, counter or decline), or give the link to an agent of your own."),
	"mail.invite.action":  text("See the invitation"),
	"mail.invite.expires": text("The invitation expires %[1]s if nobody answers it."),
	"mail.invite.zone":    text("Times here are in UTC; the invitation shows them in your own time zone."),
	"mail.invite.refuse":  text("Refuse every further invitation to this address"),
	"mail.invite.why":     text("%[1]s gave your address to Taasky when opening this negotiation. Nothing more is sent to you unless you answer."),
	"mail.test.subject":   text("Taasky test notification"),
	"mail.test.heading":   text("It works"),
	"mail.test.intro":     text("This device will show Taasky's requests for your confirmation."),

	// Push notifications: the title, and a count of options in the body.
	"push.request":  text("%[1]s asks you to %[2]s"), // agent, ask.<verdict>
	"push.reminder": text("Still waiting: %[1]s"),
	"push.options": plural.Selectf(1, "%d",
		"one", "%[1]d option",
		"other", "%[1]d options"),

	// A calendar entry's description (.ics): the exact agreed moments.
	"ics.agreed":      text("Agreed on Taasky."),
	"ics.agreed_with": text("Agreed on Taasky with %[1]s."),
	"ics.range":       text("%[1]s: %[2]s to %[3]s"),

	// Webhooks
	// The mail to an account's owners when Taasky disabled one of its
	// webhook endpoints: the account's name, the endpoint's URL, the last
	// failure.
	"webhook.disabled.subject": text("A webhook of %[1]s was turned off"),
	"webhook.disabled.heading": text("A webhook was turned off"),
	"webhook.disabled.intro": text("Taasky could not deliver to %[1]s for three days, so it stopped sending %[2]s's " +
		"webhooks there. Events since then are in the delivery log; none is sent until the endpoint is turned back on."),
	"webhook.disabled.last":   text("The last attempt: %[1]s."),
	"webhook.disabled.action": text("Open the webhooks"),
	"webhook.disabled.why":    text("You own %[1]s on Taasky; its owners are told when a webhook stops."),

	// Account deletion
	// Who sits across a room whose other side's account was deleted.
	"party.deleted_account": text("a deleted account"),
	// Who sits across a room whose other side is a person without an account
	// (after "with" and "by" on the room page).
	"party.person": text("a person answering in the browser"),
	// The settings page's section (owners only), and the page after it.
	"account_delete.heading":       text("Delete the account"),
	"account_delete.intro":         text("Deleting the account cannot be undone. At once:"),
	"account_delete.rooms":         text("every open negotiation closes, and the other side is told that this account was deleted;"),
	"account_delete.access":        text("every agent key, connected assistant and member session stops working;"),
	"account_delete.erased":        text("the account's side of every room (its agents, its limits, its notes), its members, invitations, audit log and delivery log are erased, and so is every member who belongs to no other account, with their settings and devices;"),
	"account_delete.kept":          text("the other side keeps its copy of every room, agreed ones included, and sees this side as \"a deleted account\"."),
	"account_delete.export_first":  text("To keep a copy, download the export above first."),
	"account_delete.confirm_label": text("Type the account's slug, %[1]s, to confirm"),
	"account_delete.button":        text("Delete the account"),
	"account_delete.done_title":    text("The account was deleted"),
	"account_delete.done_rooms":    text("Its open negotiations were closed and the other sides were told. Its keys and sessions no longer work."),
	"account_delete.done_back":     text("Back to your rooms"),
	"account_delete.done_erased":   text("You belonged to no other account, so what Taasky kept about you was erased too."),
	"account_delete.done_signup":   text("Start a new account"),
	// A delivery log's line for the mail inviting someone to an account.
	"topic.member_invite": text("invitation to join the account"),
	// A confirmation request that came to an owner because the member who
	// answered for that side left the account (or was removed).
	"request.handed_over": text("The member who answered for this agent is no longer in the account: as its owner, you answer for it now."),

	// Failover
	// A page asked for while the database switches to its standby (503).
	"failover.retry": text("Taasky is switching to its standby database. Try again in a few seconds: what went through is kept, and nothing is done twice."),
	// Receipts: an agreed room's signed receipt, on the room page, its
	// printable page and the public /verify page.
	"receipt.heading":            text("Receipt of the agreement"),
	"receipt.intro":              text("Taasky signed a receipt of this agreement: who agreed to which terms, and how each side confirmed. Anyone can check it."),
	"receipt.download":           text("Download the receipt (.jws file)"),
	"receipt.print":              text("Printable receipt"),
	"receipt.verify_at":          text("Check a receipt at %[1]s"),
	"receipt.room":               text("Room %[1]d: %[2]s (the inviter's words)"),
	"receipt.room_untitled":      text("Room %[1]d"),
	"receipt.agreed_at":          text("Agreed %[1]s."),
	"receipt.side_a":             text("The side that opened the room"),
	"receipt.side_b":             text("The side that joined"),
	"receipt.account":            text("Account: %[1]s"),
	"receipt.no_account":         text("A person who answered the invitation without an account"),
	"receipt.confirmed_by":       text("Confirmed by %[1]s %[2]s, %[3]s."), // name, receipt.channel.*, moment
	"receipt.confirmed":          text("Confirmed %[1]s, %[2]s."),          // receipt.channel.*, moment
	"receipt.preapproved":        text("This side confirmed beforehand that any of the options offered was fine."),
	"receipt.channel.dashboard":  text("on the Taasky dashboard"),
	"receipt.channel.email":      text("with a one-tap link from an email"),
	"receipt.channel.push":       text("with a one-tap link from a push notification"),
	"receipt.channel.invitation": text("on the invitation page"),
	"receipt.terms":              text("Agreed terms"),
	"receipt.subject_hash":       text("Fingerprint of the terms (subject_hash): %[1]s"),
	"receipt.log":                text("The room's log: %[1]d events chained to the head hash %[2]s"),
	"receipt.issued":             text("Issued %[1]s by %[2]s with the key %[3]s."),
	"verify.heading":             text("Verify a Taasky receipt"),
	"verify.intro":               text("Paste a receipt (the text of a .jws file) or upload the file. Nothing you send is kept."),
	"verify.paste":               text("Receipt"),
	"verify.upload":              text("Or upload the file"),
	"verify.submit":              text("Verify"),
	"verify.empty":               text("Paste a receipt or choose its file."),
	"verify.valid":               text("Valid: %[1]s signed this receipt and nothing in it was changed since."),
	"verify.invalid":             text("Not valid: %[1]s"),
	"verify.problem.malformed":   text("this is not a Taasky receipt (%[1]s)."),
	"verify.problem.foreign":     text("another service issued it (%[1]s)."),
	"verify.problem.unknown_key": text("it was signed with a key this service does not publish (%[1]s)."),
	"verify.problem.tampered":    text("it was changed after it was signed."),
	"receipt.attached":           text("The signed receipt of this agreement is attached (%[1]s): anyone can check it at %[2]s."),
	"verify.offline":             text("To check it without this page: taasky receipt verify FILE --jwks %[1]s"),
}

func text(s string) catalog.Message { return catalog.String(s) }
