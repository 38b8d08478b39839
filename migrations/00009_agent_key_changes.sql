-- Each process keeps the agents of the keys it checked lately (app.Accounts)
-- for as long as it listens on taasky_agent_key. Whatever changes what a key
-- authenticates notifies that channel when its transaction commits, however
-- it is changed (the service, or an operator's SQL): a key's update or
-- deletion with the key's hash (hex); an agent's, an account's or an owner's
-- email, and a TRUNCATE of any of these tables, with '' (forget every key).

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION agent_key_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('taasky_agent_key', encode(OLD.key_hash, 'hex'));
    RETURN NULL;
END
$$;
CREATE FUNCTION agent_keys_all_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('taasky_agent_key', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER agent_key_changed AFTER UPDATE OR DELETE ON agent_keys
    FOR EACH ROW EXECUTE FUNCTION agent_key_changed();
CREATE TRIGGER agent_keys_all_changed AFTER UPDATE OR DELETE OR TRUNCATE ON agents
    FOR EACH STATEMENT EXECUTE FUNCTION agent_keys_all_changed();
CREATE TRIGGER agent_keys_all_changed AFTER UPDATE OR DELETE OR TRUNCATE ON accounts
    FOR EACH STATEMENT EXECUTE FUNCTION agent_keys_all_changed();
CREATE TRIGGER agent_keys_all_changed AFTER UPDATE OF email OR DELETE OR TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION agent_keys_all_changed();
CREATE TRIGGER agent_keys_truncated AFTER TRUNCATE ON agent_keys
    FOR EACH STATEMENT EXECUTE FUNCTION agent_keys_all_changed();

-- +goose Down
DROP TRIGGER agent_keys_truncated ON agent_keys;
DROP TRIGGER agent_keys_all_changed ON users;
DROP TRIGGER agent_keys_all_changed ON accounts;
DROP TRIGGER agent_keys_all_changed ON agents;
DROP TRIGGER agent_key_changed ON agent_keys;
DROP FUNCTION agent_keys_all_changed();
DROP FUNCTION agent_key_changed();
