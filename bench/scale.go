package bench

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
)

// ScaleOptions measures the two lists at two sizes: negotiation_list (over
// MCP) and the dashboard's rooms list (the service call behind the page).
type ScaleOptions struct {
	Sizes []int // rooms in one account, e.g. 1000 and 100000
	Calls int   // calls measured per list and size
	// Seed writes n rooms between a and b (app.Rooms.SeedRooms on the
	// server's keys).
	Seed func(ctx context.Context, a, b app.Agent, n int) (string, error)
	// HumanList lists the rooms of a user's accounts, as the dashboard does.
	HumanList func(ctx context.Context, userID int64, cursor string) (string, error)
}

// scaleWarmUp is how many calls of each list go untimed before the measure.
const scaleWarmUp = 20

// Scale seeds a pair of accounts per size and measures both lists there.
func Scale(ctx context.Context, o Options, so ScaleOptions) error {
	pool, err := pgxpool.New(ctx, o.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	accounts := app.NewAccounts(pool)
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	base := o.URL
	fmt.Fprintf(o.Out, "\nLists at scale (%d calls each):\n", so.Calls)
	for _, n := range so.Sizes {
		lat := &Latencies{}
		run := randomHex(3)
		var agents [2]app.Agent
		var keys [2]string
		for i, side := range []string{"a", "b"} {
			slug := fmt.Sprintf("scale-%s-%s", run, side)
			if _, err := accounts.CreateAccount(ctx, slug, slug, slug+"@bench.test"); err != nil {
				return err
			}
			ag, key, err := accounts.CreateAgent(ctx, slug, "agent", slug+"@bench.test")
			if err != nil {
				return err
			}
			agents[i], keys[i] = ag, key.Key
		}
		start := time.Now()
		if _, err := so.Seed(ctx, agents[0], agents[1], n); err != nil {
			return fmt.Errorf("seed %d rooms: %w", n, err)
		}
		fmt.Fprintf(o.Out, "  seeded %d rooms in %s\n", n, time.Since(start).Round(time.Millisecond))
		// A bulk load leaves what rooms grown one by one never have: no
		// statistics, no visibility map, hint bits to set on first read, a
		// checkpoint's worth of WAL. Settle it as autovacuum and the
		// checkpointer would (CHECKPOINT needs a superuser: tried, not required).
		if _, err := pool.Exec(ctx, "VACUUM (ANALYZE) rooms, parties, room_events"); err != nil {
			return err
		}
		_, _ = pool.Exec(ctx, "CHECKPOINT")
		agent, err := Connect(ctx, base+"/mcp/"+agents[0].AccountSlug, keys[0], tr, lat, nil)
		if err != nil {
			return err
		}
		// Warm up (prepared statements, plans, cache) without timing.
		warm := &Latencies{}
		for range scaleWarmUp {
			if err := agent.CallWith(ctx, warm, "negotiation_list", map[string]any{}, nil); err != nil {
				return err
			}
			if _, err := so.HumanList(ctx, agents[0].OwnerUserID, ""); err != nil {
				return fmt.Errorf("dashboard list: %w", err)
			}
		}
		var deep string
		for i := range so.Calls {
			var page struct {
				NextCursor string `json:"next_cursor"`
			}
			if err := agent.Call(ctx, "negotiation_list", map[string]any{}, &page); err != nil {
				return err
			}
			if i == 0 {
				deep = page.NextCursor
			}
			t0 := time.Now()
			if _, err := so.HumanList(ctx, agents[0].OwnerUserID, ""); err != nil {
				return fmt.Errorf("dashboard list: %w", err)
			}
			lat.Add("dashboard rooms list", time.Since(t0))
		}
		agent.Close()
		// A later page costs the same as the first (keyset), timed apart.
		later := &Latencies{}
		agent, err = Connect(ctx, base+"/mcp/"+agents[0].AccountSlug, keys[0], tr, later, nil)
		if err != nil {
			return err
		}
		for range so.Calls / 4 {
			if err := agent.Call(ctx, "negotiation_list", map[string]any{"cursor": deep}, nil); err != nil {
				return err
			}
		}
		agent.Close()
		lat.by["negotiation_list, page 2"] = later.by["negotiation_list"]
		names, sums := lat.Summaries()
		for _, name := range names {
			fmt.Fprintf(o.Out, "  %7d rooms  %-26s %s\n", n, name, sums[name])
		}
	}
	return nil
}
