package migrations_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// largeTables grow with the rooms, the people or what is sent to them: an
// installation's may hold millions of rows, and most of them are written
// by every move or sign-in. A migration holds such a table only for an
// instant (docs/operations.md, "Upgrading", has what each one took on
// 300,000 rooms under load).
var largeTables = map[string]bool{
	"rooms": true, "parties": true, "party_ranks": true, "room_events": true, "room_notes": true,
	"confirmations": true, "onetap_tokens": true, "receipts": true,
	"person_seats": true, "person_deliveries": true, "notification_deliveries": true,
	"webhook_messages": true, "webhook_attempts": true,
	"users": true, "memberships": true, "user_sessions": true, "audit_log": true, "limit_marks": true,
}

// scanFrom is the first migration held to the rules: the ones before were
// released before rolling upgrades of a populated database were described
// (00012 on) and measured (00025 on, 2026-12-06); an installation that
// upgrades from a build before 00025 reads docs/operations.md first.
const scanFrom = 25

// allowedHolds are statements the rules would refuse, each with why it is
// safe: "NNNNN: statement start" → why.
var allowedHolds = map[string]string{}

// volatileDefault: a column default that PostgreSQL evaluates per row,
// rewriting the table under an exclusive lock (a constant or now() is
// stored once in the catalog instead).
var volatileDefault = regexp.MustCompile(`(?i)\bdefault\s+[^,;]*\b(random|gen_random_uuid|uuid_generate_v[14]|clock_timestamp|timeofday|nextval)\s*\(`)

// TestMigrationsDoNotHoldLargeTables: a statement that scans or rewrites a
// large table under a lock that stops its moves (ACCESS EXCLUSIVE for an
// ALTER TABLE, SHARE for a plain CREATE INDEX) stops every agent's moves
// for as long as the table takes to read, and a plain CREATE INDEX on two
// tables deadlocked with opens (measured: 8 opens failed during 00029 on
// 300,000 rooms). So, on a large table a migration did not create itself:
//   - an index is built CONCURRENTLY, in a NO TRANSACTION migration;
//   - ADD COLUMN has no CHECK, REFERENCES, UNIQUE, PRIMARY KEY, GENERATED,
//     identity or volatile default (each scans or rewrites), nor NOT NULL
//     without a default (it fails on a populated table; NOT NULL DEFAULT
//     a constant is only a catalog change);
//   - ADD CONSTRAINT CHECK or FOREIGN KEY is NOT VALID, then validated by
//     VALIDATE CONSTRAINT in a NO TRANSACTION migration (it reads the table
//     under a lock that lets moves go on, unless the transaction already
//     holds the ALTER's);
//   - no SET NOT NULL, no ALTER COLUMN ... TYPE (a scan or a rewrite);
//   - an UPDATE or DELETE of it is not in the transaction of an ALTER
//     TABLE of it (which would hold every move until the UPDATE ends).
func TestMigrationsDoNotHoldLargeTables(t *testing.T) {
	t.Parallel()
	names, err := filepath.Glob("*.sql")
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, name := range names {
		v, err := strconv.Atoi(name[:5])
		if err != nil {
			t.Fatal(err)
		}
		if v < scanFrom {
			continue
		}
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range largeTableHolds(string(b)) {
			key := fmt.Sprintf("%05d: %s", v, p.stmt)
			if _, ok := allowedHolds[key]; ok {
				found++
				continue
			}
			t.Errorf("%s: %s\n\t%s", name, p.why, p.stmt)
		}
	}
	if found != len(allowedHolds) {
		t.Errorf("%d of the %d allowed holds were found: remove the ones no migration has", found, len(allowedHolds))
	}
}

