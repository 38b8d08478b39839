// Package jobs holds Taasky's River job arguments and their workers: closing
// rooms whose invitation expired or whose deadline passed (and, to come,
// notification fan-out and reminders).
//
// Job args are inserted by the service in the same transaction as the move
// that causes them (InsertTx), so a committed move never loses its job and a
// rolled-back one causes none. Workers call the service through the small
// interfaces declared here; every job is safe to run late or twice.
package jobs
