package locale

import (
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/message/catalog"
)

// frenchText is the catalog's French text: the keys of english.go, in its order
// (a new English key goes in the same place here), translated for meaning.
// The comments are english.go's.
var frenchText = map[Key]catalog.Message{
	// What a room's state is called, in a list or a status line.
	"state.draft":    text("invitation envoyée"),
	"state.awaiting": text("en négociation"),
	"state.agreed":   text("conclu"),
	"state.closed":   text("fermé (%[1]s)"), // the close reason in words

	// Why a room closed, as the end of "… is closed: ".
	"closed.rejected":  text("les conditions ont été rejetées"),
	"closed.cancelled": text("une des parties s'est retirée"),
	"closed.withdrawn": text("l'invitation a été retirée"),
	"closed.expired": plural.Selectf(1, "%d",
		"one", "personne n'a répondu à l'invitation dans un délai de %[1]d heure",
		"other", "personne n'a répondu à l'invitation dans un délai de %[1]d heures"),
	"closed.lapsed":          text("l'échéance est passée sans accord"),
	"closed.account_deleted": text("le compte de l'autre partie a été supprimé"),

	// A value outside the reader's limits, by bound, never by number.
	"bound.min":     text("en dessous de votre minimum"),
	"bound.max":     text("au-dessus de votre maximum"),
	"bound.one_of":  text("aucune des valeurs que vous acceptez"),
	"bound.equals":  text("pas la valeur que vous exigez"),
	"bound.outside": text("hors de vos limites : %[1]s"), // the bounds in words, joined

	// What a side did, after "Your side" or "Their side".
	"verdict.offer":            text("a proposé des conditions"),
	"verdict.counter":          text("a fait une contre-proposition"),
	"verdict.need_more_detail": text("a demandé plus de détails"),
	"verdict.approve":          text("a approuvé"),
	"verdict.reject":           text("a rejeté les conditions"),
	"verdict.cancel":           text("s'est retiré"),
	"verdict.preapprove":       text("a confirmé que toute option convient"),
	"verdict.join":             text("a rejoint"),

	// What a confirmation asks a human to do, after "asks you to".
	"ask.approve":    text("approuver ces conditions"),
	"ask.reject":     text("rejeter les conditions proposées"),
	"ask.cancel":     text("vous retirer de la négociation"),
	"ask.preapprove": text("accepter n'importe laquelle de ces options"),
	// The same, as a question (a mail's subject and heading).
	"ask.question.approve":    text("Approuver ces conditions ?"),
	"ask.question.reject":     text("Rejeter les conditions ?"),
	"ask.question.cancel":     text("Vous retirer ?"),
	"ask.question.preapprove": text("Accepter n'importe laquelle de ces options ?"),
	// What follows from confirming, when it is more than the verdict says.
	"ask.after.reject":     text("Un rejet ferme la salle définitivement."),
	"ask.after.cancel":     text("La salle se ferme pour les deux parties et ne peut pas être rouverte."),
	"ask.after.preapprove": text("L'autre partie en choisit une, et l'accord est conclu aussitôt."),
	// The confirm button's word, after "Confirm: ".
	"ask.button.approve":    text("approuver"),
	"ask.button.reject":     text("rejeter"),
	"ask.button.cancel":     text("me retirer"),
	"ask.button.preapprove": text("toute option me convient"),
	"ask.heading":           text("Votre agent a besoin de votre accord pour %[1]s"), // ask.<verdict>
	"ask.confirm":           text("Confirmer : %[1]s"),                               // ask.button.<verdict>

	// Whose turn it is, for an agent's human; turn.you for a person's seat.
	"turn.nobody": text("au tour de personne"),
	"turn.yours":  text("au tour de votre partie"),
	"turn.theirs": text("au tour de l'autre partie"),
	"turn.you":    text("à vous de jouer"),

	// Where a room stands in the list of rooms.
	"rank.waiting_for_you":   text("vous attend"),
	"rank.waiting_for_human": text("attend son humain"),
	"rank.your_agent":        text("au tour de votre agent"),
	"rank.closed":            text("fermé"),

	// What became of a confirmation the human answered.
	"result.applied":         text("C'est fait : votre réponse a été appliquée."),
	"result.applied_verdict": text("C'est fait : votre partie %[1]s."), // verdict.<verdict>
	"result.agreed":          text("L'accord est conclu."),
	"result.declined":        text("Vous n'avez pas confirmé. Votre agent en est informé et la salle reste inchangée."),
	"result.void":            text("Votre réponse ne s'est appliquée à rien : %[1]s."),
	"result.waiting":         text("Votre réponse est toujours attendue."),

	// Why an invitation cannot be answered.
	"refusal.withdrawn": text("Cette invitation a été retirée par la personne qui l'a envoyée."),
	"refusal.expired": plural.Selectf(1, "%d",
		"one", "Cette invitation a expiré : personne n'y a répondu dans un délai de %[1]d heure.",
		"other", "Cette invitation a expiré : personne n'y a répondu dans un délai de %[1]d heures."),
	"refusal.used":     text("Quelqu'un a déjà répondu à cette invitation. Si c'était vous, ouvrez le lien personnel que vous avez reçu alors."),
	"refusal.deadline": text("Il n'est plus possible de répondre à cette invitation : son échéance est passée."),
	"refusal.other":    text("Il n'est plus possible de répondre à cette invitation (%[1]s)."),

	// A card: the terms on the table, in the reader's labels.
	"card.option":     text("Option %[1]d sur %[2]d"),
	"card.theirs":     text("champ de l'autre partie"),
	"card.missing":    text("manquant"),
	"card.new_schema": text("L'autre partie utilise un formulaire sous lequel vous n'avez encore jamais conclu : vérifiez chaque champ."),
	"card.no_deal":    text("Aucun accord n'est possible sur %[1]s : vos limites et les siennes ne peuvent pas être respectées toutes deux (les chiffres d'aucune partie ne sont montrés)."),

	// How long until a moment, in a sentence ("The deadline is … (in about 3 hours)").
	"until.now": text("maintenant"),
	"until.minutes": plural.Selectf(1, "%d",
		"one", "dans environ %[1]d minute",
		"other", "dans environ %[1]d minutes"),
	"until.hours": plural.Selectf(1, "%d",
		"one", "dans environ %[1]d heure",
		"other", "dans environ %[1]d heures"),
	"until.days": plural.Selectf(1, "%d",
		"one", "dans environ %[1]d jour",
		"other", "dans environ %[1]d jours"),

	// How long is left, in a countdown beside a deadline.
	"left.passed":  text("passée"),
	"left.minutes": text("encore %[1]d min"),
	"left.hours":   text("encore %[1]d h %02[2]d min"),
	"left.days": plural.Selectf(1, "%d",
		"one", "encore %[1]d jour",
		"other", "encore %[1]d jours"),

	// What a delivery in the log was about.
	"topic.request":  text("demande de confirmation"),
	"topic.reminder": text("rappel"),
	"topic.agreed":   text("conclu"),
	"topic.closed":   text("fermé"),
	"topic.no_deal":  text("aucun accord possible"),
	"topic.test":     text("test"),
	"topic.invite":   text("invitation"),

	// A member's role in an account.
	"role.owner":  text("propriétaire"),
	"role.admin":  text("administrateur"),
	"role.member": text("membre"),

	// The mail inviting a person to join an account: who invites, the
	// account's name, the role (role.<role>), the link's expiry.
	"member_invite.subject": text("%[1]s vous invite à rejoindre %[2]s sur Taasky"),
	"member_invite.heading": text("Rejoindre %[1]s sur Taasky"),
	"member_invite.intro":   text("%[1]s vous invite à rejoindre %[2]s en tant que %[3]s. Les membres connectent leurs agents IA à Taasky et confirment ce que leurs agents concluent."),
	"member_invite.action":  text("Accepter l'invitation"),
	"member_invite.expires": text("Le lien ne fonctionne qu'une fois et expire le %[1]s."),
	"member_invite.sign_in": text("Connectez-vous avec %[1]s pour accepter : l'invitation est destinée à cette adresse."),
	"member_invite.why":     text("%[1]s a donné votre adresse à Taasky pour vous inviter. Rien d'autre ne vous sera envoyé, sauf nouvelle invitation."),

	// A note on a room's timeline that is not a move.
	"note.member_left": text("%[1]s n'est plus membre du compte : ses propriétaires répondent désormais aux confirmations de cette partie."),

	// for_your_human: the room in plain text, for an agent to show its human.
	"human.title":          text("Négociation : %[1]q (les mots de la partie qui invite)."),
	"human.draft":          text("En attente que l'autre partie accepte l'invitation."),
	"human.your_turn":      text("C'est au tour de votre partie."),
	"human.their_turn":     text("En attente de l'autre partie."),
	"human.agreed":         text("CONCLU : les deux parties ont confirmé les conditions ci-dessous."),
	"human.closed":         text("Fermé (%[1]s). Rien n'a été conclu."), // closed.<reason>
	"human.deadline":       text("Échéance : %[1]s."),
	"human.options.yours":  text("Options proposées par votre partie (une est à choisir) :"),
	"human.options.theirs": text("Options proposées par l'autre partie (une est à choisir) :"),
	"human.terms.yours":    text("Conditions proposées par votre partie :"),
	"human.terms.theirs":   text("Conditions proposées par l'autre partie :"),
	"human.option":         text("%[1]s :"), // card.option
	"human.their_field":    text("%[1]s (champ de l'autre partie)"),
	"human.not_given":      text("non indiqué"),
	"human.their_words":    text("%[1]s (leurs mots)"),
	"human.outside":        text("HORS DE VOS LIMITES ; confirmer l'accepte quand même"),
	"human.no_deal_field":  text("aucun accord possible sur ce champ"),
	"human.confirm":        text("Votre confirmation est nécessaire pour %[1]s."), // ask.<verdict>
	"human.confirm_where":  text("Vous avez reçu un lien ; vous pouvez aussi répondre sur le tableau de bord."),

	// Values that are words, in a card: a yes/no field.
	"value.true":  text("oui"),
	"value.false": text("non"),

	// Where a delivery went, and what became of it (jobs' Channel, Status).
	"channel.email":   text("e-mail"),
	"channel.push":    text("Web Push"),
	"status.queued":   text("en file d'attente"),
	"status.sent":     text("envoyé"),
	"status.retrying": text("nouvel essai prévu"),
	"status.failed":   text("échec"),
	"status.skipped":  text("ignoré"),
	"status.gone":     text("supprimé"),

	// The regions of the time-zone picker (the IANA name's first part).
	"region.utc":        text("Universel"),
	"region.africa":     text("Afrique"),
	"region.america":    text("Amériques"),
	"region.antarctica": text("Antarctique"),
	"region.arctic":     text("Arctique"),
	"region.asia":       text("Asie"),
	"region.atlantic":   text("Océan Atlantique"),
	"region.australia":  text("Australie"),
	"region.europe":     text("Europe"),
	"region.indian":     text("Océan Indien"),
	"region.pacific":    text("Océan Pacifique"),

	// A time zone a browser told that does not exist.
	"zone.unknown": text("time_zone : %[1]q n'est pas un nom de fuseau horaire IANA comme Europe/Paris."),

	// Every page's frame.
	"layout.skip":       text("Aller au contenu"),
	"layout.nav":        text("Navigation principale"),
	"layout.rooms":      text("Salles"),
	"layout.waiting":    text("en attente d'un humain"),
	"layout.settings":   text("Paramètres"),
	"layout.sign_out":   text("Se déconnecter"),
	"layout.zone_offer": text("Les heures sont affichées en UTC."),
	"layout.zone_use":   text("Les afficher en"), // followed by the browser's zone
	"layout.signed_in":  text("Connecté en tant que %[1]s · heures en %[2]s"),
	"layout.tagline":    text("Taasky : votre agent négocie, vous donnez votre accord."),
	"layout.copy":       text("Copier"),
	"layout.copied":     text("Copié"),

	// The signed-out home page.
	"welcome.heading":    text("Votre agent négocie. Vous donnez votre accord."),
	"welcome.lead":       text("Avec Taasky, les agents IA de deux personnes s'entendent sur des conditions — une heure de rendez-vous, un lieu, des honoraires — et seuls leurs humains peuvent dire oui. Chaque acceptation, c'est vous qui la confirmez, sur une fiche qui montre exactement ce que vous acceptez."),
	"welcome.sign_in":    text("Se connecter"),
	"welcome.invited":    text("Quelqu'un vous a invité ? Ouvrez le lien d'invitation reçu : aucun compte n'est nécessaire pour y répondre."),
	"signed_out.heading": text("Vous êtes déconnecté"),
	"signed_out.text":    text("Votre session dans ce navigateur est terminée."),
	"signed_out.again":   text("Se reconnecter"),

	// The error page.
	"error.title":    text("Un problème est survenu"),
	"error.back":     text("Retour à Taasky"),
	"error.too_many": text("Trop de requêtes"),
	"error.try_again": plural.Selectf(1, "%d",
		"one", "Trop de requêtes sont venues de votre réseau. Réessayez dans %[1]d seconde.",
		"other", "Trop de requêtes sont venues de votre réseau. Réessayez dans %[1]d secondes."),

	// A card on a page.
	"card.label":          text("Conditions sur la table"),
	"card.new_schema_tag": text("Nouveau schéma."),
	"card.options": plural.Selectf(1, "%d",
		"one", "%[1]d option :",
		"other", "%[1]d options au choix :"),
	"card.outside":        text("Hors de vos limites : l'approuver, c'est l'accepter quand même."),
	"card.not_said":       text("leurs conditions n'en disent rien"),
	"card.hash_summary":   text("Empreinte de ces conditions"),
	"card.hash_explained": text("Les agents désignent exactement ces conditions par ce subject_hash :"),
	"card.pick":           text("Choisir celle-ci"),
	"card.pick_option":    text("Choisir l'%[1]s"), // card.option
	"card.approve":        text("Approuver"),

	// A room's timeline.
	"timeline.heading": text("Historique"),
	"timeline.yours":   text("Votre partie"),
	"timeline.theirs":  text("L'autre partie"),
	"timeline.round":   text("tour %[1]d"),
	"timeline.about":   text("concerne :"), // followed by field names
	"timeline.empty":   text("Rien n'a encore été proposé."),

	// What a person can answer, on any page.
	"answer.decline":       text("Ne pas confirmer"),
	"answer.propose_else":  text("Proposer autre chose"),
	"answer.send_proposal": text("Envoyer ma proposition"),

	// The form generated from a schema.
	"form.optional": text("(facultatif)"),
	"form.from":     text("De"),
	"form.to":       text("À"),
	"form.zone":     text("Fuseau horaire"),
	"form.none":     text("(aucun)"),
	"form.choose":   text("Choisir…"),
	"form.amount":   text("Montant"),
	"form.currency": text("Devise"),
	"form.repeated": text("Plusieurs valeurs : remplissez autant de lignes que nécessaire ; les lignes vides sont ignorées."),

	// The list of rooms.
	"rooms.heading":        text("Vos salles"),
	"rooms.filter":         text("Filtrer les salles"),
	"rooms.filter_all":     text("Toutes"),
	"rooms.filter_waiting": text("En attente d'un humain"),
	"rooms.filter_live":    text("En cours"),
	"rooms.filter_agreed":  text("Conclues"),
	"rooms.filter_closed":  text("Fermées"),
	"rooms.untitled":       text("Salle %[1]s"),
	"rooms.start_heading":  text("Commencez par un compte"),
	"rooms.start_text":     text("Vous n'appartenez encore à aucun compte. Créez-en un pour vous ou votre équipe, puis connectez un agent ; ou ouvrez le lien d'une invitation que vous avez reçue."),
	"rooms.create_account": text("Créer un compte"),
	"rooms.none_here":      text("Aucune salle ici."),
	"rooms.none_yet":       text("Aucune salle pour l'instant. Quand votre agent ouvre ou rejoint une négociation, elle apparaît ici."),
	"rooms.first_page":     text("Première page"),
	"rooms.next_page":      text("Page suivante"),

	// A room's page, for an account's member.
	"room.side_with":          text("%[1]s (partie %[2]s) avec %[3]s"),
	"room.side_waiting":       text("%[1]s (partie %[2]s), en attente d'une réponse à l'invitation"),
	"room.round":              text("tour %[1]s"), // the round's number, marked up
	"room.deadline":           text("échéance"),
	"room.answered_by_you":    text("Vous y répondez"),
	"room.answered_by_owners": text("Les propriétaires du compte y répondent"),
	"room.answered_by":        text("%[1]s y répond"),
	"room.agreed":             text("Conclu : les deux humains ont approuvé les mêmes conditions."),
	"room.answer_marked":      text("Votre réponse porte sur les conditions marquées ci-dessous."),
	"room.owners_answer":      text("L'humain de cette partie a quitté le compte : ses propriétaires y répondent ; vous pouvez suivre."),
	"room.theirs_to_answer":   text("C'est à %[1]s de répondre (son agent le lui a demandé) ; vous pouvez suivre."),
	"room.tabled_by_you":      text("Proposées par votre partie."),
	"room.tabled_by":          text("Proposées par %[1]s, montrées avec vos mots."),
	"room.no_terms":           text("Aucune condition sur la table."),
	"room.limits":             text("Vos limites"),
	"room.limits_private":     text("(vous seul les voyez)"),

	// The page of a one-tap link.
	"onetap.title":          text("Confirmer : %[1]s"), // the room's title
	"onetap.title_untitled": text("Confirmer : une négociation"),
	"onetap.with":           text("Avec %[1]s"),
	"onetap.with_person":    text("Avec une personne sans compte, invitée par e-mail ou par lien"),
	"onetap.deadline":       text("Échéance :"),
	"onetap.nothing_yet":    text("Ouvrir cette page n'a rien changé ; seuls ces boutons répondent."),
	"onetap.not_waiting":    text("Cette confirmation ne vous attend plus."),
	"onetap.used":           text("Ce lien a été utilisé le %[1]s. Chaque lien ne fonctionne qu'une fois."),
	"onetap.room_state":     text("État de la salle : %[1]s."),
	"onetap.open":           text("Ouvrir Taasky"),

	// The invitation page, for a person without an account.
	"invite.title":          text("Invitation de %[1]s"),
	"invite.heading":        text("%[1]s vous invite à conclure un accord"),
	"invite.heading_titled": text("%[1]s vous invite à conclure un accord : %[2]s"), // the title, their words
	"invite.title_theirs":   text("Le titre est de %[1]s."),
	"invite.answer_by":      text("Répondez avant le"),
	"invite.your_tap":       text("Votre clic est votre réponse : personne ne répond à votre place."),
	"invite.pick_heading":   text("Choisissez celle qui vous convient"),
	"invite.their_proposal": text("Leur proposition"),
	"invite.preapproved":    text("%[1]s a déjà accepté chacune d'elles : votre choix conclut l'accord."),
	"invite.decline":        text("Décliner l'invitation"),
	"invite.no_terms":       text("%[1]s n'a pas encore proposé de conditions. Rejoignez maintenant et revenez quand ce sera fait."),
	"invite.join":           text("Rejoindre"),

	// A person's own page in a negotiation (their seat).
	"seat.title":         text("Votre réponse à %[1]s"),
	"seat.answer_in":     text("Votre réponse est enregistrée."),
	"seat.keep_link":     text("Gardez votre lien personnel pour revenir à cette négociation :"),
	"seat.with":          text("Avec %[1]s"),
	"seat.agreed":        text("Conclu : vous avez tous deux approuvé les mêmes conditions."),
	"seat.your_proposal": text("Votre proposition"),
	"seat.no_terms":      text("Aucune condition sur la table pour l'instant."),
	"seat.reject":        text("Rejeter et fermer"),
	"seat.waiting":       text("En attente de %[1]s. Cette page se met à jour toute seule."),
	"seat.leave":         text("Quitter cette négociation"),
	"seat.leave_button":  text("Quitter et fermer"),
	"seat.link":          text("Votre lien personnel :"),

	// The delivery log.
	"log.heading":       text("Journal des envois"),
	"log.intro":         text("Chaque notification que Taasky vous a envoyée ou a tenté d'envoyer, et les invitations que vos agents lui ont demandé d'envoyer par e-mail, des plus récentes aux plus anciennes. Un essai échoué est répété à intervalles croissants."),
	"log.pages":         text("Pages"),
	"log.newest":        text("Plus récents"),
	"log.older":         text("Plus anciens"),
	"log.nothing_older": text("Rien de plus ancien."),
	"log.nothing_yet":   text("Rien ne vous a encore été envoyé."),
	"log.not_set_up":    text("Les notifications ne sont pas configurées sur ce serveur."),
	"log.when":          text("Quand"),
	"log.what":          text("Quoi"),
	"log.channel":       text("Canal"),
	"log.to":            text("À"),
	"log.status":        text("État"),
	"log.attempts":      text("Essais"),
	"log.error":         text("Erreur"),

	// The page that stops email notices.
	"unsubscribe.heading":       text("Arrêter les avis par e-mail ?"),
	"unsubscribe.what":          text("Taasky cessera de vous envoyer par e-mail les rappels, les accords conclus, les salles fermées et les avis « aucun accord possible »."),
	"unsubscribe.done_heading":  text("Les avis par e-mail sont désactivés"),
	"unsubscribe.done":          text("Taasky n'enverra plus à %[1]s de rappels, d'accords conclus, de salles fermées ni d'avis « aucun accord possible »."),
	"unsubscribe.requests_stay": text("Les demandes de confirmation continuent d'arriver : votre agent ne peut pas agir sans vous, elles ne se désactivent donc jamais par un lien."),
	"unsubscribe.settings":      text("Vous pouvez tout choisir dans les %[1]s."), // a link to Settings
	"unsubscribe.button":        text("Arrêter les avis par e-mail"),

	// The page that refuses further invitations to an address.
	"refuse.heading":      text("Refuser les invitations adressées à %[1]s ?"),
	"refuse.what":         text("Taasky n'enverra plus aucune invitation à négocier à cette adresse, quel que soit le demandeur. Les invitations que vous avez déjà reçues restent valables."),
	"refuse.button":       text("Refuser les prochaines invitations"),
	"refuse.done_heading": text("Plus d'invitations"),
	"refuse.done":         text("Taasky n'enverra plus d'invitation à %[1]s."),
	"refuse.invalid":      text("Ce lien n'est pas valide : ouvrez celui de l'e-mail d'invitation."),

	// The settings page.
	"settings.done.revoked":        text("La clé a été révoquée : elle ne fonctionne plus."),
	"settings.done.zone":           text("Votre fuseau horaire a été enregistré."),
	"settings.done.language":       text("Votre langue a été enregistrée."),
	"settings.done.notify":         text("Vos choix de notification ont été enregistrés."),
	"settings.done.push_on":        text("Ce navigateur recevra vos notifications."),
	"settings.done.push_off":       text("L'appareil a été retiré : il ne reçoit plus de notifications."),
	"settings.done.push_test":      text("Une notification de test est en route vers vos appareils : le journal des envois ci-dessous indique comment cela s'est passé."),
	"settings.done.disconnected":   text("L'agent a été déconnecté : ses jetons ne fonctionnent plus."),
	"settings.done.push_nothing":   text("Aucun appareil à qui envoyer un test : activez d'abord les notifications dans ce navigateur."),
	"settings.key_ready":           text("%[1]s est prêt"),
	"settings.key_give":            text("Donnez à votre agent cette URL MCP et cette clé."),
	"settings.key_once":            text("La clé n'est affichée que cette fois : copiez-la maintenant."),
	"settings.mcp_url":             text("URL MCP"),
	"settings.key":                 text("Clé"),
	"settings.key_header":          text("L'agent l'envoie dans l'en-tête %[1]s."),
	"settings.account_you_are":     text("(%[1]s, vous êtes %[2]s)"), // role.<role>
	"settings.account_mcp":         text("URL MCP pour les agents de ce compte : %[1]s"),
	"settings.members":             text("Membres"),
	"settings.members_invitations": text("Membres et invitations"),
	"settings.account_settings":    text("Paramètres du compte et journal d'audit"),
	"settings.agent_owner":         text("appartient à %[1]s"),
	"settings.agent_orphan":        text("son humain a quitté le compte : ses clés sont révoquées"),
	"settings.oauth_connected":     text("Connecté avec OAuth par %[1]s"),
	"settings.oauth_disconnected":  text("Déconnecté le %[1]s, connecté par %[2]s"),
	"settings.last_used":           text("dernière utilisation le %[1]s"),
	"settings.never_used":          text("jamais utilisé"),
	"settings.disconnect":          text("Déconnecter"),
	"settings.disconnect_agent":    text("Déconnecter %[1]s"),
	"settings.revoked":             text("révoquée"),
	"settings.since":               text("depuis le %[1]s"),
	"settings.revoke":              text("Révoquer"),
	"settings.revoke_key":          text("Révoquer la clé %[1]s"),
	"settings.another_key":         text("Émettre une autre clé"),
	"settings.no_agents":           text("Aucun agent pour l'instant."),
	"settings.agent_name":          text("Nom du nouvel agent"),
	"settings.agent_name_example":  text("p. ex. Mon assistant d'agenda"),
	"settings.create_agent":        text("Créer l'agent"),
	"settings.no_account":          text("Vous n'êtes encore membre d'aucun compte. %[1]s, ou ouvrez le lien d'une invitation que vous avez reçue."),
	"settings.zone_heading":        text("Fuseau horaire"),
	"settings.zone_label":          text("Les fiches, échéances et messages sont affichés en"),
	"settings.zone_search":         text("Rechercher un fuseau horaire"),
	"settings.zone_browser":        text("Votre navigateur indique"),
	"settings.zone_use":            text("L'utiliser"),
	"settings.save":                text("Enregistrer"),
	"settings.language_heading":    text("Langue"),
	"settings.language_label":      text("Taasky vous parle en"),
	"settings.language_auto":       text("La langue de votre navigateur"),
	"settings.notify_heading":      text("Notifications"),
	"settings.notify_intro":        text("Quand votre agent a besoin de votre confirmation, Taasky vous prévient aussitôt ; les avis vous disent comment se terminent vos négociations."),
	"settings.by_email":            text("Par e-mail à %[1]s"),
	"settings.email_requests":      text("Demandes de confirmation (avec un lien en un clic)"),
	"settings.email_notices":       text("Avis : rappels avant une échéance, accord conclu (avec une entrée d'agenda), fermeture, aucun accord possible"),
	"settings.push_legend":         text("Sur vos appareils (Web Push)"),
	"settings.push_requests":       text("Demandes de confirmation"),
	"settings.push_notices":        text("Avis"),
	"settings.push_no_device":      text("Les choix Web Push apparaîtront ici dès qu'un navigateur sera notifié (voir ci-dessous)."),
	"settings.requests_wait":       text("Si vous désactivez les demandes partout, elles vous attendent quand même sur la page de vos salles : votre agent ne peut pas agir sans vous."),
	"settings.push_heading":        text("Web Push"),
	"settings.push_needs_js":       text("Activer les notifications dans un navigateur nécessite JavaScript : cette page le fait avec un bouton une fois son script lancé."),
	"settings.push_on":             text("Me notifier dans ce navigateur"),
	"settings.push_off":            text("Ne plus notifier ce navigateur"),
	"settings.a_browser":           text("Un navigateur"),
	"settings.this_browser":        text("ce navigateur"),
	"settings.last_notified":       text("dernière notification le %[1]s"),
	"settings.send_test":           text("Envoyer un test"),
	"settings.remove":              text("Retirer"),
	"settings.send_test_all":       text("Envoyer un test à tous les appareils"),
	"settings.no_device":           text("Aucun appareil ne reçoit encore vos notifications."),
	"settings.server_key":          text("Clé du serveur"),
	"settings.server_key_text":     text("Les navigateurs s'abonnent avec cette clé publique VAPID :"),
	"settings.push_not_configured": text("Web Push n'est pas configuré sur ce serveur (il faut %[1]s et %[2]s) : les notifications arrivent uniquement par e-mail."),
	"push_js.unsupported":          text("Ce navigateur ne peut pas recevoir de notifications Web Push ici."),
	"push_js.needs_https":          text("Ce navigateur ne peut pas recevoir de notifications Web Push ici (il faut https)."),
	"push_js.on":                   text("Ce navigateur reçoit vos notifications."),
	"push_js.off":                  text("Ce navigateur ne reçoit pas vos notifications."),
	"push_js.blocked":              text("Les notifications sont bloquées pour ce site dans ce navigateur : autorisez-les dans les paramètres du site, puis revenez."),
	"push_js.failed":               text("Cela n'a pas fonctionné :"),
	"settings.whole_log":           text("Le journal complet"),
	"settings.notify_not_set_up":   text("Les notifications ne sont pas configurées sur ce serveur : les demandes de confirmation vous attendent sur la page de vos salles."),

	// The OAuth consent page: an assistant asks to become the person's agent.
	"consent.title":            text("Connecter %[1]s"),
	"consent.heading":          text("Connecter %[1]s à Taasky ?"),
	"consent.asks":             text("%[1]s demande à négocier pour vous."),
	"consent.asks_in":          text("%[1]s demande à négocier pour vous dans le compte %[2]s."),
	"consent.agent":            text("Il sera votre agent : il pourra ouvrir et rejoindre des négociations, y répondre et vous demander de confirmer."),
	"consent.still_yours":      text("Chaque approbation, rejet et retrait nécessite toujours votre confirmation, ici ou depuis une notification."),
	"consent.client":           text("Client"),
	"consent.answer_to":        text("Sa réponse est envoyée à"),
	"consent.new_client":       text("Ce client est nouveau pour Taasky : personne ne l'a encore connecté. Ne le connectez que si vous venez vous-même d'ajouter Taasky à votre assistant."),
	"consent.host_differs":     text("Sa réponse est envoyée à %[1]s et non à %[2]s, d'où le client dit venir. C'est habituel pour une application sur votre ordinateur ; sinon, refusez."),
	"consent.account":          text("Pour le compte"),
	"consent.connect":          text("Connecter %[1]s"),
	"consent.decline":          text("Refuser"),
	"consent.disconnect_later": text("Vous pouvez le déconnecter à tout moment dans Paramètres → Agents : il cesse aussitôt de fonctionner."),

	// Emails (subject, heading, intro, why the recipient gets it) and
	// their parts; "in" names the room inside a sentence.
	"mail.subject":               text("%[1]s — %[2]s"), // what, about what
	"mail.about_with":            text("négociation avec %[1]s"),
	"mail.about_yours":           text("votre négociation"),
	"mail.in_with":               text(" dans « %[1]s » avec %[2]s"),
	"mail.in":                    text(" dans « %[1]s »"),
	"mail.with":                  text(" avec %[1]s"),
	"mail.your_agent":            text("Votre agent"),
	"mail.your_agent_named":      text("Votre agent, %[1]s,"),
	"mail.review":                text("Voir et répondre"),
	"mail.open_room":             text("Ouvrir la salle"),
	"mail.the_room":              text("La salle :"),
	"mail.calendar":              text("L'horaire convenu est joint sous forme d'entrée d'agenda (invite.ics)."),
	"mail.stop":                  text("Arrêter ces avis"),
	"mail.settings":              text("Paramètres des notifications"),
	"mail.request.intro":         text("%[1]s a besoin de votre accord pour %[2]s%[3]s."), // agent, ask.<verdict>, in
	"mail.request.why":           text("Votre agent ne peut pas faire ce pas sans vous. Le lien montre d'abord les conditions ; rien ne se passe tant que vous n'appuyez pas sur un bouton."),
	"mail.reminder.subject":      text("Rappel : votre réponse est attendue"),
	"mail.reminder.heading":      text("Votre réponse est toujours attendue"),
	"mail.reminder.intro":        text("%[1]s vous a demandé votre accord pour %[2]s%[3]s."),
	"mail.reminder.deadline":     text("L'échéance est le %[1]s (%[2]s) ; si personne ne conclut d'ici là, la salle se ferme."), // until.*
	"mail.reminder.why":          text("Un rappel avant l'échéance d'une confirmation à laquelle vous n'avez pas encore répondu."),
	"mail.agreed.heading":        text("Accord conclu"),
	"mail.agreed.intro":          text("Accord conclu%[1]s : vous avez tous deux approuvé ces conditions."),
	"mail.agreed.why":            text("Un avis : une de vos négociations a abouti à un accord."),
	"mail.closed.heading":        text("Fermée"),
	"mail.closed.intro":          text("La négociation%[1]s est fermée : %[2]s."), // in, closed.<reason>
	"mail.closed.why":            text("Un avis : une de vos négociations s'est terminée sans accord."),
	"mail.no_deal.subject":       text("Aucun accord possible sur %[1]s"),
	"mail.no_deal.heading":       text("Aucun accord possible"),
	"mail.no_deal.intro":         text("Aucun accord n'est possible%[1]s sur %[2]s : vos limites et les leurs ne se recoupent pas. Les chiffres d'aucune partie n'ont été communiqués à l'autre."),
	"mail.no_deal.why":           text("Un avis : Taasky compare une fois les limites des deux parties, quand l'autre partie rejoint."),
	"mail.invite.someone":        text("Quelqu'un"),
	"mail.invite.subject":        text("%[1]s vous invite à négocier"),
	"mail.invite.subject_titled": text("%[1]s vous invite à négocier « %[2]s »"),
	"mail.invite.heading":        text("%[1]s vous invite"),
	"mail.invite.intro":          text("L'agent de %[1]s aimerait s'entendre avec vous sur des conditions. Ouvrez l'invitation pour voir sa proposition : vous pouvez répondre dans le navigateur (choisir, approuver, contre-proposer ou décliner) ou confier le lien à votre propre agent."),
	"mail.invite.intro_titled":   text("L'agent de %[1]s aimerait s'entendre avec vous sur « %[2]s ». Ouvrez l'invitation pour voir sa proposition : vous pouvez répondre dans le navigateur (choisir, approuver, contre-proposer ou décliner) ou confier le lien à votre propre agent."),
	"mail.invite.action":         text("Voir l'invitation"),
	"mail.invite.expires":        text("L'invitation expire le %[1]s si personne n'y répond."),
	"mail.invite.zone":           text("Les heures sont indiquées ici en UTC ; l'invitation les affiche dans votre propre fuseau horaire."),
	"mail.invite.refuse":         text("Refuser toute nouvelle invitation à cette adresse"),
	"mail.invite.why":            text("%[1]s a donné votre adresse à Taasky en ouvrant cette négociation. Rien d'autre ne vous sera envoyé si vous ne répondez pas."),
	"mail.test.subject":          text("Notification de test de Taasky"),
	"mail.test.heading":          text("Ça fonctionne"),
	"mail.test.intro":            text("Cet appareil affichera les demandes de confirmation de Taasky."),

	// Push notifications: the title, and a count of options in the body.
	"push.request":  text("%[1]s a besoin de votre accord pour %[2]s"), // agent, ask.<verdict>
	"push.reminder": text("Toujours en attente : %[1]s"),
	"push.options": plural.Selectf(1, "%d",
		"one", "%[1]d option",
		"other", "%[1]d options"),

	// A calendar entry's description (.ics): the exact agreed moments.
	"ics.agreed":      text("Conclu sur Taasky."),
	"ics.agreed_with": text("Conclu sur Taasky avec %[1]s."),
	"ics.range":       text("%[1]s : de %[2]s à %[3]s"),

	// Webhooks
	"webhook.disabled.subject": text("Un webhook de %[1]s a été désactivé"),
	"webhook.disabled.heading": text("Un webhook a été désactivé"),
	"webhook.disabled.intro": text("Taasky n'a pas pu livrer à %[1]s pendant trois jours et a donc cessé d'y envoyer les webhooks de %[2]s. " +
		"Les événements depuis figurent dans le journal des envois ; rien n'est envoyé tant que le point de terminaison n'est pas réactivé."),
	"webhook.disabled.last":   text("La dernière tentative : %[1]s."),
	"webhook.disabled.action": text("Ouvrir les webhooks"),
	"webhook.disabled.why":    text("Vous êtes propriétaire de %[1]s sur Taasky ; ses propriétaires sont prévenus quand un webhook s'arrête."),

	// Account deletion
	"party.deleted_account":        text("un compte supprimé"),
	"account_delete.heading":       text("Supprimer le compte"),
	"account_delete.intro":         text("La suppression du compte est définitive. Immédiatement :"),
	"account_delete.rooms":         text("chaque négociation ouverte est close, et l'autre partie est informée que ce compte a été supprimé ;"),
	"account_delete.access":        text("aucune clé d'agent, aucun assistant connecté ni aucune session de membre ne fonctionne plus ;"),
	"account_delete.erased":        text("la partie du compte dans chaque salle (ses agents, ses limites, ses notes), ses membres, invitations, journal d'audit et journal des envois sont effacés, ainsi que chaque membre qui n'appartient à aucun autre compte, avec ses réglages et ses appareils ;"),
	"account_delete.kept":          text("l'autre partie garde sa copie de chaque salle, y compris celles conclues, et voit ce côté comme « un compte supprimé »."),
	"account_delete.export_first":  text("Pour en garder une copie, téléchargez d'abord l'export ci-dessus."),
	"account_delete.confirm_label": text("Saisissez l'identifiant du compte, %[1]s, pour confirmer"),
	"account_delete.button":        text("Supprimer le compte"),
	"account_delete.done_title":    text("Le compte a été supprimé"),
	"account_delete.done_rooms":    text("Ses négociations ouvertes ont été closes et les autres parties informées. Ses clés et sessions ne fonctionnent plus."),
	"account_delete.done_back":     text("Retour à vos salles"),
	"account_delete.done_erased":   text("Vous n'apparteniez à aucun autre compte : ce que Taasky conservait à votre sujet a donc aussi été effacé."),
	"account_delete.done_signup":   text("Créer un nouveau compte"),
	"topic.member_invite":          text("invitation à rejoindre le compte"),
	"request.handed_over":          text("Le membre qui répondait pour cet agent ne fait plus partie du compte : en tant que propriétaire, c'est vous qui répondez désormais pour lui."),

	// Failover
	"failover.retry": text("Taasky bascule vers sa base de données de secours. Réessayez dans quelques secondes : ce qui est passé est conservé, et rien n'est fait deux fois."),

	// Receipts
	"receipt.heading":            text("Reçu de l'accord"),
	"receipt.intro":              text("Taasky a signé un reçu de cet accord : qui a accepté quelles conditions, et comment chaque partie a confirmé. Tout le monde peut le vérifier."),
	"receipt.download":           text("Télécharger le reçu (fichier .jws)"),
	"receipt.print":              text("Reçu imprimable"),
	"receipt.verify_at":          text("Vérifier un reçu sur %[1]s"),
	"receipt.room":               text("Salle %[1]d : %[2]s (les mots de la partie qui invite)"),
	"receipt.room_untitled":      text("Salle %[1]d"),
	"receipt.agreed_at":          text("Conclu %[1]s."),
	"receipt.side_a":             text("La partie qui a ouvert la salle"),
	"receipt.side_b":             text("La partie qui l'a rejointe"),
	"receipt.account":            text("Compte : %[1]s"),
	"receipt.no_account":         text("Une personne qui a répondu à l'invitation sans compte"),
	"receipt.confirmed_by":       text("Confirmé par %[1]s %[2]s, %[3]s."), // name, receipt.channel.*, moment
	"receipt.confirmed":          text("Confirmé %[1]s, %[2]s."),           // receipt.channel.*, moment
	"receipt.preapproved":        text("Cette partie a confirmé à l'avance que n'importe laquelle des options proposées lui convenait."),
	"receipt.channel.dashboard":  text("sur le tableau de bord Taasky"),
	"receipt.channel.email":      text("par un lien en un geste depuis un e-mail"),
	"receipt.channel.push":       text("par un lien en un geste depuis une notification push"),
	"receipt.channel.invitation": text("sur la page d'invitation"),
	"receipt.terms":              text("Conditions convenues"),
	"receipt.subject_hash":       text("Empreinte des conditions (subject_hash) : %[1]s"),
	"receipt.log":                text("Le journal de la salle : %[1]d événements chaînés jusqu'au hachage de tête %[2]s"),
	"receipt.issued":             text("Émis %[1]s par %[2]s avec la clé %[3]s."),
	"verify.heading":             text("Vérifier un reçu Taasky"),
	"verify.intro":               text("Collez un reçu (le texte d'un fichier .jws) ou téléversez le fichier. Rien de ce que vous envoyez n'est conservé."),
	"verify.paste":               text("Reçu"),
	"verify.upload":              text("Ou téléversez le fichier"),
	"verify.submit":              text("Vérifier"),
	"verify.empty":               text("Collez un reçu ou choisissez son fichier."),
	"verify.valid":               text("Valide : %[1]s a signé ce reçu et rien n'y a été modifié depuis."),
	"verify.invalid":             text("Non valide : %[1]s"),
	"verify.problem.malformed":   text("ceci n'est pas un reçu Taasky (%[1]s)."),
	"verify.problem.foreign":     text("un autre service l'a émis (%[1]s)."),
	"verify.problem.unknown_key": text("il a été signé avec une clé que ce service ne publie pas (%[1]s)."),
	"verify.problem.tampered":    text("il a été modifié après sa signature."),
	"receipt.attached":           text("Le reçu signé de cet accord est joint (%[1]s) : tout le monde peut le vérifier sur %[2]s."),
	"verify.offline":             text("Pour le vérifier sans cette page : taasky receipt verify FICHIER --jwks %[1]s"),
}
