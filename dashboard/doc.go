// Package dashboard is the humans' door to Taasky: OpenID Connect login,
// the rooms of a user's accounts (live over server-sent events), a room's
// timeline and confirmation card, one-tap confirmation pages, the
// invitation page where a person without an agent answers in the browser,
// settings (agents and their keys, time zone, notification channels, Web
// Push devices, the delivery log), the List-Unsubscribe page, the push
// service worker (/sw.js), and, for operators only, the job queue's UI
// (/admin/jobs) that the caller hands it.
//
// Pages are server-rendered html/template views, embedded with their
// static files, and work without JavaScript; the embedded script only
// enhances (live updates, countdowns, copy buttons, time zone detection,
// and Web Push, which browsers allow only from a script).
// Every form is CSRF-protected (but POST /unsubscribe/{token}, which mail
// clients send as RFC 8058 one-click) and every page carries a strict
// Content-Security-Policy (the River UI, a script application, a looser
// one of its own).
//
// It decides nothing: the service (package app, through the interfaces in
// service.go) does, and its *app.Error messages are shown as they are.
// It must not touch the database or the protocol's state itself.
package dashboard
