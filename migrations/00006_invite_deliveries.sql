-- An invitation emailed at the open (negotiation_open's invite_email) is a
-- delivery like the others: logged in the opener's delivery log, so their
-- human sees whether it was sent.

-- +goose Up
ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_topic_check;
ALTER TABLE notification_deliveries ADD CONSTRAINT notification_deliveries_topic_check
    CHECK (topic IN ('request', 'reminder', 'agreed', 'closed', 'no_deal', 'test', 'invite'));

-- +goose Down
DELETE FROM notification_deliveries WHERE topic = 'invite';
ALTER TABLE notification_deliveries DROP CONSTRAINT notification_deliveries_topic_check;
ALTER TABLE notification_deliveries ADD CONSTRAINT notification_deliveries_topic_check
    CHECK (topic IN ('request', 'reminder', 'agreed', 'closed', 'no_deal', 'test'));
