package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The store is one seam: in app/ the SQL lives in store_*.go files, and the
// packages around app hold none. The rule is checked on the code itself
// (go/parser), on every string literal of the non-test files.

// seamDirs are the directories checked, relative to app/; in app/ itself
// the store files may hold SQL.
var seamDirs = []string{".", "../dashboard", "../mcpserver", "../oauthserver", "../jobs", "../notify", "../negotiation"}

func TestSQLOnlyInStoreFiles(t *testing.T) {
	for _, dir := range seamDirs {
		names, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for _, name := range names {
			base := filepath.Base(name)
			if strings.HasSuffix(base, "_test.go") {
				continue
			}
			if dir == "." && (base == "store.go" || strings.HasPrefix(base, "store_")) {
				continue
			}
			checked++
			for _, hit := range sqlLiterals(t, name) {
				t.Errorf("%s: SQL outside the store (move it to a store_*.go file of app/): %s", hit.pos, hit.text)
			}
		}
		if checked == 0 {
			t.Errorf("%s: no Go files found to check", dir)
		}
	}
}

type sqlHit struct {
	pos  token.Position
	text string
}

// sqlLiterals parses a Go file and returns its string literals that look
// like SQL.
func sqlLiterals(t *testing.T, name string) []sqlHit {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("parse %s: %v", name, err)
	}
	var hits []sqlHit
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			t.Fatalf("%s: %v", fset.Position(lit.Pos()), err)
		}
		if looksLikeSQL(s) {
			text := strings.Join(strings.Fields(s), " ")
			if len(text) > 80 {
				text = text[:80] + "…"
			}
			hits = append(hits, sqlHit{fset.Position(lit.Pos()), strconv.Quote(text)})
		}
		return true
	})
	return hits
}

var (
	// sqlStatement starts a statement, in any case.
	sqlStatement = regexp.MustCompile(`(?i)^(select|insert|update|delete|with|listen|unlisten|notify|create|alter|drop|truncate|copy|merge|values)\b`)
	// sqlUpper is a statement's or a clause's keyword as SQL is written
	// here, upper case, anywhere in the text.
	sqlUpper = regexp.MustCompile(`\b(SELECT|INSERT INTO|DELETE FROM|UPDATE \w+( \w+)? SET|LISTEN|UNLISTEN|NOTIFY|TRUNCATE|ON CONFLICT|RETURNING|(CREATE|ALTER|DROP) (TABLE|INDEX|TRIGGER|FUNCTION))\b`)
	// sqlClause starts a fragment of a statement (upper case).
	sqlClause = regexp.MustCompile(`^(FROM|WHERE|(LEFT |RIGHT |INNER |CROSS )?JOIN|ORDER BY|GROUP BY|LIMIT|OFFSET|FOR (NO KEY )?UPDATE|FOR SHARE|AND|OR|SET|UNION|VALUES|WITH)\b`)
	// sqlSign is what a statement written in lower case also has: a
	// placeholder or a clause naming a table or a column.
	sqlSign = regexp.MustCompile(`(?i)\$\d|\b(from|into|set|where|returning|values)\s+[a-z_(]`)
	// goVerb marks an error's or a log's text ("select room: %w").
	goVerb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z]`)
)

// looksLikeSQL reports whether a string literal reads as SQL or as a piece
// of a statement: an upper-case keyword anywhere or an upper-case clause
// at its start; a statement keyword in any case at its start followed by
// a placeholder or a clause; or a statement keyword alone, to be followed
// by what is concatenated to it ("LISTEN ").
func looksLikeSQL(s string) bool {
	t := strings.TrimLeft(strings.TrimSpace(s), ",( \t\n")
	if t == "" {
		return false
	}
	if sqlUpper.MatchString(t) || sqlClause.MatchString(t) {
		return true
	}
	m := sqlStatement.FindString(t)
	if m == "" {
		return false
	}
	if t[len(m):] == "" {
		// The keyword alone: a statement's head when a space follows it
		// for what is concatenated ("listen " + name), not a word of a
		// sentence (" with ").
		return strings.HasPrefix(s, m) && len(s) > len(m) && strings.TrimSpace(s[len(m):]) == ""
	}
	return sqlSign.MatchString(t) && !goVerb.MatchString(t)
}

func TestLooksLikeSQL(t *testing.T) {
	for _, s := range []string{
		"SELECT 1",
		"  select id from rooms where id = 1",
		"insert into rooms (id) values (1)",
		"update rooms set seq = 2",
		"delete from parties",
		"WITH x AS (SELECT 1) SELECT * FROM x",
		"with x as (select 1) select * from x where true",
		"LISTEN ",
		"listen ",
		"NOTIFY taasky_room",
		"SELECT pg_notify($1, $2)",
		"\n\tLEFT JOIN parties p ON p.room_id = r.id",
		" FROM users WHERE id = $1",
		" FOR UPDATE OF r",
		",\n\tEXISTS (SELECT 1 FROM seen_schemas s)",
		"ORDER BY id",
		"Delete from rooms where id = $1",
		"CREATE TABLE x (id int)",
	} {
		if !looksLikeSQL(s) {
			t.Errorf("%q: not taken for SQL", s)
		}
	}
	for _, s := range []string{
		"",
		"select room: %w",
		"create account: %w",
		"set operator: %w",
		"insert invitation job: %w",
		"join",
		"values",
		"Join a negotiation",
		"BEGIN:VCALENDAR",
		" with ",
		" on ",
		"notify",
		"update your settings",
		"Select an option",
		"With you",
	} {
		if looksLikeSQL(s) {
			t.Errorf("%q: taken for SQL", s)
		}
	}
}
