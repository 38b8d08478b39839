package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The lists and the sweep must stay fast for every tenant, whatever the
// others' sizes. A prepared statement is planned once for every tenant
// (after five runs PostgreSQL may keep a generic plan, costed without the
// parameters' values), so these tests force the generic plan and read it:
// each statement must go through its index, with every condition of the
// tenant in the index's conditions, never a scan of a whole table nor a
// walk of a primary key through the other tenants' rows. The executed plan
// must read no row it then throws away.

// skew is the seeded database: a tenant pair with many rooms, one with few.
type skew struct {
	big, small [2]Agent // sides a and b
}

// seedSkew seeds big rooms between the first pair and small between the
// second, the small tenant's rooms first (lower ids: a walk from the
// newest room down meets every big room before them). A third of the big
// rooms wait for a confirmation whose reminder is far ahead, the others
// are live with deadlines far ahead: none is due. The rows are written
// with INSERT … SELECT; the rooms are not replayable (no log).
func seedSkew(t testing.TB, rb *roomsBundle, big, small int) *skew {
	t.Helper()
	acc := NewAccounts(rb.pool)
	agent := func(slug string) Agent {
		email := slug + "@example.test"
		if _, err := acc.CreateAccount(rb.ctx, slug, strings.ToUpper(slug), email); err != nil {
			t.Fatal(err)
		}
		a, _, err := acc.CreateAgent(rb.ctx, slug, "agent", email)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	sk := &skew{big: [2]Agent{rb.a, rb.b}, small: [2]Agent{agent("gamma"), agent("delta")}}
	far := time.Date(2027, 6, 1, 0, 0, 0, 0, time.UTC)
	seed := func(pair [2]Agent, n int, tag string) {
		exec := func(sql string, args ...any) {
			t.Helper()
			if _, err := rb.pool.Exec(rb.ctx, sql, args...); err != nil {
				t.Fatalf("seed %s: %v\n%s", tag, err, sql)
			}
		}
		exec(`INSERT INTO rooms (account_id, invite_code_hash, title, state, round, turn, deadline, expires_at, seq, snapshot, opened_at, updated_at)
			SELECT $1, sha256(convert_to($3 || g, 'UTF8')), $3, 'awaiting', 1, 'b', $4::timestamptz + g * interval '1 second',
			       $4::timestamptz - interval '1 day', 3, '', now(), now()
			FROM generate_series(1, $2) g`, pair[0].AccountID, n, tag, far)
		exec(`INSERT INTO parties (room_id, side, account_id, agent_id, owner_user_id, token_hash, token_salt, limits_enc, schema_fp, joined_at)
			SELECT r.id, s.side, s.account_id, s.agent_id, s.owner, sha256(convert_to(s.side || r.id, 'UTF8')), '\x00', '\x00', 'fp', now()
			FROM rooms r CROSS JOIN (VALUES ('a', $2::bigint, $3::bigint, $4::bigint), ('b', $5, $6, $7)) AS s (side, account_id, agent_id, owner)
			WHERE r.title = $1`, tag, pair[0].AccountID, pair[0].ID, pair[0].OwnerUserID, pair[1].AccountID, pair[1].ID, pair[1].OwnerUserID)
		exec(`INSERT INTO confirmations (room_id, id, side, verdict, status, requested_at, remind_at)
			SELECT id, 'cf_' || id, 'b', 'reject', 'pending', now(), $2::timestamptz - interval '1 day'
			FROM rooms WHERE title = $1 AND id % 3 = 0`, tag, far)
		exec(rerank(`rooms`, pendingInTable, `r.title = $1`), tag) // the ranks, as a move writes them
	}
	start := time.Now()
	seed(sk.small, small, "small")
	seed(sk.big, big, "big")
	t.Logf("seeded %d and %d rooms in %s", big, small, time.Since(start))
	if _, err := rb.pool.Exec(rb.ctx, `ANALYZE`); err != nil {
		t.Fatal(err)
	}
	return sk
}

// planNode is a node of EXPLAIN (FORMAT JSON)'s plan.
type planNode struct {
	Type       string     `json:"Node Type"`
	Relation   string     `json:"Relation Name"`
	Index      string     `json:"Index Name"`
	IndexCond  string     `json:"Index Cond"`
	Filter     string     `json:"Filter"`
	ActualRows float64    `json:"Actual Rows"`
	Removed    float64    `json:"Rows Removed by Filter"`
	Plans      []planNode `json:"Plans"`
}

func (n *planNode) walk(f func(*planNode)) {
	f(n)
	for i := range n.Plans {
		n.Plans[i].walk(f)
	}
}

func (n *planNode) String() string {
	var b strings.Builder
	var show func(n *planNode, depth int)
	show = func(n *planNode, depth int) {
		fmt.Fprintf(&b, "%s%s %s %s cond=%q filter=%q rows=%v removed=%v\n", strings.Repeat("  ", depth), n.Type,
			n.Relation, n.Index, n.IndexCond, n.Filter, n.ActualRows, n.Removed)
		for i := range n.Plans {
			show(&n.Plans[i], depth+1)
		}
	}
	show(n, 0)
	return b.String()
}

// genericPlan prepares sql on a connection of its own, forces its generic
// plan, and returns the plan of running it with args (analyze: run it, and
// count the rows each node read).
func genericPlan(t *testing.T, ctx context.Context, pool *pgxpool.Pool, sql string, analyze bool, args ...any) *planNode {
	t.Helper()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET plan_cache_mode = force_generic_plan`); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = conn.Exec(ctx, `RESET plan_cache_mode`) }()
	if _, err := conn.Conn().Prepare(ctx, "planned", sql); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Conn().Deallocate(ctx, "planned") }()
	// EXPLAIN takes no parameters of its own: the values go in as literals,
	// and EXECUTE still runs the statement's generic plan, its conditions
	// naming the parameters ($n), not the values.
	var literals []string
	for _, a := range args {
		switch v := a.(type) {
		case time.Time:
			literals = append(literals, "'"+v.UTC().Format(time.RFC3339Nano)+"'")
		case string:
			literals = append(literals, "'"+strings.ReplaceAll(v, "'", "''")+"'")
		case []byte:
			literals = append(literals, fmt.Sprintf(`'\x%x'::bytea`, v))
		case []int64:
			literals = append(literals, "'{"+strings.Trim(strings.Join(strings.Fields(fmt.Sprint(v)), ","), "[]")+"}'")
		default:
			literals = append(literals, fmt.Sprint(v))
		}
	}
	opts := "FORMAT JSON"
	if analyze {
		opts = "ANALYZE, FORMAT JSON"
	}
	var out []byte
	if err := conn.QueryRow(ctx, `EXPLAIN (`+opts+`) EXECUTE planned (`+strings.Join(literals, ", ")+`)`).Scan(&out); err != nil {
		t.Fatal(err)
	}
	var plans []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal(out, &plans); err != nil || len(plans) != 1 {
		t.Fatalf("EXPLAIN: %v %s", err, out)
	}
	return &plans[0].Plan
}

// bigTables are the tables that grow with use: none may be read whole.
var bigTables = map[string]bool{"rooms": true, "parties": true, "party_ranks": true, "confirmations": true, "room_events": true}

// requirePlan checks the plan's scans: no whole big table, no walk of a
// primary key named in noWalk, the index want used with every condition
// in conds among its index conditions, and (analyzed) no row read only to
// be thrown away by a filter, and at most maxRows rows from any scan.
func requirePlan(t *testing.T, name string, plan *planNode, want string, conds []string, noWalk []string, maxRows float64) {
	t.Helper()
	used := false
	plan.walk(func(n *planNode) {
		if strings.Contains(n.Type, "Seq Scan") && bigTables[n.Relation] {
			t.Errorf("%s: a Seq Scan of %s", name, n.Relation)
		}
		for _, pk := range noWalk {
			if n.Index == pk && !strings.Contains(n.IndexCond, " = ") {
				t.Errorf("%s: walks %s (cond %q)", name, pk, n.IndexCond)
			}
		}
		if n.Index == want {
			used = true
			for _, c := range conds {
				if !strings.Contains(n.IndexCond, c) {
					t.Errorf("%s: %s's condition %q lacks %q", name, want, n.IndexCond, c)
				}
			}
		}
		if strings.Contains(n.Type, "Scan") && n.Index != "" {
			if n.Removed > 0 {
				t.Errorf("%s: %s read %v rows its filter %q threw away", name, n.Index, n.Removed, n.Filter)
			}
			if maxRows > 0 && n.ActualRows > maxRows {
				t.Errorf("%s: %s read %v rows, want at most %v", name, n.Index, n.ActualRows, maxRows)
			}
		}
	})
	if !used {
		t.Errorf("%s: %s not used", name, want)
	}
	if t.Failed() {
		t.Logf("%s, generic plan:\n%s", name, plan)
	}
}

// TestListPlans: negotiation_list's and the dashboard's lists, and the
// sweep's three reads, each by its index under the generic plan, for the
// small tenant beside a big one, and for the big one.
func TestListPlans(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	sk := seedSkew(t, rb, 30000, 30)
	ctx := rb.ctx
	const limit = ListPage + 1 // as the lists ask, to know whether a page follows
	for _, c := range []struct {
		name  string
		agent Agent
	}{{"small tenant", sk.small[0]}, {"small tenant, side b", sk.small[1]}, {"big tenant", sk.big[0]}} {
		plan := genericPlan(t, ctx, rb.pool, summariesByAgentSQL, true, c.agent.AccountID, c.agent.ID, int64(1<<62), limit)
		requirePlan(t, "negotiation_list, "+c.name, plan, "parties_agent_newest",
			[]string{"account_id = $1", "agent_id = $2", "(- room_id) > (- $3)"}, []string{"parties_pkey", "rooms_pkey", "confirmations_pkey", "confirmations_one_pending"}, limit)

		after := listCursor{rank: 0}
		plan = genericPlan(t, ctx, rb.pool, humanSummariesSQL, true, c.agent.OwnerUserID, RankWaitingForYou, RankClosed,
			after.rank, after.key, after.room, after.side, limit, []int64{c.agent.AccountID}, []int64{})
		requirePlan(t, "dashboard list, "+c.name, plan, "party_ranks_account",
			[]string{"account_id = "}, []string{"party_ranks_pkey", "parties_pkey", "rooms_pkey"}, limit)
	}
	now := time.Date(2026, 10, 12, 10, 0, 0, 0, time.UTC)
	plan := genericPlan(t, ctx, rb.pool, dueRoomsSQL, true, now, 200)
	requirePlan(t, "due rooms", plan, "rooms_due", []string{"<= COALESCE($1, statement_timestamp())"}, []string{"rooms_pkey"}, 1)
	plan = genericPlan(t, ctx, rb.pool, dueRemindersSQL, false, now, 200)
	requirePlan(t, "due reminders", plan, "confirmations_remind", []string{"remind_at <= COALESCE($1, now())"}, []string{"confirmations_pkey"}, 0)
	plan = genericPlan(t, ctx, rb.pool, duePersonRemindersSQL, false, now, 200)
	requirePlan(t, "due person reminders", plan, "rooms_person_remind", []string{"person_remind_at <= COALESCE($1, now())"}, []string{"rooms_pkey"}, 0)
}

// TestReadSeatPlan: a read's statement, which runs before every move, finds
// the seat by its token and joins each party once and the human's row once
// (four probes besides the room's), under the generic plan, a kept view's
// seq skipping the log.
func TestReadSeatPlan(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ta, _ := rb.openJoined(t, OpenInput{}, "")
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	var seq int
	if err := rb.pool.QueryRow(rb.ctx, `SELECT r.seq FROM rooms r JOIN parties p ON p.room_id = r.id WHERE p.token_hash = $1`, secretHash(ta)).Scan(&seq); err != nil {
		t.Fatal(err)
	}
	plan := genericPlan(t, rb.ctx, rb.pool, seatSQLUnless, true, secretHash(ta), rb.a.AccountID, rb.a.OwnerUserID, seq)
	requirePlan(t, "read's seat", plan, "parties_token_hash_key", []string{"token_hash = $1"}, []string{"parties_pkey", "rooms_pkey"}, 2)
	scans, logRead := map[string]int{}, false
	plan.walk(func(n *planNode) {
		if strings.Contains(n.Type, "Scan") && n.Relation != "" {
			scans[n.Relation]++
		}
		logRead = logRead || n.Relation == "room_events" && n.ActualRows > 0
		if n.Index == "parties_token_hash_key" && n.ActualRows != 1 {
			t.Errorf("read's seat: the token found %v seats, want 1", n.ActualRows)
		}
	})
	if scans["parties"] != 2 || scans["users"] != 1 || scans["rooms"] != 1 || logRead {
		t.Errorf("read's seat scans %v (the log read: %v), want parties twice, users and rooms once, the kept view's log not read\n%s", scans, logRead, plan)
	}
}

// TestMoveSeatPlan: a move's statement, which locks the room, finds the
// seat by its token and joins each party once and the human's row once,
// under the generic plan; users is read twice, the human's row joined and
// both humans' addresses for the notices (moveCols).
func TestMoveSeatPlan(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ta, _ := rb.openJoined(t, OpenInput{}, "")
	if _, err := rb.rooms.Propose(rb.ctx, rb.a, ta, MoveInput{Verdict: "offer", Subject: meeting(10, "")}); err != nil {
		t.Fatal(err)
	}
	plan := genericPlan(t, rb.ctx, rb.pool, seatSQLLocked, true, secretHash(ta), rb.a.AccountID, rb.a.OwnerUserID)
	// No bound on the rows an index read: the log comes whole.
	requirePlan(t, "move's seat", plan, "parties_token_hash_key", []string{"token_hash = $1"}, []string{"parties_pkey", "rooms_pkey"}, 0)
	scans := map[string]int{}
	locked := false
	plan.walk(func(n *planNode) {
		if strings.Contains(n.Type, "Scan") && n.Relation != "" {
			scans[n.Relation]++
		}
		locked = locked || n.Type == "LockRows"
		if n.Index == "parties_token_hash_key" && n.ActualRows != 1 {
			t.Errorf("move's seat: the token found %v seats, want 1", n.ActualRows)
		}
	})
	if scans["parties"] != 2 || scans["users"] != 2 || scans["rooms"] != 1 || !locked {
		t.Errorf("move's seat scans %v (locked: %v), want parties twice, users twice (the human, the recipients), rooms once, the room locked\n%s", scans, locked, plan)
	}
}

// TestForgetAddressesPlan: the retention's walks of the person's
// addresses, under the generic plan, beside 30,000 rooms without one: each
// goes through its partial index of migration 00029 (the rows with an
// address) from its cursor, a window at most, and meets the rooms and
// parties only by their primary keys; no table is read whole.
func TestForgetAddressesPlan(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	seedSkew(t, rb, 30000, 30)
	// 1,000 of them with a person's address and an invitation's, and three
	// mails to it; half agreed 40 days ago.
	old := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := rb.pool.Exec(rb.ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`UPDATE rooms SET invite_email = 'p' || id || '@example.test', state = CASE WHEN id % 60 = 0 THEN 'agreed' ELSE state END,
		updated_at = CASE WHEN id % 60 = 0 THEN $1 ELSE updated_at END WHERE id % 30 = 0`, old)
	exec(`UPDATE parties p SET person_email = r.invite_email, account_id = NULL, agent_id = NULL, owner_user_id = NULL
		FROM rooms r WHERE p.room_id = r.id AND p.side = 'b' AND r.invite_email IS NOT NULL`)
	exec(`INSERT INTO person_deliveries (room_id, job_id, channel, topic, recipient, status, created_at, updated_at)
		SELECT r.id, r.id * 10 + g, 'email', 'turn', r.invite_email, 'sent', $1, $1 FROM rooms r CROSS JOIN generate_series(1, 3) g
		WHERE r.invite_email IS NOT NULL`, old)
	exec(`ANALYZE`)
	before := old.Add(day)
	for _, c := range []struct {
		name, sql, index string
		locks            string // the window's first statement, for sql its second ("": sql is the first)
	}{{"seats' locks", forgetSeatAddressesLocksSQL, "parties_person_email", ""},
		{"seats", forgetSeatAddressesSQL, "parties_person_email", forgetSeatAddressesLocksSQL},
		{"invitations' locks", forgetInviteAddressesLocksSQL, "rooms_invite_email", ""},
		{"invitations", forgetInviteAddressesSQL, "rooms_invite_email", forgetInviteAddressesLocksSQL}} {
		for _, from := range []struct {
			key  string
			room int64
		}{{"", 0}, {"p15000@example.test", 15000}} {
			var last any = int32(addressLockClass)
			if c.locks != "" { // the window's ended rooms, as its first statement says them
				var gone []int64
				if err := pgx.BeginFunc(rb.ctx, rb.pool, func(tx pgx.Tx) error {
					return tx.QueryRow(rb.ctx, c.locks, from.key, from.room, forgetAddressWindowRows, before, last).Scan(&gone, new(int64))
				}); err != nil || len(gone) == 0 {
					t.Fatalf("%s: the window's ended rooms: %v %v", c.name, gone, err)
				}
				last = gone
			}
			plan := genericPlan(t, rb.ctx, rb.pool, c.sql, true, from.key, from.room, forgetAddressWindowRows, before, last)
			used := false
			plan.walk(func(n *planNode) {
				if strings.Contains(n.Type, "Seq Scan") && (bigTables[n.Relation] || n.Relation == "person_deliveries") {
					t.Errorf("%s: a Seq Scan of %s", c.name, n.Relation)
				}
				if (n.Index == "parties_pkey" || n.Index == "rooms_pkey") && !strings.Contains(n.IndexCond, " = ") {
					t.Errorf("%s: walks %s (cond %q)", c.name, n.Index, n.IndexCond)
				}
				if strings.Contains(n.Type, "Scan") && n.Index != "" && n.ActualRows > forgetAddressWindowRows+1 {
					t.Errorf("%s: %s read %v rows, want a window at most", c.name, n.Index, n.ActualRows)
				}
				if n.Index == c.index {
					used = true
					if !strings.Contains(n.IndexCond, ">= $1") {
						t.Errorf("%s: %s starts at %q, not at the cursor", c.name, c.index, n.IndexCond)
					}
				}
			})
			if !used {
				t.Errorf("%s: %s not used", c.name, c.index)
			}
			if t.Failed() || testing.Verbose() {
				t.Logf("%s from %q, generic plan:\n%s", c.name, from.key, plan)
			}
		}
	}
}

// TestCapCountsPlan: the purge's statements of the caps' counts walk the
// accounts holding counts by the primary key, one probe an account, and
// take each account's old counts by its range, under the generic plan:
// beside thousands of accounts with a recent count each, and one with
// 50,000 old counts and as many recent ones.
func TestCapCountsPlan(t *testing.T) {
	t.Parallel()
	rb := setupRooms(t)
	ctx := rb.ctx
	now := rb.cfg.Now()
	if _, err := rb.pool.Exec(ctx, `INSERT INTO accounts (slug, name) SELECT 'skew-' || i, 'Skew' FROM generate_series(1, 3000) i`); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ table, key, sql string }{
		{"invite_emails", "room_id", purgeInviteCountsSQL},
		{"member_invite_emails", "invitation_id", purgeMemberInviteCountsSQL},
	} {
		if _, err := rb.pool.Exec(ctx, `INSERT INTO `+c.table+` (account_id, created_at, `+c.key+`)
			SELECT id, $1::timestamptz - interval '1 hour', id FROM accounts
			UNION ALL SELECT $2::bigint, $1::timestamptz - interval '30 hours' - make_interval(secs => i), i FROM generate_series(1, 50000) i
			UNION ALL SELECT $2::bigint, $1::timestamptz - make_interval(secs => i), -i FROM generate_series(1, 50000) i`, now, rb.a.AccountID); err != nil {
			t.Fatal(err)
		}
		if _, err := rb.pool.Exec(ctx, `ANALYZE `+c.table); err != nil {
			t.Fatal(err)
		}
		for _, after := range []int64{0, rb.a.AccountID} {
			plan := genericPlan(t, ctx, rb.pool, c.sql, true, after, purgeAccountsPerStatement, now.Add(-capCountsKept), purgePerAccount)
			requirePlan(t, fmt.Sprintf("%s after account %d", c.table, after), plan, c.table+"_pkey",
				[]string{"account_id"}, nil, purgePerAccount)
		}
	}
}
