package bench

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/taasky/taasky/app"
)

// ScaleOptions measures the two lists at two sizes: negotiation_list (over
// MCP) and the dashboard's rooms list (the service call behind the page).
type ScaleOptions struct {
	Sizes []int // rooms in one account, e.g. 1000 and 100000
	Calls int   // calls measured per list and size
	// Seats mints the seeded rooms' secrets with the server's keys
	// (app.Rooms.NewSeatSecrets), so that it can read them.
	Seats Seats
	// HumanList lists the rooms of a user's accounts, as the dashboard does.
	HumanList func(ctx context.Context, userID int64, cursor string) (string, error)
	// Due, if not 0, is how many more rooms to seed with deadlines falling
	// at DueRate a second once the lists are measured, beside every room
	// seeded before (their deadlines days away): how late the server's
	// sweep closes each is measured.
	Due int
}

// DueRate is how many seeded rooms fall due per second in the sweep's
// measure.
const DueRate = 200

// scaleWarmUp is how many calls of each list go untimed before the measure.
const scaleWarmUp = 20

// scaleRounds is how many rounds the sizes' calls alternate in.
const scaleRounds = 10

// scaleAccount is one size's pair of accounts, seeded.
type scaleAccount struct {
	n      int
	agents [2]app.Agent
	keys   [2]string
	agent  *Agent // side a's MCP client
	lat    *Latencies
	later  *Latencies // negotiation_list's later page
	deep   string     // the first page's cursor
}

