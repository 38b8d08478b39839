package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
)

// TestSeedRooms: seeded rooms are real rooms: their tokens read them, the
// lists page through them, they move, and they replay.
func TestSeedRooms(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.New(t)
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	rooms, err := app.NewRooms(app.RoomsConfig{Pool: pool, River: rc, LimitsKey: bytes.Repeat([]byte{7}, 32),
		TokenKey: bytes.Repeat([]byte{9}, 32), BaseURL: "http://127.0.0.1:8080"})
	if err != nil {
		t.Fatal(err)
	}
	accounts := app.NewAccounts(pool)
	var agents [2]app.Agent
	for i, slug := range []string{"alpha", "beta"} {
		email := slug + "@example.test"
		if _, err := accounts.CreateAccount(ctx, slug, strings.ToUpper(slug), email); err != nil {
			t.Fatal(err)
		}
		if agents[i], _, err = accounts.CreateAgent(ctx, slug, "agent", email); err != nil {
			t.Fatal(err)
		}
	}
	a, b := agents[0], agents[1]

	last, err := SeedRooms(ctx, pool, rooms.NewSeatSecrets, a, b, 120)
	if err != nil {
		t.Fatal(err)
	}
	v, err := rooms.Read(ctx, a, last)
	if err != nil || v.State != "awaiting" || v.Round != 1 || v.TermsOnTable == nil {
		t.Fatalf("a seeded room reads: %v %+v", err, v)
	}
	page, _, err := rooms.List(ctx, b, nil, "")
	if err != nil || len(page) != app.ListPage {
		t.Fatalf("b lists the seeded rooms: %d %v", len(page), err)
	}
	// A seeded room is a real room: it moves, and replays.
	start := time.Now().Add(72 * time.Hour).UTC().Truncate(time.Hour)
	counter := json.RawMessage(`{"meeting_time":{"start":"` + start.Format(time.RFC3339) + `","end":"` +
		start.Add(30*time.Minute).Format(time.RFC3339) + `"},"fee":{"amount":"120","currency":"EUR"}}`)
	if _, err := rooms.Propose(ctx, b, page[0].RoomToken, app.MoveInput{Verdict: "counter", Subject: counter}); err != nil {
		t.Fatal(err)
	}
	rep, err := rooms.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rooms != 120 || len(rep.Differences) > 0 {
		t.Fatalf("check: %d of %d rooms differ from their replay:\n%s", len(rep.Differences), rep.Rooms, strings.Join(rep.Differences, "\n"))
	}
}
