-- Deleting an account (app.Rooms.DeleteAccount). The other side's copy of
-- every room the account sat in stays whole: the room, its log, both
-- parties. What was the deleted side's is erased from its party row (its
-- human, its agent, its sealed limits, its room token) and the row keeps
-- its account_id, which then points at no account: that is how a room
-- tells "a deleted account" from a person answering in the browser (no
-- account at all). Account ids are never reused (identity), so the id
-- names nothing else. So rooms.account_id and parties.account_id lose
-- their foreign keys to accounts; the agent reference becomes NULL when
-- the agent goes (the account's agents go with it); a party's human
-- becomes NULL when that user is erased (a user in no other account).

--
-- Also: the mails inviting a person to join an account are lines of the
-- inviter's delivery log (topic member_invite), as every mail is.

-- +goose Up
ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_topic_check,
    ADD CONSTRAINT notification_deliveries_topic_check
        CHECK (topic IN ('request', 'reminder', 'agreed', 'closed', 'no_deal', 'test', 'invite', 'member_invite'));
ALTER TABLE rooms DROP CONSTRAINT rooms_account_id_fkey;
ALTER TABLE parties DROP CONSTRAINT parties_account_id_fkey,
    DROP CONSTRAINT parties_account_id_agent_id_fkey,
    ADD CONSTRAINT parties_account_id_agent_id_fkey FOREIGN KEY (account_id, agent_id)
        REFERENCES agents (account_id, id) ON DELETE SET NULL (agent_id),
    DROP CONSTRAINT parties_owner_user_id_fkey,
    ADD CONSTRAINT parties_owner_user_id_fkey FOREIGN KEY (owner_user_id)
        REFERENCES users (id) ON DELETE SET NULL;

-- +goose Down
-- The rows of deleted accounts keep their ids: the foreign keys come back
-- NOT VALID (checked for new rows only).
ALTER TABLE parties DROP CONSTRAINT parties_owner_user_id_fkey,
    ADD CONSTRAINT parties_owner_user_id_fkey FOREIGN KEY (owner_user_id) REFERENCES users (id),
    DROP CONSTRAINT parties_account_id_agent_id_fkey,
    ADD CONSTRAINT parties_account_id_agent_id_fkey FOREIGN KEY (account_id, agent_id)
        REFERENCES agents (account_id, id) NOT VALID,
    ADD CONSTRAINT parties_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) NOT VALID;
ALTER TABLE rooms ADD CONSTRAINT rooms_account_id_fkey FOREIGN KEY (account_id) REFERENCES accounts (id) NOT VALID;
DELETE FROM notification_deliveries WHERE topic = 'member_invite';
ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_topic_check,
    ADD CONSTRAINT notification_deliveries_topic_check
        CHECK (topic IN ('request', 'reminder', 'agreed', 'closed', 'no_deal', 'test', 'invite'));
