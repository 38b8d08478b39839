// Package jobs holds Taasky's River job arguments and their workers: closing
// rooms whose invitation expired or whose deadline passed, delivering
// notifications (email and Web Push, one job per recipient and channel),
// reminding of confirmations still pending before the deadline, and
// emailing the invitation an agent asked for at the open.
//
// Job args are inserted by the service in the same transaction as the move
// that causes them (InsertTx), so a committed move never loses its job and a
// rolled-back one causes none. Workers call the service through the small
// interfaces declared here; every job is safe to run late or twice.
package jobs
