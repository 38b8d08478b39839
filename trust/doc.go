// Package trust holds the suites that attack Taasky's promises and report
// figures: races through the real HTTP endpoints, crashes of the real
// binary, bad input, limit secrecy, tenant isolation, the human gate and
// abuse. It has no code of its own: everything is in its tests.
//
// Run the small sizes (what CI runs) with
//
//	go test ./trust/
//
// and the full sizes with
//
//	go test ./trust/ -trust.full -timeout 60m -v
//
// With -race (as the README's command and CI run them), the `taasky serve`
// processes the suites start are built with the race detector too, and a
// race in one's output fails its test.
//
// docs/security.md lists each promise, the test that backs it and its
// latest figures.
package trust
