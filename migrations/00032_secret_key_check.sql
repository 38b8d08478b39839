-- Every process of one installation must run with the same SECRET_KEY: the
-- rooms' limits, invitation codes, personal links and webhook secrets are
-- sealed under keys derived from it, and a process with another key fails
-- every job it picks up ("cipher: message authentication failed").
--
-- installation.key_check is a fingerprint of the key (HMAC-SHA256, under a
-- key derived from SECRET_KEY, of a fixed label and the installation id:
-- neither the key nor a plain hash of it), written by the first process
-- that starts (app.CheckSecretKey); every later one compares its own and
-- refuses to start on a difference. NULL until then.

-- +goose Up
ALTER TABLE installation ADD COLUMN key_check bytea CHECK (octet_length(key_check) = 32);

-- +goose Down
ALTER TABLE installation DROP COLUMN key_check;
