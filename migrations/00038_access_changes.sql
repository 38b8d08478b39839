-- A live page's stream (dashboard) ends as soon as its person loses what
-- it shows. Whatever may change what a person sees notifies taasky_access
-- when its transaction commits, however it is changed (the service, a
-- cascade, an operator's SQL), with the person's user id: a membership
-- added, removed or given another role; the person's sessions ended
-- (session_epoch) or the person erased; their account marked for deletion
-- (each member). A seat handed to nobody needs no trigger of its own: it
-- happens only in a removal or an account's deletion, whose membership or
-- account trigger notifies the same person in the same transaction (a
-- trigger per seat cost an account's deletion 0.3-0.5 s per 100,000
-- seats). A TRUNCATE of these tables notifies '' (everyone). Each
-- process's listener (app.Listen) hears it; none of it is in a move.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION access_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'memberships' THEN
        PERFORM pg_notify('taasky_access', (CASE WHEN TG_OP = 'INSERT' THEN NEW.user_id ELSE OLD.user_id END)::text);
    ELSIF TG_TABLE_NAME = 'users' THEN
        PERFORM pg_notify('taasky_access', OLD.id::text);
    ELSIF TG_TABLE_NAME = 'accounts' THEN
        PERFORM pg_notify('taasky_access', m.user_id::text) FROM memberships m WHERE m.account_id = OLD.id;
    END IF;
    RETURN NULL;
END
$$;
CREATE FUNCTION access_all_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('taasky_access', '');
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER access_changed AFTER INSERT OR DELETE ON memberships
    FOR EACH ROW EXECUTE FUNCTION access_changed();
CREATE TRIGGER access_role_changed AFTER UPDATE OF role ON memberships
    FOR EACH ROW WHEN (OLD.role IS DISTINCT FROM NEW.role) EXECUTE FUNCTION access_changed();
CREATE TRIGGER access_changed AFTER UPDATE OF session_epoch OR DELETE ON users
    FOR EACH ROW EXECUTE FUNCTION access_changed();
CREATE TRIGGER access_changed AFTER UPDATE OF deleting_at ON accounts
    FOR EACH ROW WHEN (OLD.deleting_at IS NULL AND NEW.deleting_at IS NOT NULL)
    EXECUTE FUNCTION access_changed();
CREATE TRIGGER access_all_changed AFTER TRUNCATE ON memberships
    FOR EACH STATEMENT EXECUTE FUNCTION access_all_changed();
CREATE TRIGGER access_all_changed AFTER TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION access_all_changed();

-- +goose Down
DROP TRIGGER access_all_changed ON users;
DROP TRIGGER access_all_changed ON memberships;
DROP TRIGGER access_changed ON accounts;
DROP TRIGGER access_changed ON users;
DROP TRIGGER access_role_changed ON memberships;
DROP TRIGGER access_changed ON memberships;
DROP FUNCTION access_all_changed();
DROP FUNCTION access_changed();
