package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/taasky/taasky/jobs"
	"github.com/taasky/taasky/negotiation"
)

var (
	_ jobs.Webhooks       = (*Webhooks)(nil)
	_ jobs.WebhookNotices = (*Webhooks)(nil)
)

// hookAttempt is one attempt as the log stores it.
type hookAttempt struct {
	accountID  int64
	messageID  string
	jobID      int64
	attempt    int
	at         time.Time
	duration   time.Duration
	statusCode int
	err        string
	status     jobs.Status
}

// HookPayload is a webhook's body, as the Standard Webhooks specification
// shapes it: the event's type and moment, and its data.
type HookPayload struct {
	Type      WebhookEvent `json:"type"`
	Timestamp string       `json:"timestamp"`
	Data      HookData     `json:"data"`
}

// HookData is what a webhook tells: the room as the account's side sees
// it, as its agent reads it (the View of negotiation_read: never the other
// side's limits, only the flags derived from them), but whole: every round,
// each with its terms, and without what the MCP door adds to it
// (for_your_human, earlier_rounds).
type HookData struct {
	RoomID  int64            `json:"room_id"`
	RoomURL string           `json:"room_url"`
	Side    negotiation.Side `json:"side"`
	// Seq is the room's log position after the change that caused the
	// event: a later change has a greater seq, the events of one change
	// share it (hookEvents lists them in their order).
	Seq  int   `json:"seq"`
	Room *View `json:"room"`
	// Receipt is the agreed room's signed receipt (JWS), room.agreed only.
	Receipt string `json:"receipt,omitempty"`
}

// Webhook says what to send for a message (jobs.Webhooks). Its payload is
// written at the first attempt, from the room as the side sees it then,
// and kept: every attempt and every "Send again" sends the same bytes.
func (w *Webhooks) Webhook(ctx context.Context, accountID int64, messageID string) (*jobs.Webhook, error) {
	s, err := selectHookSend(ctx, w.pool, accountID, messageID)
	switch {
	case err != nil:
		return nil, err
	case s == nil:
		return nil, jobs.Skip("the message or its endpoint was deleted")
	case s.disabled:
		if err := skipHookMessage(ctx, w.pool, accountID, messageID); err != nil {
			return nil, err
		}
		return nil, jobs.Skip("the endpoint is disabled")
	}
	secrets, err := w.openSecrets(accountID, s.sealed)
	if err != nil {
		return nil, err
	}
	kept := s.payload
	if kept == nil {
		body, err := w.payload(ctx, s.msg)
		if err != nil {
			return nil, err
		}
		if kept, err = fixHookPayload(ctx, w.pool, accountID, messageID, w.sealPayload(accountID, messageID, body)); err != nil {
			return nil, err
		}
	}
	payload := kept // kept in the clear by a build before: sent as it was
	if !s.plain {
		if payload, err = unseal(w.rooms.limitsKey, kept, hookPayloadAD(accountID, messageID)); err != nil {
			return nil, fmt.Errorf("webhook payload of %s: %w (was SECRET_KEY changed?)", messageID, err)
		}
	}
	return &jobs.Webhook{URL: s.url, Secrets: secrets.signing(w.now()), ID: messageID, Payload: payload}, nil
}

// A payload is kept sealed, as the endpoint's secrets are (the limits'
// key), bound to its account and message: it is the side's own view, whose
// outside_your_limits flags say which tabled terms broke the side's limits
// (an order on them), so a database backup alone must not read it. It is
// kept in a column of its own (payload_sealed, migration 00041): a worker
// of a build before sends the payload column as it finds it.
func hookPayloadAD(accountID int64, messageID string) []byte {
	return []byte("webhook-payload\x00" + strconv.FormatInt(accountID, 10) + "\x00" + messageID)
}

func (w *Webhooks) sealPayload(accountID int64, messageID string, body []byte) []byte {
	return seal(w.rooms.limitsKey, body, hookPayloadAD(accountID, messageID))
}

