-- A move rewrites its room's row and its two parties' ranks. Make those
-- writes cheaper: drop rooms_account_updated, which no query reads and
-- which, indexing updated_at, kept every room update from being a HOT
-- update (no index to touch when the new version fits on the same page;
-- fillfactor leaves the room for it); and have the rank trigger skip a
-- party whose rank and rank key did not change.

-- +goose Up
DROP INDEX rooms_account_updated;
ALTER TABLE rooms SET (fillfactor = 80);

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION parties_rank() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE parties p SET rank = n.rank, rank_key = n.rank_key
    FROM (SELECT q.side,
            CASE
                WHEN NEW.state = 'agreed' THEN 4
                WHEN NEW.state = 'closed' THEN 5
                WHEN EXISTS (SELECT 1 FROM confirmations c
                             WHERE c.room_id = NEW.id AND c.side = q.side AND c.status = 'pending') THEN 1
                WHEN NEW.turn = q.side THEN 2
                ELSE 3 END AS rank,
            CASE
                WHEN NEW.state IN ('agreed', 'closed') THEN -(extract(epoch FROM NEW.updated_at) * 1000)::bigint
                ELSE (extract(epoch FROM NEW.deadline) * 1000)::bigint END AS rank_key
          FROM parties q WHERE q.room_id = NEW.id) n
    WHERE p.room_id = NEW.id AND p.side = n.side AND (p.rank, p.rank_key) IS DISTINCT FROM (n.rank, n.rank_key);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION parties_rank() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE parties p SET
        rank = CASE
            WHEN NEW.state = 'agreed' THEN 4
            WHEN NEW.state = 'closed' THEN 5
            WHEN EXISTS (SELECT 1 FROM confirmations c
                         WHERE c.room_id = NEW.id AND c.side = p.side AND c.status = 'pending') THEN 1
            WHEN NEW.turn = p.side THEN 2
            ELSE 3 END,
        rank_key = CASE
            WHEN NEW.state IN ('agreed', 'closed') THEN -(extract(epoch FROM NEW.updated_at) * 1000)::bigint
            ELSE (extract(epoch FROM NEW.deadline) * 1000)::bigint END
    WHERE p.room_id = NEW.id;
    RETURN NULL;
END
$$;
-- +goose StatementEnd
ALTER TABLE rooms RESET (fillfactor);
CREATE INDEX rooms_account_updated ON rooms (account_id, updated_at DESC, id DESC);
