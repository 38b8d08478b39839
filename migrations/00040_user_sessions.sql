-- A person's sign-ins, one row per browser they signed in with
-- (app.StartSession): the session cookie holds the session's random
-- token (sealed), the row only its SHA-256 hash. Each request reads the
-- person with their live session in one statement (app.SessionUser),
-- which also extends it (expires_at: 30 days after its last use, never
-- past 90 days after the sign-in) at most once per 5 minutes
-- (last_seen_at). Ending a session deletes its row: signing out of one
-- browser, or of one other from Settings, or of all (a removal from an
-- account, an account's deletion, taasky user relink, the person
-- erased). The purge (jobs.PurgeWorker) deletes the rows past their
-- expiry; a person keeps at most 50 (app.SessionsPerUser: the oldest
-- ends when a new one starts). No address is kept: the browser and its
-- system only, as the User-Agent names them, for the person to tell
-- their sessions apart.
--
-- A session ended while it was live notifies taasky_access with its
-- person's id (migration 00038), so that the live pages of the browser
-- it belonged to end; a row purged past its expiry does not (its pages
-- ended with it).
--
-- users.session_epoch is no longer read or raised by this build; it
-- stays for the previous build during a rolling upgrade.

-- +goose Up
CREATE TABLE user_sessions (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash   bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    created_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL,
    expires_at   timestamptz NOT NULL,
    browser      text NOT NULL DEFAULT '' CHECK (length(browser) <= 40),
    platform     text NOT NULL DEFAULT '' CHECK (length(platform) <= 40)
);
CREATE INDEX user_sessions_user ON user_sessions (user_id, created_at);
CREATE INDEX user_sessions_expires ON user_sessions (expires_at);

-- +goose StatementBegin
CREATE FUNCTION session_ended() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('taasky_access', OLD.user_id::text);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER session_ended AFTER DELETE ON user_sessions
    FOR EACH ROW WHEN (OLD.expires_at > now()) EXECUTE FUNCTION session_ended();
CREATE TRIGGER access_all_changed AFTER TRUNCATE ON user_sessions
    FOR EACH STATEMENT EXECUTE FUNCTION access_all_changed();

-- +goose Down
DROP TRIGGER access_all_changed ON user_sessions;
DROP TRIGGER session_ended ON user_sessions;
DROP FUNCTION session_ended();
DROP TABLE user_sessions;
