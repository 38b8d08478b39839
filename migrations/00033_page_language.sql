-- The language a person's pages were last shown in while they had made
-- no choice (users.language NULL): their identity provider's locale when
-- Taasky speaks it, else their browser's Accept-Language. The browser's
-- language is known only while they browse, and their mails are written
-- later, by a worker: an invitation they send, a confirmation request to
-- them. It is noted when it changes (the dashboard compares it with the
-- row it reads anyway), so a page costs no write of its own; a mail takes
-- the person's choice, else this, else the provider's locale.
--
-- Applied statement by statement (NO TRANSACTION, rewritten after a
-- measure on 300,000 rooms: docs/operations.md, "Upgrading"), each one
-- safe to run again if a later one stops it; the schema it leaves is the
-- one the single transaction left.

-- +goose NO TRANSACTION
-- +goose Up
-- The CHECK is added NOT VALID, then validated (00026 says why).
ALTER TABLE users ADD COLUMN IF NOT EXISTS page_language text,
    DROP CONSTRAINT IF EXISTS users_page_language_check,
    ADD CONSTRAINT users_page_language_check CHECK (char_length(page_language) <= 35) NOT VALID;
ALTER TABLE users VALIDATE CONSTRAINT users_page_language_check;

-- +goose Down
ALTER TABLE users DROP COLUMN page_language;
