-- A person's language: their own choice (NULL: none made), and the
-- locale their identity provider gave at the last sign-in (the OIDC
-- `locale` claim), which stands in until they choose. The browser's
-- Accept-Language comes after both.
--
-- The addresses that refused invitations: an invitation mail carries a
-- link that stops every further one to its address. Only a hash of the
-- lowercased address is kept.

-- +goose Up
ALTER TABLE users ADD COLUMN language text,
    ADD COLUMN oidc_locale text;
CREATE TABLE invite_refusals (
    email_hash bytea PRIMARY KEY,
    refused_at timestamptz NOT NULL
);

-- +goose Down
DROP TABLE invite_refusals;
ALTER TABLE users DROP COLUMN language, DROP COLUMN oidc_locale;
