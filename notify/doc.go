// Package notify renders and delivers what Taasky tells a human: a request
// to confirm a move, a reminder before the deadline, a room agreed (with an
// .ics when the terms hold a time), closed, or with no deal possible.
//
// Channels are email over SMTP (text and HTML, github.com/wneessen/go-mail),
// a dev outbox that keeps mail instead of sending it, and Web Push (VAPID,
// RFC 8291, github.com/SherClockHolmes/webpush-go).
//
// A Message is filled in by the service from the recipient's own card: their
// labels, their time zone, flags of their own limits by bound name only. The
// package never sees a limit's value, so nothing it renders can hold one. It
// reads no database and knows nothing of River: jobs/ decides when to render
// and send, and retries.
package notify
