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

	// Account deletion
	// Who sits across a room whose other side's account was deleted.
	"party.deleted_account": text("a deleted account"),
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