// TestLargeTableHoldsFound: the rules find each statement the measure of
// 2026-12-06 found stopping moves, in the form it was released in, and
// pass the form each was rewritten to.
func TestLargeTableHoldsFound(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		up   string
		want string // "" when none
	}{
		{"-- +goose Up\nALTER TABLE rooms ADD COLUMN invite_email text\n    CHECK (invite_email = lower(invite_email));\n", "ADD COLUMN with CHECK"},
		{"-- +goose Up\nALTER TABLE onetap_tokens DROP CONSTRAINT onetap_tokens_stopped_check,\n    ADD CONSTRAINT onetap_tokens_stopped_check CHECK (stopped IN ('left'));\n", "without NOT VALID"},
		{"-- +goose Up\nCREATE INDEX parties_person_email ON parties (lower(person_email)) WHERE person_email IS NOT NULL;\n", "without CONCURRENTLY"},
		{"-- +goose Up\nCREATE UNIQUE INDEX IF NOT EXISTS x ON public.rooms (id);\n", "without CONCURRENTLY"},
		{"-- +goose Up\nCREATE INDEX CONCURRENTLY x ON rooms (id);\n", "NO TRANSACTION"},
		{"-- +goose Up\nALTER TABLE rooms ADD COLUMN a timestamptz;\nUPDATE rooms r SET a = r.updated_at WHERE r.state = 'awaiting';\n", "UPDATE of rooms in the transaction"},
		{"-- +goose Up\nALTER TABLE users ADD COLUMN k uuid DEFAULT gen_random_uuid();\n", "volatile default"},
		{"-- +goose Up\nALTER TABLE users ADD COLUMN n bigint GENERATED ALWAYS AS IDENTITY;\n", "ADD COLUMN with GENERATED"},
		{"-- +goose Up\nALTER TABLE users ALTER COLUMN language SET NOT NULL;\n", "SET NOT NULL"},
		{"-- +goose Up\nALTER TABLE parties ALTER COLUMN side TYPE varchar(1);\n", "ALTER COLUMN ... TYPE"},
		{"-- +goose Up\nALTER TABLE parties ADD CONSTRAINT f FOREIGN KEY (agent_id) REFERENCES agents (id);\n", "without NOT VALID"},
		{"-- +goose Up\nALTER TABLE users ADD CONSTRAINT c CHECK (x > 0) NOT VALID;\nALTER TABLE users VALIDATE CONSTRAINT c;\n", "VALIDATE CONSTRAINT in the transaction"},
		{"-- +goose Up\nALTER TABLE rooms ADD COLUMN u jsonb;\n-- +goose Down\nCREATE INDEX x ON rooms (u);\n", ""},
		{"-- +goose Up\nALTER TABLE users ADD COLUMN s text NOT NULL;\n", "ADD COLUMN with NOT NULL and no default"},
		{"-- +goose Up\nALTER TABLE users ADD COLUMN s text NOT NULL DEFAULT '';\n", ""},
		{"-- +goose Up\nALTER TABLE users ADD COLUMN s text DEFAULT 'x', ADD COLUMN t timestamptz DEFAULT now();\n", ""},
		{"-- +goose Up\nCREATE TABLE user_sessions (id bigint PRIMARY KEY, user_id bigint REFERENCES users (id));\nCREATE INDEX user_sessions_user ON user_sessions (user_id);\n", ""},
		{"-- +goose Up\nCREATE INDEX oauth_clients_ungranted ON oauth_clients (created_at);\n", ""},
		{"-- +goose NO TRANSACTION\n-- +goose Up\nALTER TABLE rooms ADD COLUMN IF NOT EXISTS a timestamptz;\nUPDATE rooms SET a = updated_at;\n" +
			"DROP INDEX CONCURRENTLY IF EXISTS x;\nCREATE INDEX CONCURRENTLY x ON rooms (a) WHERE a IS NOT NULL;\n" +
			"ALTER TABLE rooms DROP CONSTRAINT IF EXISTS c, ADD CONSTRAINT c CHECK (a > '2000-01-01') NOT VALID;\nALTER TABLE rooms VALIDATE CONSTRAINT c;\n", ""},
		{"-- +goose Up\n-- CREATE INDEX x ON rooms (id);\n-- +goose StatementBegin\nCREATE FUNCTION f() RETURNS void LANGUAGE sql AS $$ UPDATE rooms SET seq = seq $$;\n-- +goose StatementEnd\n", ""},
	} {
		holds := largeTableHolds(c.up)
		switch {
		case c.want == "" && len(holds) > 0:
			t.Errorf("%q: found %q, want none", c.up, holds[0].why)
		case c.want != "" && (len(holds) == 0 || !strings.Contains(holds[0].why, c.want)):
			t.Errorf("%q: found %v, want %q", c.up, holds, c.want)
		}
	}
}

type hold struct{ stmt, why string }

var (
	createTable  = regexp.MustCompile(`(?is)^create\s+(?:unlogged\s+)?table\s+(?:if\s+not\s+exists\s+)?(?:public\.)?(\w+)`)
	createIndex  = regexp.MustCompile(`(?is)^create\s+(?:unique\s+)?index\s+(concurrently\s+)?(?:if\s+not\s+exists\s+)?(?:\w+\s+)?on\s+(?:only\s+)?(?:public\.)?(\w+)`)
	alterTable   = regexp.MustCompile(`(?is)^alter\s+table\s+(?:if\s+exists\s+)?(?:only\s+)?(?:public\.)?(\w+)\s+(.*)$`)
	updateDelete = regexp.MustCompile(`(?is)^(?:update\s+(?:only\s+)?|delete\s+from\s+(?:only\s+)?)(?:public\.)?(\w+)`)
	addColumn    = regexp.MustCompile(`(?is)\badd\s+column\s+(?:if\s+not\s+exists\s+)?\w+\s+(.*)`)
	addChecked   = regexp.MustCompile(`(?is)\badd\s+constraint\s+\w+\s+(check|foreign\s+key)\b`)
	columnRule   = regexp.MustCompile(`(?i)\b(check|references|unique|primary\s+key|generated)\b`)
	notNull      = regexp.MustCompile(`(?i)\bnot\s+null\b`)
	hasDefault   = regexp.MustCompile(`(?i)\bdefault\b`)
	setNotNull   = regexp.MustCompile(`(?i)\balter\s+(?:column\s+)?\w+\s+set\s+not\s+null\b`)
	setType      = regexp.MustCompile(`(?i)\balter\s+(?:column\s+)?\w+\s+(?:set\s+data\s+)?type\b`)
	validate     = regexp.MustCompile(`(?i)\bvalidate\s+constraint\b`)
)

