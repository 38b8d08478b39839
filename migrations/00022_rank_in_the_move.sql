-- A party's rank in the dashboard's order is written by the move's own
-- room UPDATE (a data-modifying WITH: app.updateRoom), not by a PL/pgSQL
-- trigger on rooms: the trigger's function call and plan were a tenth of
-- PostgreSQL's time per move.

-- +goose Up
DROP TRIGGER rooms_rank ON rooms;
DROP FUNCTION parties_rank();

-- +goose Down
-- +goose StatementBegin
CREATE FUNCTION parties_rank() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER rooms_rank AFTER UPDATE ON rooms FOR EACH ROW EXECUTE FUNCTION parties_rank();
