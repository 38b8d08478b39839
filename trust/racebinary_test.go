//go:build race

package trust

// Under the race detector (the README's `go test -race`), `taasky serve`
// is built with it too, so the suites' crashes, failovers and kills look
// for data races in the binary's failure paths, not only the tests'.
func init() { raceBinary = true }
