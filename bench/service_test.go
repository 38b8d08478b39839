package bench

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"

	"github.com/taasky/taasky/app"
	"github.com/taasky/taasky/internal/pgtest"
	"github.com/taasky/taasky/mcpserver"
	"github.com/taasky/taasky/receipt"
)

// service is the Taasky service on a database of the test's own, with
// two accounts (alpha, beta), each with an agent.
type service struct {
	ctx    context.Context
	pool   *pgxpool.Pool
	rooms  *app.Rooms
	agents [2]app.Agent
	keys   [2]string
}

func newService(t *testing.T) *service {
	t.Helper()
	ctx := context.Background()
	pool := pgtest.New(t)
	rc, err := river.NewClient(riverpgxv5.New(pool), &river.Config{})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := receipt.NewKeyring("http://127.0.0.1:8080", 1, func(int) []byte { return bytes.Repeat([]byte{3}, 32) })
	if err != nil {
		t.Fatal(err)
	}
	rooms, err := app.NewRooms(app.RoomsConfig{Pool: pool, River: rc, LimitsKey: bytes.Repeat([]byte{7}, 32),
		TokenKey: bytes.Repeat([]byte{9}, 32), BaseURL: "http://127.0.0.1:8080", Receipts: keys})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rooms.Close) // before the pool closes: the last changes are announced
	s := &service{ctx: ctx, pool: pool, rooms: rooms}
	accounts := app.NewAccounts(pool)
	for i, slug := range []string{"alpha", "beta"} {
		email := slug + "@example.test"
		if _, err := accounts.CreateAccount(ctx, slug, strings.ToUpper(slug), email); err != nil {
			t.Fatal(err)
		}
		ag, key, err := accounts.CreateAgent(ctx, slug, "agent", email)
		if err != nil {
			t.Fatal(err)
		}
		s.agents[i], s.keys[i] = ag, key.Key
	}
	return s
}

// connect serves the service's MCP endpoint on 127.0.0.1 (once) and
// returns an MCP client session for each agent.
func (s *service) connect(t *testing.T) [2]*Agent {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	web := fiber.New(fiber.Config{DisableStartupMessage: true})
	mcpserver.New(s.rooms, "test").Mount(web, app.NewAccounts(s.pool))
	go func() { _ = web.Listener(ln) }()
	t.Cleanup(func() { _ = web.ShutdownWithTimeout(5 * time.Second) })
	var out [2]*Agent
	for i, ag := range s.agents {
		a, err := Connect(s.ctx, "http://"+ln.Addr().String()+"/mcp/"+ag.AccountSlug, s.keys[i], http.DefaultTransport, &Latencies{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Close)
		out[i] = a
	}
	return out
}

func (s *service) check(t *testing.T, rooms int) {
	t.Helper()
	rep, err := s.rooms.Check(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rooms != rooms || len(rep.Differences) > 0 {
		t.Fatalf("check: %d of %d rooms differ from their replay (want %d rooms):\n%s", len(rep.Differences), rep.Rooms, rooms, strings.Join(rep.Differences, "\n"))
	}
}
