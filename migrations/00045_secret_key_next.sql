-- During a rotation of SECRET_KEY (SECRET_KEY_PREVIOUS set), every process
-- must have the same new key: what one seals under a second new key no
-- other process, nor `taasky secret-key rotate`, opens, and it is lost once
-- SECRET_KEY_PREVIOUS is removed. installation.key_check_next is the new
-- key's fingerprint (as key_check), written by the first process that
-- starts with SECRET_KEY_PREVIOUS while key_check is still the previous
-- key's (app.CheckSecretKey); a process with another new key is refused,
-- and the rotation's command records it as key_check and clears it. NULL
-- outside a rotation.

-- +goose Up
ALTER TABLE installation ADD COLUMN key_check_next bytea CHECK (octet_length(key_check_next) = 32);

-- +goose Down
ALTER TABLE installation DROP COLUMN key_check_next;
