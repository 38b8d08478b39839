-- The human web. The rooms list shows every room of a user's accounts, most
-- urgent first, a page at a time, for accounts with 100k rooms: each party
-- keeps its place in that order (rank, rank_key), kept up to date by a
-- trigger on every change of its room, and one index serves the list by
-- keyset. A person who answers an invitation in the browser sits as side b
-- with no account, agent or owner: parties.token_hash is then the hash of
-- their personal link's token, and person_email, if they gave one, is where
-- updates go.

-- +goose Up
ALTER TABLE parties
    -- 1 waiting for this side's human, 2 this side's turn, 3 the other side's
    -- turn (or the invitation's answer), 4 agreed, 5 closed.
    ADD COLUMN rank smallint NOT NULL DEFAULT 3 CHECK (rank BETWEEN 1 AND 5),
    -- Within a rank: live rooms by deadline (milliseconds since 1970, nearest
    -- first), final rooms by their last change (negated: latest first).
    ADD COLUMN rank_key bigint NOT NULL DEFAULT 0,
    ADD COLUMN person_email text
        CHECK (person_email = lower(person_email) AND char_length(person_email) BETWEEN 3 AND 254);

-- +goose StatementBegin
CREATE FUNCTION parties_rank() RETURNS trigger LANGUAGE plpgsql AS $$
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

-- Every change of a room (app.Rooms.commit) ends with an UPDATE of its row,
-- after its confirmations are written: the ranks are computed then.
CREATE TRIGGER rooms_rank AFTER UPDATE ON rooms FOR EACH ROW EXECUTE FUNCTION parties_rank();

CREATE INDEX parties_account_rank ON parties (account_id, rank, rank_key, room_id, side)
    WHERE account_id IS NOT NULL;

UPDATE rooms SET updated_at = updated_at;

-- +goose Down
DROP INDEX parties_account_rank;
DROP TRIGGER rooms_rank ON rooms;
DROP FUNCTION parties_rank();
ALTER TABLE parties DROP COLUMN person_email, DROP COLUMN rank_key, DROP COLUMN rank;