// payload renders a message's body from the room as its side sees it now.
func (w *Webhooks) payload(ctx context.Context, m hookMessage) ([]byte, error) {
	row, err := selectRoom(ctx, w.pool, m.roomID, false)
	if err != nil {
		return nil, fmt.Errorf("webhook payload: %w", err)
	}
	ld, err := w.rooms.restoreLax(row, m.side) // this side's limits only
	if err != nil {
		return nil, err
	}
	if ld.sealed && !ld.room.State.Terminal() {
		// Its limits were sealed under another key: only its cancel and
		// its end are told, the rest would be shown without them.
		if p := ld.room.PendingFor(m.side); p == nil || p.Verdict != negotiation.VerdictCancel {
			return nil, jobs.Skip("the room's limits were sealed under another SECRET_KEY")
		}
	}
	v, err := w.rooms.view(ctx, w.pool, ld, m.side)
	if err != nil {
		return nil, err
	}
	p := HookPayload{Type: m.event, Timestamp: m.at.UTC().Format(time.RFC3339Nano), Data: HookData{RoomID: m.roomID,
		RoomURL: w.baseURL + "/rooms/" + strconv.FormatInt(m.roomID, 10), Side: m.side, Seq: m.seq, Room: v}}
	if m.event == HookRoomAgreed && w.rooms.receipts != nil { // the service signs receipts
		if p.Data.Receipt, err = w.rooms.Receipt(ctx, m.roomID); err != nil {
			return nil, fmt.Errorf("webhook payload: receipt: %w", err)
		}
	}
	return json.Marshal(p)
}

// WebhookSentBy reports whether job's attempts delivered the message
// (jobs.Webhooks).
func (w *Webhooks) WebhookSentBy(ctx context.Context, accountID int64, messageID string, jobID int64) (bool, error) {
	return selectHookSentBy(ctx, w.pool, accountID, messageID, jobID)
}

// RecordWebhook writes an attempt to the delivery log (jobs.Webhooks). A
// failure that ends HookFailingFor of nothing but failures disables the
// endpoint and mails the account's owners, in the same transaction.
//
// It is written again while the database does not answer (recordAgain),
// within ctx, unless the failure came with the commit: that one may have
// gone through, and the attempt would be logged twice.
func (w *Webhooks) RecordWebhook(ctx context.Context, a jobs.WebhookAttempt) error {
	return recordAgain(ctx, func() error {
		committing := false
		err := w.recordWebhook(ctx, a, &committing)
		if committing && err != nil {
			return fmt.Errorf("commit a webhook attempt (it may have gone through): %w", commitUnknown{err})
		}
		return err
	})
}

// commitUnknown is a commit's failure, which may have gone through: not
// one to write again (RetryLater does not see through it).
type commitUnknown struct{ err error }

func (e commitUnknown) Error() string { return e.err.Error() }

// recordWebhook is RecordWebhook's one try; committing says whether the
// transaction's statements went through and its commit was sent.
func (w *Webhooks) recordWebhook(ctx context.Context, a jobs.WebhookAttempt, committing *bool) error {
	return pgx.BeginFunc(ctx, w.pool, func(tx pgx.Tx) (err error) {
		defer func() { *committing = err == nil }()
		since, enabled, err := insertHookAttempt(ctx, tx, hookAttempt{accountID: a.AccountID, messageID: a.MessageID,
			jobID: a.JobID, attempt: a.Attempt, at: a.At, duration: a.Duration, statusCode: a.StatusCode, err: a.Error, status: a.Status})
		if err != nil || a.Status == jobs.StatusSent || !enabled || since == nil || a.At.Sub(*since) < HookFailingFor {
			return err
		}
		id, url, err := disableHookEndpoint(ctx, tx, a.AccountID, a.MessageID, a.Error, a.At)
		if err != nil || id == 0 {
			return err
		}
		if err := insertAudit(ctx, tx, a.AccountID, 0, AuditWebhookDisabled, w.rooms.dbMoment(),
			map[string]string{"url": url, "failing_since": since.UTC().Format(time.RFC3339), "by": AuditByTaasky}); err != nil {
			return err
		}
		owners, err := selectOwners(ctx, tx, a.AccountID)
		if err != nil || len(owners) == 0 {
			return err
		}
		params := make([]river.InsertManyParams, len(owners))
		for i, u := range owners {
			params[i] = river.InsertManyParams{Args: jobs.WebhookDisabledArgs{AccountID: a.AccountID, EndpointID: id, UserID: u, At: a.At}}
		}
		_, err = w.river.InsertManyTx(ctx, tx, params)
		return err
	})
}

// WebhookDisabledMail says what the mail to an owner holds
// (jobs.WebhookNotices).
func (w *Webhooks) WebhookDisabledMail(ctx context.Context, a jobs.WebhookDisabledArgs) (*jobs.WebhookDisabled, error) {
	n, slug, disabled, err := selectHookNotice(ctx, w.pool, a.AccountID, a.EndpointID, a.UserID)
	switch {
	case err != nil:
		return nil, err
	case n == nil:
		return nil, jobs.Skip("the endpoint is gone or the user is no longer an owner")
	case !disabled:
		return nil, jobs.Skip("the endpoint was turned back on")
	}
	n.SettingsURL, n.Now = w.baseURL+"/accounts/"+slug+"/webhooks", w.now()
	if n.Installation, err = w.rooms.install.get(ctx, w.pool); err != nil {
		return nil, err
	}
	return n, nil
}
