-- A webhook message's payload is kept sealed (AES-256-GCM under the
-- limits' key, bound to its account and message: app.Webhooks.sealPayload),
-- for it is the side's own view, whose outside_your_limits flags bound its
-- sealed limits. It has a column of its own: a worker of a build before
-- sends payload as the body it finds there, so a sealed one in payload
-- would reach receivers as ciphertext during a rolling upgrade or after a
-- rollback. New messages leave payload NULL (an older worker renders the
-- body afresh, as it did for a message never sent); payload keeps what
-- older builds wrote, sent as it is until retention deletes it.

-- +goose Up
ALTER TABLE webhook_messages ADD COLUMN payload_sealed bytea;

-- +goose Down
ALTER TABLE webhook_messages DROP COLUMN payload_sealed;