// largeTableHolds returns the statements of a migration's Up section that
// hold a large table too long. Function bodies (StatementBegin …
// StatementEnd) are not read: what they do runs when they are called.
func largeTableHolds(file string) []hold {
	noTx := false
	var up strings.Builder
	inUp, inBlock := false, false
	for _, line := range strings.Split(file, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "-- +goose NO TRANSACTION"):
			noTx = true
		case strings.HasPrefix(trimmed, "-- +goose Up"):
			inUp = true
		case strings.HasPrefix(trimmed, "-- +goose Down"):
			inUp = false
		case strings.HasPrefix(trimmed, "-- +goose StatementBegin"):
			inBlock = true
		case strings.HasPrefix(trimmed, "-- +goose StatementEnd"):
			inBlock = false
		case inUp && !inBlock:
			if i := strings.Index(line, "--"); i >= 0 {
				line = line[:i]
			}
			up.WriteString(line + "\n")
		}
	}
	created := map[string]bool{} // tables this migration creates: empty
	altered := map[string]bool{} // tables an ALTER TABLE of this transaction holds
	var out []hold
	for _, s := range strings.Split(up.String(), ";") {
		s = strings.Join(strings.Fields(s), " ")
		if s == "" {
			continue
		}
		add := func(why string) { out = append(out, hold{stmt: s, why: why}) }
		if m := createTable.FindStringSubmatch(s); m != nil {
			created[strings.ToLower(m[1])] = true
			continue
		}
		if m := createIndex.FindStringSubmatch(s); m != nil {
			table := strings.ToLower(m[2])
			switch {
			case !largeTables[table] || created[table]:
			case m[1] == "":
				add("CREATE INDEX without CONCURRENTLY on " + table + " stops its writes for the build")
			case !noTx:
				add("CREATE INDEX CONCURRENTLY needs -- +goose NO TRANSACTION")
			}
			continue
		}
		if m := updateDelete.FindStringSubmatch(s); m != nil {
			if table := strings.ToLower(m[1]); altered[table] && !noTx {
				add("UPDATE of " + table + " in the transaction of its ALTER TABLE holds every move on it until the UPDATE ends: -- +goose NO TRANSACTION")
			}
			continue
		}
		m := alterTable.FindStringSubmatch(s)
		if m == nil {
			continue
		}
		table, rest := strings.ToLower(m[1]), m[2]
		if !largeTables[table] || created[table] {
			continue
		}
		for _, clause := range splitClauses(rest) {
			if c := addColumn.FindStringSubmatch(clause); c != nil {
				if r := columnRule.FindString(c[1]); r != "" {
					add("ADD COLUMN with " + strings.ToUpper(r) + " on " + table + " reads or rewrites it under an exclusive lock: add the column bare, then the constraint NOT VALID and VALIDATE it")
				} else if volatileDefault.MatchString(clause) {
					add("ADD COLUMN with a volatile default rewrites " + table + " under an exclusive lock")
				} else if notNull.MatchString(c[1]) && !hasDefault.MatchString(c[1]) {
					add("ADD COLUMN with NOT NULL and no default fails on a populated " + table + " (and reads it under an exclusive lock)")
				}
			}
			if addChecked.MatchString(clause) && !strings.Contains(strings.ToLower(clause), "not valid") {
				add("ADD CONSTRAINT without NOT VALID reads " + table + " under an exclusive lock")
			}
			if setNotNull.MatchString(clause) {
				add("SET NOT NULL reads " + table + " under an exclusive lock")
			}
			if setType.MatchString(clause) {
				add("ALTER COLUMN ... TYPE rewrites " + table + " under an exclusive lock")
			}
			if validate.MatchString(clause) && altered[table] && !noTx {
				add("VALIDATE CONSTRAINT in the transaction of an ALTER TABLE of " + table + " reads it under the ALTER's exclusive lock: -- +goose NO TRANSACTION")
			}
		}
		altered[table] = true
	}
	return out
}

// splitClauses splits an ALTER TABLE's actions at the commas outside
// parentheses.
func splitClauses(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}