// Scale seeds a pair of accounts per size, then measures both lists there
// with the sizes' calls alternating in rounds, so that what the machine
// does meanwhile (a checkpoint, autovacuum, another process) weighs on
// every size alike.
func Scale(ctx context.Context, o Options, so ScaleOptions) error {
	pool, err := pgxpool.New(ctx, o.DatabaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	accounts := app.NewAccounts(pool)
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	base := o.URL
	fmt.Fprintf(o.Out, "\nLists at scale (%d calls each, the sizes alternating in %d rounds):\n", so.Calls, scaleRounds)
	var sizes []*scaleAccount
	for _, n := range so.Sizes {
		sa := &scaleAccount{n: n, lat: &Latencies{}, later: &Latencies{}}
		run := randomHex(3)
		for i, side := range []string{"a", "b"} {
			slug := fmt.Sprintf("scale-%s-%s", run, side)
			if _, err := accounts.CreateAccount(ctx, slug, slug, slug+"@bench.test"); err != nil {
				return err
			}
			ag, key, err := accounts.CreateAgent(ctx, slug, "agent", slug+"@bench.test")
			if err != nil {
				return err
			}
			sa.agents[i], sa.keys[i] = ag, key.Key
		}
		start := time.Now()
		if _, err := SeedRooms(ctx, pool, so.Seats, sa.agents[0], sa.agents[1], n); err != nil {
			return fmt.Errorf("seed %d rooms: %w", n, err)
		}
		fmt.Fprintf(o.Out, "  seeded %d rooms in %s\n", n, time.Since(start).Round(time.Millisecond))
		sizes = append(sizes, sa)
	}
	// A bulk load leaves what rooms grown one by one never have: no
	// statistics, no visibility map, hint bits to set on first read, a
	// checkpoint's worth of WAL. Settle it as autovacuum and the
	// checkpointer would (CHECKPOINT needs a superuser: tried, not required).
	if _, err := pool.Exec(ctx, "VACUUM (ANALYZE) rooms, parties, party_ranks, room_events"); err != nil {
		return err
	}
	_, _ = pool.Exec(ctx, "CHECKPOINT")
	for _, sa := range sizes {
		if sa.agent, err = Connect(ctx, base+"/mcp/"+sa.agents[0].AccountSlug, sa.keys[0], tr, sa.lat, nil); err != nil {
			return err
		}
		defer sa.agent.Close()
		// Warm up (prepared statements, plans, cache) without timing.
		warm := &Latencies{}
		for range scaleWarmUp {
			if err := sa.agent.CallWith(ctx, warm, "negotiation_list", map[string]any{}, nil); err != nil {
				return err
			}
			if _, err := so.HumanList(ctx, sa.agents[0].OwnerUserID, ""); err != nil {
				return fmt.Errorf("dashboard list: %w", err)
			}
		}
	}
	for r := range scaleRounds {
		for _, sa := range sizes {
			for i := range so.Calls / scaleRounds {
				var page struct {
					NextCursor string `json:"next_cursor"`
				}
				if err := sa.agent.Call(ctx, "negotiation_list", map[string]any{}, &page); err != nil {
					return err
				}
				if r == 0 && i == 0 {
					sa.deep = page.NextCursor
				}
				t0 := time.Now()
				if _, err := so.HumanList(ctx, sa.agents[0].OwnerUserID, ""); err != nil {
					return fmt.Errorf("dashboard list: %w", err)
				}
				sa.lat.Add("dashboard rooms list", time.Since(t0))
			}
			// A later page costs the same as the first (keyset), timed apart.
			for range so.Calls / 4 / scaleRounds {
				if err := sa.agent.CallWith(ctx, sa.later, "negotiation_list", map[string]any{"cursor": sa.deep}, nil); err != nil {
					return err
				}
			}
		}
	}
	for _, sa := range sizes {
		sa.lat.by["negotiation_list, page 2"] = sa.later.by["negotiation_list"]
		names, sums := sa.lat.Summaries()
		for _, name := range names {
			fmt.Fprintf(o.Out, "  %7d rooms  %-26s %s\n", sa.n, name, sums[name])
		}
	}
	if so.Due > 0 {
		return sweepLateness(ctx, o, so, pool, accounts)
	}
	return nil
}

// sweepLateness seeds so.Due rooms whose deadlines fall at DueRate a
// second from a few seconds after they are written, waits for the last one
// and a margin, and says how long after its deadline the server closed
// each (the room's updated_at, which the closing move sets).
func sweepLateness(ctx context.Context, o Options, so ScaleOptions, pool *pgxpool.Pool, accounts *app.Accounts) error {
	var pair [2]app.Agent
	run := randomHex(3)
	for i, side := range []string{"a", "b"} {
		slug := fmt.Sprintf("due-%s-%s", run, side)
		if _, err := accounts.CreateAccount(ctx, slug, slug, slug+"@bench.test"); err != nil {
			return err
		}
		ag, _, err := accounts.CreateAgent(ctx, slug, "agent", slug+"@bench.test")
		if err != nil {
			return err
		}
		pair[i] = ag
	}
	var open int64
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM rooms WHERE state IN ('draft', 'awaiting')`).Scan(&open); err != nil {
		return err
	}
	start := time.Now().Add(5*time.Second + time.Duration(so.Due)*time.Millisecond) // after the seeding
	deadlines := make([]time.Time, so.Due)
	for i := range deadlines {
		deadlines[i] = start.Add(time.Duration(i) * time.Second / DueRate).UTC().Truncate(time.Millisecond)
	}
	if err := SeedDue(ctx, pool, so.Seats, pair[0], pair[1], deadlines); err != nil {
		return fmt.Errorf("seed rooms falling due: %w", err)
	}
	fmt.Fprintf(o.Out, "\nThe sweep: %d rooms falling due at %d/s beside %d open rooms:\n", so.Due, DueRate, open)
	time.Sleep(time.Until(deadlines[len(deadlines)-1].Add(10 * time.Second)))
	rows, err := pool.Query(ctx, `SELECT (extract(epoch FROM updated_at - deadline) * 1e6)::bigint
		FROM rooms WHERE account_id = $1 AND state = 'closed'`, pair[0].AccountID)
	if err != nil {
		return err
	}
	late, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (time.Duration, error) {
		var us int64
		err := r.Scan(&us)
		return time.Duration(us) * time.Microsecond, err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "  closed %d of %d within 10 s of the last deadline; how late: %s\n", len(late), so.Due, summarize(late))
	return nil
}
