-- The mail telling an owner that a failing webhook endpoint was turned off
-- is a line of that owner's delivery log (topic webhook_disabled), as every
-- mail is: a retry after a crash then knows it was sent.
--
-- A one-tap token remembers whom its mail went to: the page it opens shows
-- the card in that person's time zone and language, also when the side's
-- human left and an owner answers for them. No foreign key: user ids are
-- never reused, a user erased leaves an id that names nobody (the page then
-- falls back to UTC), and erasing a user need not scan every token.

-- +goose Up
ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_topic_check,
    ADD CONSTRAINT notification_deliveries_topic_check
        CHECK (topic IN ('request', 'reminder', 'agreed', 'closed', 'no_deal', 'test', 'invite', 'member_invite', 'webhook_disabled'));
ALTER TABLE onetap_tokens ADD COLUMN user_id bigint;

-- +goose Down
ALTER TABLE onetap_tokens DROP COLUMN user_id;
DELETE FROM notification_deliveries WHERE topic = 'webhook_disabled';
ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_topic_check,
    ADD CONSTRAINT notification_deliveries_topic_check
        CHECK (topic IN ('request', 'reminder', 'agreed', 'closed', 'no_deal', 'test', 'invite', 'member_invite'));
