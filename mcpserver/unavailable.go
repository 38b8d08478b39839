package mcpserver

import (
	"context"
	"errors"

	"github.com/taasky/taasky/app"
)

// unavailableRetry is when, in seconds, a call the database did not answer
// is to be sent again: its Retry-After, and the retry_after of its tool
// error.
const unavailableRetry = 5

// answerOf is the one line a tool error says: the refusal's message, or,
// for an internal error, "internal error", unless the database did not
// answer (a failover, a restart) or rolled the call back to break a
// deadlock (app.RetryLater): then the agent is told to retry the same
// call, which is answered with its first result if it had gone through.
// A call past its callTimeout is one the database did not answer either.
func answerOf(err error) string {
	if app.ErrorCodeOf(err) == app.ErrInternal && (app.RetryLater(err) || errors.Is(err, context.DeadlineExceeded)) {
		return app.RetryMessage
	}
	return app.ErrorMessageOf(err)
}
