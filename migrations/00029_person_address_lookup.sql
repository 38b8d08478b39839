-- A person who deletes their profile (or whose account is deleted) is
-- forgotten in the rooms they answered in the browser with the same
-- address, and in those they were invited to by it: these partial indexes
-- find those rows without reading every room. They hold only the rows with
-- an address (a person's seat, a room whose invitation was emailed), and
-- no move changes the column, so a move's update stays a HOT update.

-- +goose Up
CREATE INDEX parties_person_email ON parties (lower(person_email)) WHERE person_email IS NOT NULL;
CREATE INDEX rooms_invite_email ON rooms (lower(invite_email)) WHERE invite_email IS NOT NULL;

-- +goose Down
DROP INDEX rooms_invite_email;
DROP INDEX parties_person_email;
