package app

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// querier is what the store functions need: a pool or a transaction, so a
// use case decides where its transaction begins and ends (pgx.BeginFunc).
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// storableText reports whether PostgreSQL's text can hold s: not when it
// has a NUL or is not UTF-8. A lookup by a key from outside (a path, a
// query, a form) that cannot be stored matches no row, and is answered so
// without asking: PostgreSQL would refuse the parameter with an error
// (SQLSTATE 22021), which is no person's mistake to log, and which aborts
// the transaction it is asked in.
func storableText(s string) bool {
	return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0
}

// isUniqueViolation reports whether err is a unique violation of constraint.
func isUniqueViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505" && pgErr.ConstraintName == constraint
}

// isCheckViolation reports whether err is a check violation of constraint
// (a CHECK, or a function that raises one in its name: room_slot).
func isCheckViolation(err error, constraint string) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23514" && pgErr.ConstraintName == constraint
}

// isForeignKeyViolation reports whether err is a foreign key violation
// (a user that does not exist).
func isForeignKeyViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23503"
}
