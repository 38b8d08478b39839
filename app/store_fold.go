package app

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// A write folded into another statement of a change's batch, as a
// data-modifying WITH: PostgreSQL then parses, plans and starts one
// statement where it did two. A folded write runs once and to completion
// with the statement that carries it, in that statement's snapshot, so it
// may only be one the rest of that statement neither reads nor writes:
// the parts cannot see each other's rows, a row must not be changed twice
// in one statement, and the order of the parts is not defined (a unique
// index checked against another part's row could fail either way).
// Foreign keys are checked at the statement's end, as before.
type foldedWrite struct {
	sql  string // one INSERT, UPDATE or DELETE, its parameters numbered from $1
	args []any
}

var placeholder = regexp.MustCompile(`\$[0-9]+`)

// renumbered is sql with each parameter $n written $(n+offset). A move
// folds the same few statements at the same few offsets, so each pair is
// rewritten once per process and kept (renumberedSQL).
func renumbered(sql string, offset int) string {
	key := renumberKey{sql, offset}
	if s, ok := renumberedSQL.Load(key); ok {
		return s.(string)
	}
	s := placeholder.ReplaceAllStringFunc(sql, func(p string) string {
		n, _ := strconv.Atoi(p[1:])
		return "$" + strconv.Itoa(n+offset)
	})
	renumberedSQL.Store(key, s)
	return s
}

type renumberKey struct {
	sql    string
	offset int
}

var renumberedSQL sync.Map // renumberKey → string

// withFolded is sql (args its parameters) with folded written in front of
// it as WITH queries w0, w1, …, their parameters numbered after args. A
// statement that starts with WITH keeps its own queries after them.
func withFolded(folded []foldedWrite, sql string, args []any) (string, []any) {
	if len(folded) == 0 {
		return sql, args
	}
	var b strings.Builder
	b.WriteString("WITH ")
	for i, f := range folded {
		offset := len(args)
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("w" + strconv.Itoa(i) + " AS (")
		b.WriteString(renumbered(f.sql, offset))
		b.WriteString(")")
		args = append(args[:len(args):len(args)], f.args...)
	}
	if rest, ok := strings.CutPrefix(sql, "WITH "); ok {
		b.WriteString(", " + rest)
	} else {
		b.WriteString(" " + sql)
	}
	return b.String(), args
}

// queueWith queues sql with folded writes in front of it (withFolded).
func queueWith(b *pgx.Batch, folded []foldedWrite, sql string, args ...any) {
	sql, args = withFolded(folded, sql, args)
	b.Queue(sql, args...)
}
