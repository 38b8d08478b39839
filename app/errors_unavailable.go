package app

import (
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// RetryMessage is what a caller is told when the database did not answer:
// a moment's unavailability (a restart, a failover, no free connection), not
// the caller's fault, and worth the same call again. A move that had gone
// through is answered, the second time, with its result (the same move
// sent again is recognised: rooms_move.go), never applied twice.
const RetryMessage = "Taasky's database did not answer just now (restarting, switching to its standby, or out of connections): retry this call with the same arguments in a few seconds; a move that went through is answered with its result, not applied twice"

// Unavailable reports whether err says the database could not be reached,
// went away mid-call, or is not (or no longer) the primary: errors that
// the same call a few seconds later may not meet. Constraint violations
// and the like are not among them: they are answered where they arise;
// deadlocks and serialization failures are LockConflict.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	if _, ok := errors.AsType[*pgconn.ConnectError](err); ok {
		return true
	}
	if pe, ok := errors.AsType[*pgconn.PgError](err); ok {
		switch {
		case len(pe.Code) == 5 && pe.Code[:2] == "08": // connection exception
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // admin/crash shutdown, cannot connect now
			return true
		case pe.Code == "25006": // read_only_sql_transaction: a standby answered
			return true
		}
		return false
	}
	if _, ok := errors.AsType[*net.OpError](err); ok {
		return true
	}
	return pgconn.SafeToRetry(err) || pgconn.Timeout(err) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// LockConflict reports whether err is PostgreSQL breaking a deadlock
// (SQLSTATE 40P01) or failing a serialization (40001): the transaction was
// rolled back whole, and the same call again may well go through. The
// transactions that could meet one are kept from it at its cause, a lock
// order, where it can be; one left is answered as the database not
// answering is (RetryLater), never as an internal error.
func LockConflict(err error) bool {
	pe, ok := errors.AsType[*pgconn.PgError](err)
	return ok && (pe.Code == "40P01" || pe.Code == "40001")
}

// TimedOut reports whether PostgreSQL cancelled the statement at a bound
// the operator set on the database or its role: statement_timeout
// (SQLSTATE 57014, query_canceled) or lock_timeout (55P03,
// lock_not_available; Taasky takes no lock NOWAIT). The statement's
// transaction was rolled back whole: the database was too slow to answer
// or a lock was held past the bound, not the caller's mistake, and the
// same call again may well go through. Taasky's own bounds on a call are
// context deadlines (context.DeadlineExceeded), which the doors answer
// the same way.
func TimedOut(err error) bool {
	pe, ok := errors.AsType[*pgconn.PgError](err)
	return ok && (pe.Code == "57014" || pe.Code == "55P03")
}

// RetryLater reports whether the caller is to send the same call again in
// a few seconds (RetryMessage): the database did not answer (Unavailable),
// not within the operator's bound (TimedOut), or rolled the call's
// transaction back to break a lock conflict (LockConflict).
func RetryLater(err error) bool { return Unavailable(err) || LockConflict(err) || TimedOut(err) }

// RetryLogged is the level and the words of the log line for a call
// answered "retry later" (RetryLater): a lock conflict is a lock order of
// Taasky's to fix (ERROR); a statement past the operator's
// statement_timeout or lock_timeout is a slow statement or a lock held
// long, which someone must look at even when it lasts (ERROR: a statement
// that always runs past the bound would never page at WARN); the database
// away is a moment the operator sees in its own monitoring (WARN).
func RetryLogged(err error) (slog.Level, string) {
	if LockConflict(err) {
		return slog.LevelError, "a lock conflict (deadlock or serialization failure), answered as retry"
	}
	if TimedOut(err) {
		return slog.LevelError, "a statement past the database's statement_timeout or lock_timeout, answered as retry"
	}
	return slog.LevelWarn, "the database did not answer"
}

// TooManyConnections reports whether err is PostgreSQL refusing a new
// connection because its max_connections are taken (SQLSTATE 53300: "sorry,
// too many clients already", or "remaining connection slots are reserved"
// for superusers or roles with pg_use_reserved_connections). Unavailable
// holds for it too: the call is answered as in an outage, to be retried.
//
// PgBouncer passes PostgreSQL's refusal on as its own protocol error
// (08P01) with the server's message, and refuses clients past its
// max_client_conn the same way: those count too.
func TooManyConnections(err error) bool {
	pe, ok := errors.AsType[*pgconn.PgError](err)
	if !ok {
		return false
	}
	if pe.Code == "53300" {
		return true
	}
	return pe.Code == "08P01" && (strings.Contains(pe.Message, "too many clients") ||
		strings.Contains(pe.Message, "connection slots are reserved") ||
		strings.Contains(pe.Message, "no more connections allowed"))
}
