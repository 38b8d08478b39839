-- An agent's rooms (negotiation_list) are its parties, newest room first,
-- a page before a room id. parties_account_room (account_id, room_id DESC)
-- left agent_id to a filter, and the prepared statement's generic plan,
-- costed as if each tenant held an equal share of the rooms, preferred
-- walking parties' primary key down from the newest room, filtering, which
-- for a small tenant beside a big one reads every room of the big one
-- (352 ms for a tenant of 1,000 rooms beside one of 1,000,000). With an
-- index on (account_id, agent_id, room_id DESC) the same generic plan still
-- chose the primary key walk (its heap order is the index's, which the
-- costs reward). This index is on -room_id, and the list is written on
-- -room_id (app.summariesByAgentSQL): every condition and the order are
-- the index's, and no other index yields that order, so every plan reads
-- the agent's own entries only (app.TestListPlans). It replaces
-- parties_account_room: its leading column serves whatever looks parties
-- up by account (the foreign key to accounts), and the one query that
-- wanted the order by room is the agent's list.

-- +goose Up
CREATE INDEX parties_agent_newest ON parties (account_id, agent_id, (-room_id));
DROP INDEX parties_account_room;

-- +goose Down
CREATE INDEX parties_account_room ON parties (account_id, room_id DESC);
DROP INDEX parties_agent_newest;
