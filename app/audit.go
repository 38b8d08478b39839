package app

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// The audit log says what happened in an account, when and by whom:
// invitations, joins, role changes, removals, agents created (with a key
// or by an OAuth consent), keys issued and revoked, OAuth agents connected
// again and disconnected, confirmations answered. It is kept (nothing deletes an
// entry but the account's own deletion), read newest first a page at a
// time by owners and admins, and never holds a limit, a key or a token.

// AuditAction names what an entry records.
type AuditAction string

const (
	AuditAccountCreated     AuditAction = "account.created"
	AuditMemberInvited      AuditAction = "member.invited"
	AuditInvitationResent   AuditAction = "invitation.resent"
	AuditInvitationRevoked  AuditAction = "invitation.revoked"
	AuditMemberJoined       AuditAction = "member.joined"
	AuditMemberAdded        AuditAction = "member.added"     // by an operator
	AuditOperatorGranted    AuditAction = "operator.granted" // by an operator: installation-wide access
	AuditOperatorRevoked    AuditAction = "operator.revoked"
	AuditSignInReleased     AuditAction = "user.relinked" // by an operator: the next verified sign-in with the address links
	AuditRoleChanged        AuditAction = "member.role_changed"
	AuditMemberRemoved      AuditAction = "member.removed"
	AuditMemberLeft         AuditAction = "member.left"
	AuditAgentCreated       AuditAction = "agent.created"
	AuditKeyIssued          AuditAction = "agent.key_issued"
	AuditKeyRevoked         AuditAction = "agent.key_revoked"
	AuditAgentReconnected   AuditAction = "agent.reconnected"  // its person consented again (OAuth)
	AuditAgentDisconnected  AuditAction = "agent.disconnected" // its OAuth grant ended
	AuditConfirmationAnswer AuditAction = "confirmation.answered"
	AuditAccountRenamed     AuditAction = "account.renamed"
	AuditAccountExported    AuditAction = "account.exported"
	AuditWebhookCreated     AuditAction = "webhook.created"
	AuditWebhookRotated     AuditAction = "webhook.secret_rotated"
	AuditWebhookEnabled     AuditAction = "webhook.enabled"
	AuditWebhookDeleted     AuditAction = "webhook.deleted"
	AuditWebhookResent      AuditAction = "webhook.resent"   // a message sent once more (Send again)
	AuditWebhookDisabled    AuditAction = "webhook.disabled" // by Taasky, after days of failures
)

// AuditOperator is the Actor of an entry no person made (auditInsertSQL
// writes it for actor 0): an operator's on the command line, or Taasky's
// own (AuditWebhookDisabled).
const AuditOperator = "operator"

// AuditByTaasky is the "by" detail of an entry Taasky itself made.
const AuditByTaasky = "taasky"

// AuditEntry is one entry of an account's audit log.
type AuditEntry struct {
	ID      int64
	At      time.Time
	ActorID int64  // 0: an operator, or a user since erased
	Actor   string // the actor's email when it happened, or "operator"
	Action  AuditAction
	// Detail names what was acted on: emails, roles, an agent's name, a
	// room's id, a key's prefix. Never a secret.
	Detail map[string]string
}

// AuditPageSize is how many entries a page of the audit log holds.
const AuditPageSize = 50

// AuditLog returns a page of the account's audit log, newest first, from
// cursor on ("" for the first page), and the next page's cursor ("" at the
// end). Owners and admins may read it.
func (a *Accounts) AuditLog(ctx context.Context, actorID int64, accountSlug, cursor string) ([]AuditEntry, string, error) {
	m, err := a.memberOf(ctx, a.pool, actorID, accountSlug)
	if err != nil {
		return nil, "", fmt.Errorf("audit log: %w", err)
	}
	if !May(m.Role, ActSeeAudit, Colleagues) {
		return nil, "", refuse(ErrUnauthorized, "error.audit_who", "audit log: only the account's owners and admins may read it")
	}
	return a.auditPage(ctx, m.AccountID, cursor)
}

// AuditLogAsOperator is AuditLog for an operator on the command line.
func (a *Accounts) AuditLogAsOperator(ctx context.Context, accountSlug, cursor string) ([]AuditEntry, string, error) {
	acct, err := selectAccountBySlug(ctx, a.pool, accountSlug)
	if err != nil {
		return nil, "", fmt.Errorf("audit log: %w", err)
	}
	return a.auditPage(ctx, acct.ID, cursor)
}

func (a *Accounts) auditPage(ctx context.Context, accountID int64, cursor string) ([]AuditEntry, string, error) {
	before := int64(1<<63 - 1)
	if cursor != "" {
		n, err := strconv.ParseInt(cursor, 10, 64)
		if err != nil || n < 1 {
			return nil, "", refuse(ErrInvalid, "error.cursor_log", "cursor: not one this log gave (start again from the first page)")
		}
		before = n
	}
	out, err := selectAudit(ctx, a.pool, accountID, before, AuditPageSize+1)
	if err != nil {
		return nil, "", fmt.Errorf("audit log: %w", err)
	}
	next := ""
	if len(out) > AuditPageSize {
		out = out[:AuditPageSize]
		next = strconv.FormatInt(out[AuditPageSize-1].ID, 10)
	}
	return out, next, nil
}
