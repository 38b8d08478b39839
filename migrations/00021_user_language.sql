-- A person's language: their own choice (NULL: none made), and the
-- locale their identity provider gave at the last sign-in (the OIDC
-- `locale` claim), which stands in until they choose. The browser's
-- Accept-Language comes after both.

-- +goose Up
ALTER TABLE users ADD COLUMN language text,
    ADD COLUMN oidc_locale text;

-- +goose Down
ALTER TABLE users DROP COLUMN language, DROP COLUMN oidc_locale;
