package mcpserver

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/taasky/taasky/app"
)

// readsCounted is a Service that counts the reads of a room it is asked
// for (each one statement): the rest of Service is not called.
type readsCounted struct {
	Service
	waits, histories int
}

func (r *readsCounted) ReadWait(context.Context, app.Agent, string, time.Duration) (*app.View, error) {
	r.waits++
	return &app.View{}, nil
}

func (r *readsCounted) ReadHistory(context.Context, app.Agent, string) (*app.View, error) {
	r.histories++
	return &app.View{}, nil
}

// TestHistoryReadReadsOnce: negotiation_read with history and no wait
// reads the room once, whole (one statement, as before reads went light):
// it read it light first (Read, its kept view's statement) and whole
// again whenever the light view left terms out, two statements a read.
func TestHistoryReadReadsOnce(t *testing.T) {
	t.Parallel()
	svc := &readsCounted{}
	s := &Server{svc: svc}
	if _, err := s.read(context.Background(), app.Agent{}, json.RawMessage(`{"room_token":"t","history":true}`)); err != nil {
		t.Fatal(err)
	}
	if svc.waits != 0 || svc.histories != 1 {
		t.Errorf("a history read without a wait: %d light reads and %d whole, want 0 and 1", svc.waits, svc.histories)
	}
}
