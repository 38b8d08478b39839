package app

import (
	"context"
	"strconv"
	"time"
)

// Who acts on agents. The dashboard passes the signed-in person in the
// context (AsActor); the command line passes nobody (an operator). With
// an actor, issuing or revoking a key asks May (access.go), and the audit
// log names them.

type actorKey struct{}

// AsActor returns ctx acting as userID: the agent calls made with it are
// checked against, and audited as, that person.
func AsActor(ctx context.Context, userID int64) context.Context {
	return context.WithValue(ctx, actorKey{}, userID)
}

// actorOf is the person ctx acts as; 0 for an operator.
func actorOf(ctx context.Context) int64 {
	id, _ := ctx.Value(actorKey{}).(int64)
	return id
}

// mayManage refuses when ctx's actor may not issue or revoke agent's keys.
func mayManage(ctx context.Context, q querier, agent Agent) error {
	actor := actorOf(ctx)
	if actor == 0 {
		return nil
	}
	m, err := selectMembershipByID(ctx, q, actor, agent.AccountID)
	if err != nil {
		return notFound(err, "error.agent_not_found", "agent %s not found in account %s", strconv.FormatInt(agent.ID, 10), agent.AccountSlug)
	}
	if !May(m.Role, ActManageAgent, whoseOf(agent.OwnerUserID, actor)) {
		return refuse(ErrUnauthorized, "error.agent_keys_who", "agent: only %s's human and the account's owners and admins manage its keys", agent.Name)
	}
	return nil
}

func auditAgent(ctx context.Context, q querier, agent Agent, actor int64, action AuditAction, at *time.Time, prefix string) error {
	return insertAudit(ctx, q, agent.AccountID, actor, action, at, map[string]string{"agent": agent.Name, "owner": agent.OwnerEmail, "key": prefix + "…"})
}
