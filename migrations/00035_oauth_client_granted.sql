-- A client registration no one ever granted expires (app.Retention,
-- RETAIN_OAUTH_CLIENT_DAYS): anyone may register clients (Dynamic Client
-- Registration, 10 a minute per address, up to 16 KiB each), and they were
-- kept for good. granted_at is when a person first consented to the client
-- (app.OAuth.Connect, in the consent's transaction); a client once granted
-- is kept, as before, even after its agents are gone. Here, the clients
-- someone connected an agent with, or that hold a code or token, so far.
-- The index holds only the clients never granted: the purge walks them by
-- age.

-- +goose Up
ALTER TABLE oauth_clients ADD COLUMN granted_at timestamptz;
UPDATE oauth_clients c SET granted_at = c.created_at
WHERE EXISTS (SELECT 1 FROM oauth_agents o WHERE o.client_id = c.id)
   OR EXISTS (SELECT 1 FROM oauth_tokens t WHERE t.client_id = c.id);
CREATE INDEX oauth_clients_ungranted ON oauth_clients (created_at) WHERE granted_at IS NULL;

-- +goose Down
DROP INDEX oauth_clients_ungranted;
ALTER TABLE oauth_clients DROP COLUMN granted_at;
