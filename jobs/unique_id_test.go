package jobs

import (
	"strings"
	"testing"
	"time"
)

// TestMessageIDsOutliveTheDatabase: the same job in the same database
// keeps its Message-ID; the same job number in another database
// (recreated, staging), or made again after a restore, gets another.
func TestMessageIDsOutliveTheDatabase(t *testing.T) {
	at := time.Date(2026, 10, 12, 9, 0, 0, 123456000, time.UTC)
	d := Delivery{Notice: Notice{Topic: TopicAgreed}, JobID: 42, JobCreatedAt: at, Channel: ChannelEmail}
	id := messageID(d, "6f1c0a52-0d0e-4f4e-9d6b-1d2f3a4b5c6d")
	if id != messageID(d, "6f1c0a52-0d0e-4f4e-9d6b-1d2f3a4b5c6d") {
		t.Fatal("a retry got another Message-ID")
	}
	if !strings.HasPrefix(id, "taasky.email.") || !strings.HasSuffix(id, ".agreed") || strings.Contains(id, ".42.") || len(id) != len("taasky.email..agreed")+26 {
		t.Fatalf("Message-ID %q", id)
	}
	staging := messageID(d, "0b7e4d3c-2a19-4c8e-8f00-aa11bb22cc33")
	restored := d
	restored.JobCreatedAt = at.Add(time.Microsecond)
	if staging == id || messageID(restored, "6f1c0a52-0d0e-4f4e-9d6b-1d2f3a4b5c6d") == id {
		t.Fatal("another database's job 42 has the same Message-ID")
	}
}
