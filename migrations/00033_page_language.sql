-- The language a person's pages were last shown in while they had made
-- no choice (users.language NULL): their identity provider's locale when
-- Taasky speaks it, else their browser's Accept-Language. The browser's
-- language is known only while they browse, and their mails are written
-- later, by a worker: an invitation they send, a confirmation request to
-- them. It is noted when it changes (the dashboard compares it with the
-- row it reads anyway), so a page costs no write of its own; a mail takes
-- the person's choice, else this, else the provider's locale.

-- +goose Up
ALTER TABLE users ADD COLUMN page_language text CHECK (char_length(page_language) <= 35);

-- +goose Down
ALTER TABLE users DROP COLUMN page_language;
