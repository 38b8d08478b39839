// Package dashboard is the humans' door to Taasky: OpenID Connect login,
// the rooms of a user's accounts (live over server-sent events), a room's
// timeline and confirmation card, one-tap confirmation pages, the
// invitation page where a person without an agent answers in the browser,
// and settings (agents and their keys, time zone).
//
// Pages are server-rendered html/template views, embedded with their
// static files, and work without JavaScript; the embedded script only
// enhances (live updates, countdowns, copy buttons, time zone detection).
// Every form is CSRF-protected and every response carries a strict
// Content-Security-Policy.
//
// It decides nothing: the service (package app, through the interfaces in
// service.go) does, and its *app.Error messages are shown as they are.
// It must not touch the database or the protocol's state itself.
package dashboard
