-- MCP authorization (OAuth 2.1): Taasky is its own authorization server.
-- Clients are global (an assistant such as Claude serves every account); a
-- grant belongs to one agent of one account, so what grows with use
-- (oauth_tokens) carries the tenant key in its indexes.

-- +goose Up
-- A client: registered by Dynamic Client Registration (RFC 7591), or known
-- by its Client ID Metadata Document (its client_id is the document's
-- https URL), fetched again once fresh_until passes (its HTTP caching).
CREATE TABLE oauth_clients (
    id            text PRIMARY KEY CHECK (char_length(id) BETWEEN 1 AND 2048),
    kind          text NOT NULL CHECK (kind IN ('registered', 'metadata_document')),
    name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    logo_uri      text NOT NULL DEFAULT '',
    client_uri    text NOT NULL DEFAULT '',
    redirect_uris text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
    created_at    timestamptz NOT NULL DEFAULT now(),
    fresh_until   timestamptz
);

-- What an authorization code, a PKCE challenge, an access token or a refresh
-- token stands for. signature is fosite's HMAC-SHA512/256 signature of the
-- token (never the token); request_id is the grant: one consent and every
-- token refreshed from it, revoked together. request holds what the token
-- endpoint needs back (scopes, the audience, the authorize form without
-- secrets, the session: account and agent).
CREATE TABLE oauth_tokens (
    signature  text NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('code', 'pkce', 'access', 'refresh')),
    request_id text NOT NULL,
    account_id bigint NOT NULL,
    agent_id   bigint NOT NULL,
    client_id  text NOT NULL,
    request    jsonb NOT NULL,
    active     boolean NOT NULL DEFAULT true,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    -- a code and its PKCE challenge share the code's signature
    PRIMARY KEY (signature, kind),
    FOREIGN KEY (account_id, agent_id) REFERENCES agents (account_id, id) ON DELETE CASCADE
);
CREATE INDEX oauth_tokens_request ON oauth_tokens (request_id);
CREATE INDEX oauth_tokens_agent ON oauth_tokens (account_id, agent_id);
CREATE INDEX oauth_tokens_expires ON oauth_tokens (expires_at);

-- +goose Down
DROP TABLE oauth_tokens;
DROP TABLE oauth_clients;
