-- Accounts (the tenants), the people who use them, and their agents' keys.
-- Every table that grows with use carries its tenant key (account_id) first in
-- its primary key and indexes, so that it can be distributed by account with
-- Citus when one primary is not enough.

-- +goose Up
CREATE TABLE accounts (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    slug       text NOT NULL UNIQUE
               CHECK (slug ~ '^[a-z0-9][a-z0-9-]{1,38}[a-z0-9]$'),
    name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    created_at timestamptz NOT NULL DEFAULT now()
);

-- A user is a person, across accounts. A user may be created by email before
-- their first login (an account's owner); the login links issuer and subject.
CREATE TABLE users (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    email        text NOT NULL UNIQUE
                 CHECK (email = lower(email) AND char_length(email) BETWEEN 3 AND 254),
    oidc_issuer  text,
    oidc_subject text,
    time_zone    text NOT NULL DEFAULT 'UTC',
    created_at   timestamptz NOT NULL DEFAULT now(),
    UNIQUE (oidc_issuer, oidc_subject),
    CHECK ((oidc_issuer IS NULL) = (oidc_subject IS NULL))
);

CREATE TABLE memberships (
    account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       text NOT NULL CHECK (role IN ('owner', 'member')),
    -- operator: may see the service's internals (job queue, delivery logs).
    operator   boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, user_id)
);
CREATE INDEX memberships_user_id ON memberships (user_id);

-- An agent acts for its account over MCP; its owner must be a member.
CREATE TABLE agents (
    account_id    bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id            bigint GENERATED ALWAYS AS IDENTITY,
    name          text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    owner_user_id bigint NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id),
    UNIQUE (account_id, name),
    FOREIGN KEY (account_id, owner_user_id) REFERENCES memberships (account_id, user_id)
);

-- An agent's API keys: only a SHA-256 of the key is stored; prefix is its
-- first characters, to tell keys apart on screen.
CREATE TABLE agent_keys (
    account_id bigint NOT NULL,
    id         bigint GENERATED ALWAYS AS IDENTITY,
    agent_id   bigint NOT NULL,
    key_hash   bytea NOT NULL UNIQUE CHECK (octet_length(key_hash) = 32),
    prefix     text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz,
    PRIMARY KEY (account_id, id),
    FOREIGN KEY (account_id, agent_id) REFERENCES agents (account_id, id) ON DELETE CASCADE
);
CREATE INDEX agent_keys_agent ON agent_keys (account_id, agent_id);

-- +goose Down
DROP TABLE agent_keys;
DROP TABLE agents;
DROP TABLE memberships;
DROP TABLE users;
DROP TABLE accounts;
