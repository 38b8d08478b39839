package app

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/taasky/taasky/jobs"
)

// BenchmarkSweepNothingDue is one sweep (rooms, then reminders) when
// nothing is due, beside live rooms and pending confirmations that are not
// due: its cost must not grow with them (the partial indexes read only
// what is due). go test ./app -run '^$' -bench SweepNothingDue
func BenchmarkSweepNothingDue(b *testing.B) {
	for _, rooms := range []int{1000, 100000} {
		b.Run(fmt.Sprintf("live=%d", rooms), func(b *testing.B) {
			rb := setupRoomsB(b)
			seedSkew(b, rb, rooms, 30)
			svc, err := NewNotifications(NotificationsConfig{Pool: rb.pool, River: rb.rooms.river, Rooms: rb.rooms,
				UnsubscribeKey: bytes.Repeat([]byte{5}, 32)})
			if err != nil {
				b.Fatal(err)
			}
			rb.clock.Store(time.Date(2026, 10, 12, 10, 0, 0, 0, time.UTC).UnixNano())
			b.ResetTimer()
			for b.Loop() {
				if n, err := rb.rooms.CloseDue(rb.ctx, jobs.SweepBatch); err != nil || n != 0 {
					b.Fatal(n, err)
				}
				if n, err := svc.RemindDue(rb.ctx, jobs.SweepBatch); err != nil || n != 0 {
					b.Fatal(n, err)
				}
			}
		})
	}
}
