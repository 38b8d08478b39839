-- The dashboard's order moves out of parties into a narrow table of its
-- own. A move changes both parties' ranks; a rank is indexed, so each
-- change wrote a new version of the whole party row (tokens, sealed
-- limits) and an entry in each of parties' four indexes. party_ranks holds
-- only the order, with two indexes. Its rows are made with their parties
-- (a party with no account is in no one's list) and kept by the same
-- trigger on rooms as before.

-- +goose Up
CREATE TABLE party_ranks (
    room_id bigint NOT NULL,
    side text NOT NULL,
    account_id bigint NOT NULL,
    rank smallint NOT NULL DEFAULT 3 CHECK (rank BETWEEN 1 AND 5),
    rank_key bigint NOT NULL DEFAULT 0,
    PRIMARY KEY (room_id, side),
    FOREIGN KEY (room_id, side) REFERENCES parties (room_id, side) ON DELETE CASCADE
) WITH (fillfactor = 80);
INSERT INTO party_ranks (room_id, side, account_id, rank, rank_key)
    SELECT room_id, side, account_id, rank, rank_key FROM parties WHERE account_id IS NOT NULL;
CREATE INDEX party_ranks_account ON party_ranks (account_id, rank, rank_key, room_id, side);
DROP INDEX parties_account_rank;
ALTER TABLE parties DROP COLUMN rank, DROP COLUMN rank_key;

-- +goose StatementBegin
CREATE FUNCTION party_ranks_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO party_ranks (room_id, side, account_id) VALUES (NEW.room_id, NEW.side, NEW.account_id);
    RETURN NULL;
END
$$;
-- +goose StatementEnd
CREATE TRIGGER parties_rank_row AFTER INSERT ON parties FOR EACH ROW
    WHEN (NEW.account_id IS NOT NULL) EXECUTE FUNCTION party_ranks_row();

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION parties_rank() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE party_ranks p SET rank = n.rank, rank_key = n.rank_key
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
          FROM party_ranks q WHERE q.room_id = NEW.id) n
    WHERE p.room_id = NEW.id AND p.side = n.side AND (p.rank, p.rank_key) IS DISTINCT FROM (n.rank, n.rank_key);
    RETURN NULL;
END
$$;
-- +goose StatementEnd

-- +goose Down
ALTER TABLE parties ADD COLUMN rank smallint NOT NULL DEFAULT 3 CHECK (rank BETWEEN 1 AND 5),
    ADD COLUMN rank_key bigint NOT NULL DEFAULT 0;
UPDATE parties p SET rank = r.rank, rank_key = r.rank_key FROM party_ranks r
    WHERE r.room_id = p.room_id AND r.side = p.side;
CREATE INDEX parties_account_rank ON parties (account_id, rank, rank_key, room_id, side)
    WHERE account_id IS NOT NULL;
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
DROP TRIGGER parties_rank_row ON parties;
DROP FUNCTION party_ranks_row();
DROP TABLE party_ranks;
