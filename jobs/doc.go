// Package jobs holds Taasky's River job arguments and their workers:
// delivering notifications (email and Web Push, one job per recipient and
// channel), emailing the invitation an agent asked for at the open, and the
// sweep (one periodic job) that closes the rooms whose invitation expired
// or whose deadline passed and reminds of confirmations still pending
// before the deadline; and finishing an account's deletion after its
// owner's request (closing its rooms in batches, then erasing it).
//
// Deliveries are inserted by the service in the same transaction as the
// move that causes them (InsertManyTx), so a committed move never loses its
// job and a rolled-back one causes none. What falls due by time needs no
// job of its own: the sweep finds it in the database. Workers call the
// service through the small interfaces declared here; every job is safe to
// run late or twice.
package jobs
