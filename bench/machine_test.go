package bench

import (
	"crypto/sha256"
	"testing"
	"time"
)

// TestMachineUse: CPU the bench burns shows as its clients' CPU, and the
// machine's busy share is a share.
func TestMachineUse(t *testing.T) {
	before := ReadMachine()
	if before.Total == 0 {
		t.Fatalf("no reading: %+v", before)
	}
	// A fixed amount of work, not a wall-clock span: on a shared machine
	// 300 ms of wall time may hold a fifth of that of CPU. 600 MiB of
	// SHA-256 is 0.3 s of CPU or more on any machine here.
	b := make([]byte, 1<<20)
	for range 600 {
		sum := sha256.Sum256(b)
		b[0] = sum[0]
	}
	u := ReadMachine().Since(before)
	if u.Client < 100*time.Millisecond {
		t.Errorf("600 MiB of hashing counted %v of the clients' CPU", u.Client)
	}
	if u.Busy <= 0 || u.Busy > 1 {
		t.Errorf("busy share %.2f, want in (0, 1]", u.Busy)
	}
	if got := u.perCall(0); got != 0 {
		t.Errorf("per call of 0 calls: %v", got)
	}
}
