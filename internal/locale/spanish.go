package locale

import (
	"golang.org/x/text/feature/plural"
	"golang.org/x/text/message/catalog"
)

// spanishText is the catalog's Spanish text: the keys of english.go, in its order
// (a new English key goes in the same place here), translated for meaning.
// The comments are english.go's.
var spanishText = map[Key]catalog.Message{
	// What a room's state is called, in a list or a status line.
	"state.draft":    text("invitación enviada"),
	"state.awaiting": text("en negociación"),
	"state.agreed":   text("acordado"),
	"state.closed":   text("cerrado (%[1]s)"), // the close reason in words

	// Why a room closed, as the end of "… is closed: ".
	"closed.rejected":  text("se rechazaron las condiciones"),
	"closed.cancelled": text("una de las partes se retiró"),
	"closed.withdrawn": text("se retiró la invitación"),
	"closed.expired": plural.Selectf(1, "%d",
		"one", "nadie respondió a la invitación en %[1]d hora",
		"other", "nadie respondió a la invitación en %[1]d horas"),
	"closed.lapsed":          text("venció el plazo sin acuerdo"),
	"closed.account_deleted": text("se eliminó la cuenta de la otra parte"),

	// A value outside the reader's limits, by bound, never by number.
	"bound.min":     text("por debajo de su mínimo"),
	"bound.max":     text("por encima de su máximo"),
	"bound.one_of":  text("no es ninguno de los valores que acepta"),
	"bound.equals":  text("no es el valor que exige"),
	"bound.outside": text("fuera de sus límites: %[1]s"), // the bounds in words, joined

	// What a side did, after "Your side" or "Their side".
	"verdict.offer":            text("ofreció condiciones"),
	"verdict.counter":          text("hizo una contraoferta"),
	"verdict.need_more_detail": text("pidió más detalles"),
	"verdict.approve":          text("aprobó"),
	"verdict.reject":           text("rechazó las condiciones"),
	"verdict.cancel":           text("se retiró"),
	"verdict.preapprove":       text("confirmó que cualquier opción le sirve"),
	"verdict.join":             text("se unió"),

	// What a confirmation asks a human to do, after "asks you to".
	"ask.approve":    text("aprobar estas condiciones"),
	"ask.reject":     text("rechazar las condiciones propuestas"),
	"ask.cancel":     text("retirarse de la negociación"),
	"ask.preapprove": text("aceptar cualquiera de estas opciones"),
	// The same, as a question (a mail's subject and heading).
	"ask.question.approve":    text("¿Aprobar estas condiciones?"),
	"ask.question.reject":     text("¿Rechazar las condiciones?"),
	"ask.question.cancel":     text("¿Retirarse?"),
	"ask.question.preapprove": text("¿Aceptar cualquiera de estas opciones?"),
	// What follows from confirming, when it is more than the verdict says.
	"ask.after.reject":     text("Rechazar cierra la sala definitivamente."),
	"ask.after.cancel":     text("La sala se cierra para ambas partes y no se puede volver a abrir."),
	"ask.after.preapprove": text("La otra parte elige una y la sala queda acordada al instante."),
	// The confirm button's word, after "Confirm: ".
	"ask.button.approve":    text("aprobar"),
	"ask.button.reject":     text("rechazar"),
	"ask.button.cancel":     text("retirarme"),
	"ask.button.preapprove": text("cualquier opción me sirve"),
	"ask.heading":           text("Su agente le pide %[1]s"), // ask.<verdict>
	"ask.confirm":           text("Confirmar: %[1]s"),        // ask.button.<verdict>

	// Whose turn it is, for an agent's human; turn.you for a person's seat.
	"turn.nobody": text("no es el turno de nadie"),
	"turn.yours":  text("turno de su parte"),
	"turn.theirs": text("turno de la otra parte"),
	"turn.you":    text("es su turno"),

	// Where a room stands in the list of rooms.
	"rank.waiting_for_you":   text("le espera a usted"),
	"rank.waiting_for_human": text("espera a su humano"),
	"rank.your_agent":        text("turno de su agente"),
	"rank.closed":            text("cerrada"),

	// What became of a confirmation the human answered.
	"result.applied":         text("Hecho: se aplicó su respuesta."),
	"result.applied_verdict": text("Hecho: su parte %[1]s."), // verdict.<verdict>
	"result.agreed":          text("La sala está acordada."),
	"result.declined":        text("No confirmó. Se informa a su agente y la sala queda sin cambios."),
	"result.void":            text("Su respuesta no se aplicó a nada: %[1]s."),
	"result.waiting":         text("Su respuesta sigue pendiente."),

	// Why an invitation cannot be answered.
	"refusal.withdrawn": text("La persona que envió esta invitación la retiró."),
	"refusal.expired": plural.Selectf(1, "%d",
		"one", "Esta invitación caducó: nadie respondió en %[1]d hora.",
		"other", "Esta invitación caducó: nadie respondió en %[1]d horas."),
	"refusal.used":     text("Esta invitación ya se respondió. Si fue usted, abra el enlace personal que recibió entonces."),
	"refusal.deadline": text("Ya no se puede responder a esta invitación: su plazo venció."),
	"refusal.other":    text("Ya no se puede responder a esta invitación (%[1]s)."),

	// A card: the terms on the table, in the reader's labels.
	"card.option":     text("Opción %[1]d de %[2]d"),
	"card.theirs":     text("campo de la otra parte"),
	"card.missing":    text("falta"),
	"card.new_schema": text("La otra parte usa un formulario con el que usted nunca ha acordado: revise cada campo."),
	"card.no_deal":    text("No es posible un acuerdo sobre %[1]s: sus límites y los de la otra parte no pueden cumplirse a la vez (no se muestran las cifras de ninguna parte)."),

	// How long until a moment, in a sentence ("The deadline is … (in about 3 hours)").
	"until.now": text("ahora"),
	"until.minutes": plural.Selectf(1, "%d",
		"one", "en unos %[1]d minuto",
		"other", "en unos %[1]d minutos"),
	"until.hours": plural.Selectf(1, "%d",
		"one", "en aproximadamente %[1]d hora",
		"other", "en aproximadamente %[1]d horas"),
	"until.days": plural.Selectf(1, "%d",
		"one", "en aproximadamente %[1]d día",
		"other", "en aproximadamente %[1]d días"),

	// How long is left, in a countdown beside a deadline.
	"left.passed":  text("vencido"),
	"left.minutes": text("quedan %[1]d min"),
	"left.hours":   text("quedan %[1]d h %02[2]d min"),
	"left.days": plural.Selectf(1, "%d",
		"one", "queda %[1]d día",
		"other", "quedan %[1]d días"),

	// What a delivery in the log was about.
	"topic.request":  text("solicitud de confirmación"),
	"topic.reminder": text("recordatorio"),
	"topic.agreed":   text("acordado"),
	"topic.closed":   text("cerrado"),
	"topic.no_deal":  text("acuerdo imposible"),
	"topic.test":     text("prueba"),
	"topic.invite":   text("invitación"),

	// A member's role in an account.
	"role.owner":  text("propietario"),
	"role.admin":  text("administrador"),
	"role.member": text("miembro"),

	// The mail inviting a person to join an account: who invites, the
	// account's name, the role (role.<role>), the link's expiry.
	"member_invite.subject": text("%[1]s le invita a unirse a %[2]s en Taasky"),
	"member_invite.heading": text("Únase a %[1]s en Taasky"),
	"member_invite.intro":   text("%[1]s le invita a unirse a %[2]s como %[3]s. Los miembros conectan sus agentes de IA a Taasky y confirman lo que acuerdan sus agentes."),
	"member_invite.action":  text("Aceptar la invitación"),
	"member_invite.expires": text("El enlace funciona una sola vez y caduca el %[1]s."),
	"member_invite.sign_in": text("Inicie sesión con %[1]s para aceptar: la invitación es para esa dirección."),
	"member_invite.why":     text("%[1]s dio su dirección a Taasky para invitarle. No se le enviará nada más salvo que le vuelvan a invitar."),

	// A note on a room's timeline that is not a move.
	"note.member_left": text("%[1]s ya no es miembro de la cuenta: sus propietarios responden ahora a las confirmaciones de esta parte."),

	// for_your_human: the room in plain text, for an agent to show its human.
	"human.title":          text("Negociación: %[1]q (palabras de quien invita)."),
	"human.draft":          text("Esperando a que la otra parte acepte la invitación."),
	"human.your_turn":      text("Es el turno de su parte."),
	"human.their_turn":     text("Esperando a la otra parte."),
	"human.agreed":         text("ACORDADO: ambas partes confirmaron las condiciones siguientes."),
	"human.closed":         text("Cerrada (%[1]s). No se acordó nada."), // closed.<reason>
	"human.deadline":       text("Plazo: %[1]s."),
	"human.options.yours":  text("Opciones propuestas por su parte (hay que elegir una):"),
	"human.options.theirs": text("Opciones propuestas por la otra parte (hay que elegir una):"),
	"human.terms.yours":    text("Condiciones propuestas por su parte:"),
	"human.terms.theirs":   text("Condiciones propuestas por la otra parte:"),
	"human.option":         text("%[1]s:"), // card.option
	"human.their_field":    text("%[1]s (campo de la otra parte)"),
	"human.not_given":      text("no indicado"),
	"human.their_words":    text("%[1]s (sus palabras)"),
	"human.outside":        text("FUERA DE SUS LÍMITES; confirmar lo acepta de todos modos"),
	"human.no_deal_field":  text("no es posible un acuerdo en este campo"),
	"human.confirm":        text("Se necesita su confirmación para %[1]s."), // ask.<verdict>
	"human.confirm_where":  text("Se le envió un enlace; también puede responder en el panel."),

	// Values that are words, in a card: a yes/no field.
	"value.true":  text("sí"),
	"value.false": text("no"),

	// Where a delivery went, and what became of it (jobs' Channel, Status).
	"channel.email":   text("correo electrónico"),
	"channel.push":    text("Web Push"),
	"status.queued":   text("en cola"),
	"status.sent":     text("enviado"),
	"status.retrying": text("reintentando"),
	"status.failed":   text("fallido"),
	"status.skipped":  text("omitido"),
	"status.gone":     text("eliminado"),

	// The regions of the time-zone picker (the IANA name's first part).
	"region.utc":        text("Universal"),
	"region.africa":     text("África"),
	"region.america":    text("América"),
	"region.antarctica": text("Antártida"),
	"region.arctic":     text("Ártico"),
	"region.asia":       text("Asia"),
	"region.atlantic":   text("Océano Atlántico"),
	"region.australia":  text("Australia"),
	"region.europe":     text("Europa"),
	"region.indian":     text("Océano Índico"),
	"region.pacific":    text("Océano Pacífico"),

	// A time zone a browser told that does not exist.
	"zone.unknown": text("time_zone: %[1]q no es un nombre de zona horaria IANA como Europe/Madrid."),

	// Every page's frame.
	"layout.skip":       text("Saltar al contenido"),
	"layout.nav":        text("Principal"),
	"layout.rooms":      text("Salas"),
	"layout.waiting":    text("esperando a un humano"),
	"layout.settings":   text("Ajustes"),
	"layout.sign_out":   text("Cerrar sesión"),
	"layout.zone_offer": text("Las horas se muestran en UTC."),
	"layout.zone_use":   text("Mostrarlas en"), // followed by the browser's zone
	"layout.signed_in":  text("Sesión iniciada como %[1]s · horas en %[2]s"),
	"layout.tagline":    text("Taasky: su agente negocia, usted acuerda."),
	"layout.copy":       text("Copiar"),
	"layout.copied":     text("Copiado"),

	// The signed-out home page.
	"welcome.heading":    text("Su agente negocia. Usted acuerda."),
	"welcome.lead":       text("En Taasky, los agentes de IA de dos personas acuerdan condiciones —una hora de reunión, un lugar, unos honorarios— y solo sus humanos pueden decir que sí. Cada aceptación la confirma usted, en una ficha que muestra exactamente lo que acepta."),
	"welcome.sign_in":    text("Iniciar sesión"),
	"welcome.invited":    text("¿Le ha invitado alguien? Abra el enlace de invitación que recibió: no necesita una cuenta para responder."),
	"signed_out.heading": text("Ha cerrado la sesión"),
	"signed_out.text":    text("Su sesión en este navegador ha terminado."),
	"signed_out.again":   text("Volver a iniciar sesión"),

	// The error page.
	"error.title":    text("Algo no va bien"),
	"error.back":     text("Volver a Taasky"),
	"error.too_many": text("Demasiadas solicitudes"),
	"error.try_again": plural.Selectf(1, "%d",
		"one", "Llegaron demasiadas solicitudes desde su red. Inténtelo de nuevo en %[1]d segundo.",
		"other", "Llegaron demasiadas solicitudes desde su red. Inténtelo de nuevo en %[1]d segundos."),

	// A card on a page.
	"card.label":          text("Condiciones sobre la mesa"),
	"card.new_schema_tag": text("Esquema nuevo."),
	"card.options": plural.Selectf(1, "%d",
		"one", "%[1]d opción:",
		"other", "%[1]d opciones para elegir:"),
	"card.outside":        text("Fuera de sus límites: aprobarlo es aceptarlo de todos modos."),
	"card.not_said":       text("sus condiciones no lo indican"),
	"card.hash_summary":   text("Huella de estas condiciones"),
	"card.hash_explained": text("Los agentes identifican exactamente estas condiciones con este subject_hash:"),
	"card.pick":           text("Elegir esta"),
	"card.pick_option":    text("Elegir la %[1]s"), // card.option
	"card.approve":        text("Aprobar"),

	// A room's timeline.
	"timeline.heading": text("Historial"),
	"timeline.yours":   text("Su parte"),
	"timeline.theirs":  text("La otra parte"),
	"timeline.round":   text("ronda %[1]d"),
	"timeline.about":   text("sobre:"), // followed by field names
	"timeline.empty":   text("Aún no se ha propuesto nada."),

	// What a person can answer, on any page.
	"answer.decline":       text("No confirmar"),
	"answer.propose_else":  text("Proponer otra cosa"),
	"answer.send_proposal": text("Enviar mi propuesta"),

	// The form generated from a schema.
	"form.optional": text("(opcional)"),
	"form.from":     text("Desde"),
	"form.to":       text("Hasta"),
	"form.zone":     text("Zona horaria"),
	"form.none":     text("(ninguno)"),
	"form.choose":   text("Elegir…"),
	"form.amount":   text("Importe"),
	"form.currency": text("Moneda"),
	"form.repeated": text("Varios valores: rellene tantas filas como necesite; las filas vacías se omiten."),

	// The list of rooms.
	"rooms.heading":        text("Sus salas"),
	"rooms.filter":         text("Filtrar salas"),
	"rooms.filter_all":     text("Todas"),
	"rooms.filter_waiting": text("Esperando a un humano"),
	"rooms.filter_live":    text("En curso"),
	"rooms.filter_agreed":  text("Acordadas"),
	"rooms.filter_closed":  text("Cerradas"),
	"rooms.untitled":       text("Sala %[1]s"),
	"rooms.start_heading":  text("Empiece con una cuenta"),
	"rooms.start_text":     text("Aún no pertenece a ninguna cuenta. Cree una para usted o su equipo y conecte un agente; o abra el enlace de una invitación que haya recibido."),
	"rooms.create_account": text("Crear una cuenta"),
	"rooms.none_here":      text("No hay salas aquí."),
	"rooms.none_yet":       text("Aún no hay salas. Cuando su agente abra una negociación o se una a ella, aparecerá aquí."),
	"rooms.first_page":     text("Primera página"),
	"rooms.next_page":      text("Página siguiente"),

	// A room's page, for an account's member.
	"room.side_with":          text("%[1]s (parte %[2]s) con %[3]s"),
	"room.side_waiting":       text("%[1]s (parte %[2]s), esperando respuesta a la invitación"),
	"room.round":              text("ronda %[1]s"), // the round's number, marked up
	"room.deadline":           text("plazo"),
	"room.answered_by_you":    text("Responde usted"),
	"room.answered_by_owners": text("Responden los propietarios de la cuenta"),
	"room.answered_by":        text("Responde %[1]s"),
	"room.agreed":             text("Acordado: ambos humanos aprobaron las mismas condiciones."),
	"room.answer_marked":      text("Su respuesta se refiere a las condiciones marcadas abajo."),
	"room.owners_answer":      text("El humano de esta parte dejó la cuenta: responden sus propietarios; usted puede seguirlo."),
	"room.theirs_to_answer":   text("Le corresponde responder a %[1]s (su agente se lo pidió); usted puede seguirlo."),
	"room.tabled_by_you":      text("Propuestas por su parte."),
	"room.tabled_by":          text("Propuestas por %[1]s, mostradas con sus palabras."),
	"room.no_terms":           text("No hay condiciones sobre la mesa."),
	"room.limits":             text("Sus límites"),
	"room.limits_private":     text("(solo usted los ve)"),

	// The page of a one-tap link.
	"onetap.title":          text("Confirmar: %[1]s"), // the room's title
	"onetap.title_untitled": text("Confirmar: una negociación"),
	"onetap.with":           text("Con %[1]s"),
	"onetap.with_person":    text("Con una persona sin cuenta, invitada por correo o enlace"),
	"onetap.deadline":       text("Plazo:"),
	"onetap.nothing_yet":    text("Abrir esta página no cambió nada; solo estos botones responden."),
	"onetap.not_waiting":    text("Esta confirmación ya no le espera."),
	"onetap.used":           text("Este enlace se usó el %[1]s. Cada enlace funciona una sola vez."),
	"onetap.room_state":     text("Estado de la sala: %[1]s."),
	"onetap.open":           text("Abrir Taasky"),

	// The invitation page, for a person without an account.
	"invite.title":          text("Invitación de %[1]s"),
	"invite.heading":        text("%[1]s le invita a llegar a un acuerdo"),
	"invite.heading_titled": text("%[1]s le invita a llegar a un acuerdo: %[2]s"), // the title, their words
	"invite.title_theirs":   text("El título es de %[1]s."),
	"invite.answer_by":      text("Responda antes del"),
	"invite.your_tap":       text("Su clic es su respuesta: nadie responde por usted."),
	"invite.pick_heading":   text("Elija la que le convenga"),
	"invite.their_proposal": text("Su propuesta"),
	"invite.preapproved":    text("%[1]s ya aceptó cualquiera de estas: su elección lo decide."),
	"invite.decline":        text("Rechazar la invitación"),
	"invite.no_terms":       text("%[1]s aún no ha propuesto condiciones. Únase ahora y vuelva cuando lo haya hecho."),
	"invite.join":           text("Unirse"),

	// A person's own page in a negotiation (their seat).
	"seat.title":         text("Su respuesta a %[1]s"),
	"seat.answer_in":     text("Su respuesta está registrada."),
	"seat.keep_link":     text("Guarde su enlace personal para volver a esta negociación:"),
	"seat.with":          text("Con %[1]s"),
	"seat.agreed":        text("Acordado: ambos aprobaron las mismas condiciones."),
	"seat.your_proposal": text("Su propuesta"),
	"seat.no_terms":      text("Aún no hay condiciones sobre la mesa."),
	"seat.reject":        text("Rechazar y cerrar"),
	"seat.waiting":       text("Esperando a %[1]s. Esta página se actualiza sola."),
	"seat.leave":         text("Abandonar esta negociación"),
	"seat.leave_button":  text("Abandonar y cerrar"),
	"seat.link":          text("Su enlace personal:"),

	// The delivery log.
	"log.heading":       text("Registro de envíos"),
	"log.intro":         text("Cada notificación que Taasky le envió o intentó enviarle, y las invitaciones que sus agentes le pidieron enviar por correo, de la más reciente a la más antigua. Un intento fallido se repite con una espera creciente."),
	"log.pages":         text("Páginas"),
	"log.newest":        text("Más recientes"),
	"log.older":         text("Más antiguos"),
	"log.nothing_older": text("Nada más antiguo."),
	"log.nothing_yet":   text("Aún no se le ha enviado nada."),
	"log.not_set_up":    text("Las notificaciones no están configuradas en este servidor."),
	"log.when":          text("Cuándo"),
	"log.what":          text("Qué"),
	"log.channel":       text("Canal"),
	"log.to":            text("A"),
	"log.status":        text("Estado"),
	"log.attempts":      text("Intentos"),
	"log.error":         text("Error"),

	// The page that stops email notices.
	"unsubscribe.heading":       text("¿Dejar de recibir avisos por correo?"),
	"unsubscribe.what":          text("Taasky dejará de enviarle por correo recordatorios, acuerdos, salas cerradas y avisos de «acuerdo imposible»."),
	"unsubscribe.done_heading":  text("Los avisos por correo están desactivados"),
	"unsubscribe.done":          text("Taasky ya no enviará a %[1]s recordatorios, acuerdos, salas cerradas ni avisos de «acuerdo imposible»."),
	"unsubscribe.requests_stay": text("Las solicitudes de confirmación siguen llegando: su agente no puede actuar sin usted, así que nunca se cancelan con un enlace."),
	"unsubscribe.settings":      text("Puede elegirlo todo en %[1]s."), // a link to Settings
	"unsubscribe.button":        text("Dejar de recibir avisos por correo"),

	// The page that refuses further invitations to an address.
	"refuse.heading":      text("¿Rechazar las invitaciones a %[1]s?"),
	"refuse.what":         text("Taasky no enviará a esta dirección ninguna otra invitación a negociar, la pida quien la pida. Las invitaciones que ya tiene siguen funcionando."),
	"refuse.button":       text("Rechazar más invitaciones"),
	"refuse.done_heading": text("No más invitaciones"),
	"refuse.done":         text("Taasky no enviará ninguna otra invitación a %[1]s."),
	"refuse.invalid":      text("Este enlace no es válido: abra el del correo de invitación."),

	// The settings page.
	"settings.done.revoked":        text("Se revocó la clave: ya no funciona."),
	"settings.done.zone":           text("Se guardó su zona horaria."),
	"settings.done.language":       text("Se guardó su idioma."),
	"settings.done.notify":         text("Se guardaron sus preferencias de notificación."),
	"settings.done.push_on":        text("Este navegador recibirá sus notificaciones."),
	"settings.done.push_off":       text("Se quitó el dispositivo: ya no recibe notificaciones."),
	"settings.done.push_test":      text("Una notificación de prueba va camino de sus dispositivos: el registro de envíos de abajo indica cómo fue."),
	"settings.done.disconnected":   text("Se desconectó el agente: sus tokens ya no funcionan."),
	"settings.done.push_nothing":   text("No hay ningún dispositivo al que enviar una prueba: active primero las notificaciones en este navegador."),
	"settings.key_ready":           text("%[1]s está listo"),
	"settings.key_give":            text("Dé a su agente esta URL de MCP y esta clave."),
	"settings.key_once":            text("La clave se muestra solo esta vez: cópiela ahora."),
	"settings.mcp_url":             text("URL de MCP"),
	"settings.key":                 text("Clave"),
	"settings.key_header":          text("El agente la envía en la cabecera %[1]s."),
	"settings.account_you_are":     text("(%[1]s, usted es %[2]s)"), // role.<role>
	"settings.account_mcp":         text("URL de MCP para los agentes de esta cuenta: %[1]s"),
	"settings.members":             text("Miembros"),
	"settings.members_invitations": text("Miembros e invitaciones"),
	"settings.account_settings":    text("Ajustes de la cuenta y registro de auditoría"),
	"settings.agent_owner":         text("de %[1]s"),
	"settings.agent_orphan":        text("su humano dejó la cuenta: sus claves están revocadas"),
	"settings.oauth_connected":     text("Conectado con OAuth por %[1]s"),
	"settings.oauth_disconnected":  text("Desconectado el %[1]s, lo había conectado %[2]s"),
	"settings.last_used":           text("último uso el %[1]s"),
	"settings.never_used":          text("nunca usado"),
	"settings.disconnect":          text("Desconectar"),
	"settings.disconnect_agent":    text("Desconectar %[1]s"),
	"settings.revoked":             text("revocada"),
	"settings.since":               text("desde el %[1]s"),
	"settings.revoke":              text("Revocar"),
	"settings.revoke_key":          text("Revocar la clave %[1]s"),
	"settings.another_key":         text("Emitir otra clave"),
	"settings.no_agents":           text("Aún no hay agentes."),
	"settings.agent_name":          text("Nombre del nuevo agente"),
	"settings.agent_name_example":  text("p. ej. Mi asistente de agenda"),
	"settings.create_agent":        text("Crear agente"),
	"settings.no_account":          text("Aún no es miembro de ninguna cuenta. %[1]s, o abra el enlace de una invitación que haya recibido."),
	"settings.zone_heading":        text("Zona horaria"),
	"settings.zone_label":          text("Las fichas, plazos y mensajes se muestran en"),
	"settings.zone_search":         text("Buscar zonas horarias"),
	"settings.zone_browser":        text("Su navegador indica"),
	"settings.zone_use":            text("Usarla"),
	"settings.save":                text("Guardar"),
	"settings.language_heading":    text("Idioma"),
	"settings.language_label":      text("Taasky le habla en"),
	"settings.language_auto":       text("El idioma de su navegador"),
	"settings.notify_heading":      text("Notificaciones"),
	"settings.notify_intro":        text("Cuando su agente necesita que confirme un paso, Taasky se lo dice al instante; los avisos le cuentan cómo terminan sus negociaciones."),
	"settings.by_email":            text("Por correo a %[1]s"),
	"settings.email_requests":      text("Solicitudes de confirmación (con un enlace de un clic)"),
	"settings.email_notices":       text("Avisos: recordatorios antes de un plazo, acuerdo (con una entrada de calendario), cierre, acuerdo imposible"),
	"settings.push_legend":         text("En sus dispositivos (Web Push)"),
	"settings.push_requests":       text("Solicitudes de confirmación"),
	"settings.push_notices":        text("Avisos"),
	"settings.push_no_device":      text("Las opciones de Web Push aparecerán aquí cuando se notifique a un navegador (abajo)."),
	"settings.requests_wait":       text("Si desactiva las solicitudes en todas partes, le seguirán esperando en la página de sus salas: su agente no puede actuar sin usted."),
	"settings.push_heading":        text("Web Push"),
	"settings.push_needs_js":       text("Activar las notificaciones en un navegador requiere JavaScript: esta página lo hace con un botón cuando se ejecuta su script."),
	"settings.push_on":             text("Notificarme en este navegador"),
	"settings.push_off":            text("Dejar de notificar a este navegador"),
	"settings.a_browser":           text("Un navegador"),
	"settings.this_browser":        text("este navegador"),
	"settings.last_notified":       text("última notificación el %[1]s"),
	"settings.send_test":           text("Enviar una prueba"),
	"settings.remove":              text("Quitar"),
	"settings.send_test_all":       text("Enviar una prueba a todos los dispositivos"),
	"settings.no_device":           text("Ningún dispositivo recibe aún sus notificaciones."),
	"settings.server_key":          text("Clave del servidor"),
	"settings.server_key_text":     text("Los navegadores se suscriben con esta clave pública VAPID:"),
	"settings.push_not_configured": text("Web Push no está configurado en este servidor (necesita %[1]s y %[2]s): las notificaciones llegan solo por correo."),
	"push_js.unsupported":          text("Este navegador no puede recibir notificaciones Web Push aquí."),
	"push_js.needs_https":          text("Este navegador no puede recibir notificaciones Web Push aquí (necesita https)."),
	"push_js.on":                   text("Este navegador recibe sus notificaciones."),
	"push_js.off":                  text("Este navegador no recibe sus notificaciones."),
	"push_js.blocked":              text("Las notificaciones están bloqueadas para este sitio en este navegador: permítalas en los ajustes del sitio y vuelva."),
	"push_js.failed":               text("No funcionó:"),
	"settings.whole_log":           text("El registro completo"),
	"settings.notify_not_set_up":   text("Las notificaciones no están configuradas en este servidor: las solicitudes de confirmación le esperan en la página de sus salas."),

	// The OAuth consent page: an assistant asks to become the person's agent.
	"consent.title":            text("Conectar %[1]s"),
	"consent.heading":          text("¿Conectar %[1]s a Taasky?"),
	"consent.asks":             text("%[1]s pide negociar en su nombre."),
	"consent.asks_in":          text("%[1]s pide negociar en su nombre en la cuenta %[2]s."),
	"consent.agent":            text("Será su agente: podrá abrir negociaciones, unirse a ellas, responder en ellas y pedirle que confirme."),
	"consent.still_yours":      text("Cada aprobación, rechazo y retirada sigue necesitando su confirmación, aquí o desde una notificación."),
	"consent.client":           text("Cliente"),
	"consent.answer_to":        text("Su respuesta va a"),
	"consent.new_client":       text("Este cliente es nuevo en Taasky: nadie lo ha conectado antes. Conéctelo solo si acaba de añadir Taasky a su asistente usted mismo."),
	"consent.host_differs":     text("Su respuesta va a %[1]s, no a %[2]s, de donde el cliente dice venir. Es lo habitual en una aplicación de su ordenador; si no, rechácelo."),
	"consent.account":          text("Para la cuenta"),
	"consent.connect":          text("Conectar %[1]s"),
	"consent.decline":          text("Rechazar"),
	"consent.disconnect_later": text("Puede desconectarlo en cualquier momento en Ajustes → Agentes: deja de funcionar al instante."),

	// Emails (subject, heading, intro, why the recipient gets it) and
	// their parts; "in" names the room inside a sentence.
	"mail.subject":               text("%[1]s — %[2]s"), // what, about what
	"mail.about_with":            text("negociación con %[1]s"),
	"mail.about_yours":           text("su negociación"),
	"mail.in_with":               text(" en «%[1]s» con %[2]s"),
	"mail.in":                    text(" en «%[1]s»"),
	"mail.with":                  text(" con %[1]s"),
	"mail.your_agent":            text("Su agente"),
	"mail.your_agent_named":      text("Su agente, %[1]s,"),
	"mail.review":                text("Revisar y responder"),
	"mail.open_room":             text("Abrir la sala"),
	"mail.the_room":              text("La sala:"),
	"mail.calendar":              text("La hora acordada va adjunta como entrada de calendario (invite.ics)."),
	"mail.stop":                  text("Dejar de recibir estos avisos"),
	"mail.settings":              text("Ajustes de notificación"),
	"mail.request.intro":         text("%[1]s le pide %[2]s%[3]s."), // agent, ask.<verdict>, in
	"mail.request.why":           text("Su agente no puede dar este paso sin usted. El enlace muestra primero las condiciones; no pasa nada hasta que pulse un botón."),
	"mail.reminder.subject":      text("Recordatorio: su respuesta está pendiente"),
	"mail.reminder.heading":      text("Su respuesta sigue pendiente"),
	"mail.reminder.intro":        text("%[1]s le pidió %[2]s%[3]s."),
	"mail.reminder.deadline":     text("El plazo vence el %[1]s (%[2]s); si nadie acuerda antes, la sala se cierra."), // until.*
	"mail.reminder.why":          text("Un recordatorio antes del plazo de una confirmación que aún no ha respondido."),
	"mail.agreed.heading":        text("Acordado"),
	"mail.agreed.intro":          text("Acordado%[1]s: ambos aprobaron estas condiciones."),
	"mail.agreed.why":            text("Un aviso: una de sus negociaciones terminó en acuerdo."),
	"mail.closed.heading":        text("Cerrada"),
	"mail.closed.intro":          text("La negociación%[1]s está cerrada: %[2]s."), // in, closed.<reason>
	"mail.closed.why":            text("Un aviso: una de sus negociaciones terminó sin acuerdo."),
	"mail.no_deal.subject":       text("Acuerdo imposible sobre %[1]s"),
	"mail.no_deal.heading":       text("Acuerdo imposible"),
	"mail.no_deal.intro":         text("No es posible un acuerdo%[1]s sobre %[2]s: sus límites y los de la otra parte no se solapan. Ninguna parte compartió sus cifras con la otra."),
	"mail.no_deal.why":           text("Un aviso: Taasky compara una vez los límites de ambas partes, cuando la otra parte se une."),
	"mail.invite.someone":        text("Alguien"),
	"mail.invite.subject":        text("%[1]s le invita a negociar"),
	"mail.invite.subject_titled": text("%[1]s le invita a negociar «%[2]s»"),
	"mail.invite.heading":        text("%[1]s le invita"),
	"mail.invite.intro":          text("El agente de %[1]s quiere acordar unas condiciones con usted. Abra la invitación para ver su propuesta: puede responder en el navegador (elegir, aprobar, contraofertar o rechazar) o dar el enlace a un agente propio."),
	"mail.invite.intro_titled":   text("El agente de %[1]s quiere acordar «%[2]s» con usted. Abra la invitación para ver su propuesta: puede responder en el navegador (elegir, aprobar, contraofertar o rechazar) o dar el enlace a un agente propio."),
	"mail.invite.action":         text("Ver la invitación"),
	"mail.invite.expires":        text("La invitación caduca el %[1]s si nadie la responde."),
	"mail.invite.zone":           text("Aquí las horas están en UTC; la invitación las muestra en su propia zona horaria."),
	"mail.invite.refuse":         text("Rechazar cualquier otra invitación a esta dirección"),
	"mail.invite.why":            text("%[1]s dio su dirección a Taasky al abrir esta negociación. No se le enviará nada más salvo que responda."),
	"mail.test.subject":          text("Notificación de prueba de Taasky"),
	"mail.test.heading":          text("Funciona"),
	"mail.test.intro":            text("Este dispositivo mostrará las solicitudes de confirmación de Taasky."),

	// Push notifications: the title, and a count of options in the body.
	"push.request":  text("%[1]s le pide %[2]s"), // agent, ask.<verdict>
	"push.reminder": text("Sigue pendiente: %[1]s"),
	"push.options": plural.Selectf(1, "%d",
		"one", "%[1]d opción",
		"other", "%[1]d opciones"),

	// A calendar entry's description (.ics): the exact agreed moments.
	"ics.agreed":      text("Acordado en Taasky."),
	"ics.agreed_with": text("Acordado en Taasky con %[1]s."),
	"ics.range":       text("%[1]s: de %[2]s a %[3]s"),

	// Webhooks
	"webhook.disabled.subject": text("Se desactivó un webhook de %[1]s"),
	"webhook.disabled.heading": text("Se desactivó un webhook"),
	"webhook.disabled.intro": text("Taasky no pudo entregar a %[1]s durante tres días, así que dejó de enviar allí los webhooks de %[2]s. " +
		"Los eventos desde entonces están en el registro de envíos; no se envía nada hasta que se vuelva a activar el punto de destino."),
	"webhook.disabled.last":   text("El último intento: %[1]s."),
	"webhook.disabled.action": text("Abrir los webhooks"),
	"webhook.disabled.why":    text("Usted es propietario de %[1]s en Taasky; sus propietarios reciben aviso cuando un webhook se detiene."),

	// Account deletion
	"party.deleted_account":        text("una cuenta eliminada"),
	"account_delete.heading":       text("Eliminar la cuenta"),
	"account_delete.intro":         text("La eliminación de la cuenta no se puede deshacer. De inmediato:"),
	"account_delete.rooms":         text("se cierra cada negociación abierta y se informa a la otra parte de que esta cuenta fue eliminada;"),
	"account_delete.access":        text("deja de funcionar toda clave de agente, todo asistente conectado y toda sesión de miembro;"),
	"account_delete.erased":        text("se borran la parte de la cuenta en cada sala (sus agentes, sus límites, sus notas), sus miembros, invitaciones, registro de auditoría y registro de envíos, y también cada miembro que no pertenece a ninguna otra cuenta, con sus ajustes y dispositivos;"),
	"account_delete.kept":          text("la otra parte conserva su copia de cada sala, incluidas las acordadas, y ve este lado como «una cuenta eliminada»."),
	"account_delete.export_first":  text("Para conservar una copia, descargue primero la exportación de arriba."),
	"account_delete.confirm_label": text("Escriba el identificador de la cuenta, %[1]s, para confirmar"),
	"account_delete.button":        text("Eliminar la cuenta"),
	"account_delete.done_title":    text("La cuenta fue eliminada"),
	"account_delete.done_rooms":    text("Sus negociaciones abiertas se cerraron y se informó a las otras partes. Sus claves y sesiones ya no funcionan."),
	"account_delete.done_back":     text("Volver a sus salas"),
	"account_delete.done_erased":   text("No pertenecía a ninguna otra cuenta, así que también se borró lo que Taasky guardaba sobre usted."),
	"account_delete.done_signup":   text("Crear una cuenta nueva"),
	"topic.member_invite":          text("invitación a unirse a la cuenta"),
	"request.handed_over":          text("El miembro que respondía por este agente ya no está en la cuenta: como propietario, ahora responde usted por él."),

	// Failover
	"failover.retry": text("Taasky está cambiando a su base de datos de reserva. Vuelva a intentarlo en unos segundos: lo que se procesó se conserva y nada se hace dos veces."),

	// Receipts
	"receipt.heading":            text("Comprobante del acuerdo"),
	"receipt.intro":              text("Taasky firmó un comprobante de este acuerdo: quién aceptó qué condiciones y cómo confirmó cada parte. Cualquiera puede verificarlo."),
	"receipt.download":           text("Descargar el comprobante (archivo .jws)"),
	"receipt.print":              text("Comprobante imprimible"),
	"receipt.verify_at":          text("Verifique un comprobante en %[1]s"),
	"receipt.room":               text("Sala %[1]d: %[2]s (palabras de quien invita)"),
	"receipt.room_untitled":      text("Sala %[1]d"),
	"receipt.agreed_at":          text("Acordado %[1]s."),
	"receipt.side_a":             text("La parte que abrió la sala"),
	"receipt.side_b":             text("La parte que se unió"),
	"receipt.account":            text("Cuenta: %[1]s"),
	"receipt.no_account":         text("Una persona que respondió a la invitación sin cuenta"),
	"receipt.confirmed_by":       text("Confirmado por %[1]s %[2]s, %[3]s."), // name, receipt.channel.*, moment
	"receipt.confirmed":          text("Confirmado %[1]s, %[2]s."),           // receipt.channel.*, moment
	"receipt.preapproved":        text("Esta parte confirmó de antemano que cualquiera de las opciones ofrecidas le parecía bien."),
	"receipt.channel.dashboard":  text("en el panel de Taasky"),
	"receipt.channel.email":      text("con un enlace de un toque desde un correo"),
	"receipt.channel.push":       text("con un enlace de un toque desde una notificación push"),
	"receipt.channel.invitation": text("en la página de invitación"),
	"receipt.terms":              text("Condiciones acordadas"),
	"receipt.subject_hash":       text("Huella de las condiciones (subject_hash): %[1]s"),
	"receipt.log":                text("El registro de la sala: %[1]d eventos encadenados hasta el hash de cabeza %[2]s"),
	"receipt.issued":             text("Emitido %[1]s por %[2]s con la clave %[3]s."),
	"verify.heading":             text("Verificar un comprobante de Taasky"),
	"verify.intro":               text("Pegue un comprobante (el texto de un archivo .jws) o suba el archivo. No se guarda nada de lo que envía."),
	"verify.paste":               text("Comprobante"),
	"verify.upload":              text("O suba el archivo"),
	"verify.submit":              text("Verificar"),
	"verify.empty":               text("Pegue un comprobante o elija su archivo."),
	"verify.valid":               text("Válido: %[1]s firmó este comprobante y nada en él cambió desde entonces."),
	"verify.invalid":             text("No válido: %[1]s"),
	"verify.problem.malformed":   text("esto no es un comprobante de Taasky (%[1]s)."),
	"verify.problem.foreign":     text("lo emitió otro servicio (%[1]s)."),
	"verify.problem.unknown_key": text("se firmó con una clave que este servicio no publica (%[1]s)."),
	"verify.problem.tampered":    text("se modificó después de firmarse."),
	"receipt.attached":           text("Se adjunta el comprobante firmado de este acuerdo (%[1]s): cualquiera puede verificarlo en %[2]s."),
	"verify.offline":             text("Para verificarlo sin esta página: taasky receipt verify ARCHIVO --jwks %[1]s"),
}
