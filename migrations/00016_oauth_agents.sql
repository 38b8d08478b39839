-- An agent connected with OAuth: the grant of one person's consent to one
-- client for one account. The same client and person reuse their agent.

-- +goose Up
CREATE TABLE oauth_agents (
    account_id      bigint NOT NULL,
    agent_id        bigint NOT NULL,
    client_id       text NOT NULL REFERENCES oauth_clients (id),
    user_id         bigint NOT NULL,
    connected_at    timestamptz NOT NULL DEFAULT now(),
    last_used_at    timestamptz,
    -- Disconnect: every token of the agent is deleted and none is issued
    -- until the person consents again.
    disconnected_at timestamptz,
    PRIMARY KEY (account_id, agent_id),
    UNIQUE (account_id, client_id, user_id),
    FOREIGN KEY (account_id, agent_id) REFERENCES agents (account_id, id) ON DELETE CASCADE
);

-- +goose Down
DROP TABLE oauth_agents;
