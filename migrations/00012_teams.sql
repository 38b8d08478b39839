-- Teams: accounts anyone verified can start (sign-up), three roles,
-- invitations of members by email, and an audit log per account.
--
-- users.email_verified is what the issuer said at the person's last
-- sign-in: only a verified person may own or join an account.
-- users.session_epoch is in every session cookie: a session whose epoch is
-- not the user's current one is refused, so raising it signs the person
-- out everywhere at once (they were removed from an account, or left it).
--
-- An agent outlives its human's membership: removing a member sets their
-- agents' owner to NULL (ON DELETE SET NULL of the owner column only, a
-- PostgreSQL 15 form) and revokes the agents' keys; the rooms the agents
-- sit in stay open, and their confirmations go to the account's owners
-- (parties.owner_user_id NULL, app/access.go).

-- +goose Up
ALTER TABLE memberships DROP CONSTRAINT memberships_role_check,
    ADD CONSTRAINT memberships_role_check CHECK (role IN ('owner', 'admin', 'member'));

ALTER TABLE users
    ADD COLUMN email_verified boolean NOT NULL DEFAULT false,
    ADD COLUMN session_epoch integer NOT NULL DEFAULT 0;
-- Every linked login so far was verified when it was linked (LoginOIDC).
UPDATE users SET email_verified = true WHERE oidc_subject IS NOT NULL;

ALTER TABLE agents ALTER COLUMN owner_user_id DROP NOT NULL,
    DROP CONSTRAINT agents_account_id_owner_user_id_fkey,
    ADD CONSTRAINT agents_account_id_owner_user_id_fkey FOREIGN KEY (account_id, owner_user_id)
        REFERENCES memberships (account_id, user_id) ON DELETE SET NULL (owner_user_id);

-- An invitation to join an account, by email. The link's token is stored
-- as its SHA-256 only; it works once, until expires_at, unless revoked. A
-- resend issues a new token (the old link stops working).
CREATE TABLE account_invitations (
    account_id  bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id          bigint GENERATED ALWAYS AS IDENTITY,
    email       text NOT NULL CHECK (email = lower(email) AND char_length(email) BETWEEN 3 AND 254),
    role        text NOT NULL CHECK (role IN ('owner', 'admin', 'member')),
    token_hash  bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    invited_by  bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL,
    sent_at     timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    accepted_at timestamptz,
    accepted_by bigint REFERENCES users (id) ON DELETE SET NULL,
    revoked_at  timestamptz,
    PRIMARY KEY (account_id, id)
);
-- At most one pending invitation per account and address.
CREATE UNIQUE INDEX account_invitations_pending ON account_invitations (account_id, email)
    WHERE accepted_at IS NULL AND revoked_at IS NULL;

-- The invitation mails an account had sent, for the daily cap (the
-- mechanism of invite_emails, migration 00008, with the same cap).
CREATE TABLE member_invite_emails (
    account_id    bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    created_at    timestamptz NOT NULL,
    invitation_id bigint NOT NULL,
    PRIMARY KEY (account_id, created_at, invitation_id)
);

-- What happened in an account, by whom (actor NULL: an operator on the
-- command line), kept. Never limits, keys or tokens: detail holds names,
-- emails, roles and ids.
CREATE TABLE audit_log (
    account_id bigint NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
    id         bigint GENERATED ALWAYS AS IDENTITY,
    at         timestamptz NOT NULL,
    actor_id   bigint REFERENCES users (id) ON DELETE SET NULL,
    actor      text NOT NULL,   -- the actor's email when it happened, or 'operator'
    action     text NOT NULL,
    detail     jsonb NOT NULL DEFAULT '{}',
    PRIMARY KEY (account_id, id)
);
-- The sign-up cap counts a user's accounts created in a day.
CREATE INDEX audit_log_account_created ON audit_log (actor_id, at) WHERE action = 'account.created';

-- Entries of a room's timeline that are not protocol events (room_events
-- replays the protocol only): e.g. the side's human left the account and
-- its owners now answer. Seen by the side's account only.
CREATE TABLE room_notes (
    room_id bigint NOT NULL REFERENCES rooms (id) ON DELETE CASCADE,
    side    text NOT NULL CHECK (side IN ('a', 'b')),
    id      bigint GENERATED ALWAYS AS IDENTITY,
    at      timestamptz NOT NULL,
    kind    text NOT NULL,
    email   text NOT NULL,     -- the member the note is about
    PRIMARY KEY (room_id, side, id)
);

-- +goose Down
DROP TABLE room_notes;
DROP TABLE audit_log;
DROP TABLE member_invite_emails;
DROP TABLE account_invitations;
DELETE FROM agents WHERE owner_user_id IS NULL;
ALTER TABLE agents DROP CONSTRAINT agents_account_id_owner_user_id_fkey,
    ADD CONSTRAINT agents_account_id_owner_user_id_fkey FOREIGN KEY (account_id, owner_user_id)
        REFERENCES memberships (account_id, user_id),
    ALTER COLUMN owner_user_id SET NOT NULL;
ALTER TABLE users DROP COLUMN session_epoch, DROP COLUMN email_verified;
UPDATE memberships SET role = 'member' WHERE role = 'admin';
ALTER TABLE memberships DROP CONSTRAINT memberships_role_check,
    ADD CONSTRAINT memberships_role_check CHECK (role IN ('owner', 'member'));
