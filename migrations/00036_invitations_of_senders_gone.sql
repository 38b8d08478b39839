-- An invitation's link carries the authority of whoever sent it (or sent
-- it again): it is revoked when they leave the account, are removed, or
-- are given a role that may not invite to its role (app.revokeSentInvitations).
-- Here, the invitations waiting so far whose sender is already such a
-- person: until now they stayed valid, so someone removed could still let
-- an address of theirs join within 7 days. An operator's (invited_by NULL)
-- stay as they are.

-- +goose Up
UPDATE account_invitations i SET revoked_at = now()
WHERE i.accepted_at IS NULL AND i.revoked_at IS NULL AND i.invited_by IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.account_id = i.account_id AND m.user_id = i.invited_by
      AND (m.role = 'owner' OR (m.role = 'admin' AND i.role = 'member')));

-- +goose Down
-- A revoked invitation stays revoked: its invitee is asked again if wanted.
SELECT 1;
