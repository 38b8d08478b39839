package app

import (
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/taasky/taasky/negotiation"
	"github.com/taasky/taasky/notify"
)

var roomLink = regexp.MustCompile(`/rooms/(\d+)`)

// BenchmarkRespondToSMTP measures the time from an agent's respond call
// (RequestConfirmation: the move's transaction with its jobs) to the SMTP
// server accepting the human's email, at 50 calls per second, with the
// production settings (jobs.FetchCooldown, 20 workers). Each iteration
// is one call; run it with a count of calls:
//
//	go test ./app -run '^$' -bench RespondToSMTP -benchtime 1000x
//
// It reports p50, p99 and max in milliseconds.
func BenchmarkRespondToSMTP(b *testing.B) {
	nb := setupNotifyWith(b, false)
	type call struct {
		room  int64
		token string
		hash  string
	}
	calls := make([]call, b.N)
	for i := range calls {
		ta, tb := nb.openJoinedB(b)
		v, err := nb.rooms.Propose(nb.ctx, nb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "20.00")})
		if err != nil {
			b.Fatal(err)
		}
		calls[i] = call{room: v.RoomID, token: tb, hash: string(v.TermsOnTable.Options[0].SubjectHash)}
	}
	base := len(nb.smtp.Mails())
	const rate = 50
	sent := make(map[int64]time.Time, b.N)
	b.ResetTimer()
	start := time.Now()
	for i, c := range calls {
		if wait := time.Until(start.Add(time.Duration(i) * time.Second / rate)); wait > 0 {
			time.Sleep(wait)
		}
		sent[c.room] = time.Now()
		if _, _, err := nb.rooms.RequestConfirmation(nb.ctx, nb.b, c.token, "approve", negotiation.SubjectHash(c.hash)); err != nil {
			b.Fatal(err)
		}
	}
	mails := nb.smtp.Wait(b, base+b.N, time.Minute)
	b.StopTimer()
	var lat []float64
	for _, m := range mails[base:] {
		p, err := notify.Parse(m.Data)
		if err != nil {
			b.Fatal(err)
		}
		id, _ := strconv.ParseInt(roomLink.FindStringSubmatch(p.Text)[1], 10, 64)
		if at, ok := sent[id]; ok {
			lat = append(lat, float64(m.AcceptedAt.Sub(at))/float64(time.Millisecond))
		}
	}
	if len(lat) != b.N {
		b.Fatalf("%d latencies for %d calls", len(lat), b.N)
	}
	slices.Sort(lat)
	q := func(p float64) float64 { return lat[min(len(lat)-1, int(p*float64(len(lat))))] }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
	b.ReportMetric(lat[len(lat)-1], "max-ms")
	b.ReportMetric(0, "ns/op") // the pacing, not the work, sets the time per call
}

// openJoinedB opens a room by a and joins it by b.
func (nb *notifyBundle) openJoinedB(b *testing.B) (string, string) {
	open, err := nb.rooms.Open(nb.ctx, nb.a, OpenInput{Schema: meetingSchema})
	if err != nil {
		b.Fatal(err)
	}
	j, err := nb.rooms.Join(nb.ctx, nb.b, JoinInput{InviteCode: open.InviteCode, Schema: meetingSchema})
	if err != nil {
		b.Fatal(err)
	}
	return open.RoomToken, j.RoomToken
}
