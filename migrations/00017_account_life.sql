-- The account's life: a room closes with the reason 'account_deleted'
-- when one side's account is deleted while it is open
-- (negotiation.ClosedAccountDeleted).

-- +goose Up
ALTER TABLE rooms DROP CONSTRAINT rooms_closed_reason_check,
    ADD CONSTRAINT rooms_closed_reason_check
        CHECK (closed_reason IN ('rejected', 'cancelled', 'withdrawn', 'expired', 'lapsed', 'account_deleted'));

-- +goose Down
-- A room closed for a deleted account reads as cancelled to older code
-- (its snapshot and log keep account_deleted: taasky check of older code
-- reports such rooms).
UPDATE rooms SET closed_reason = 'cancelled' WHERE closed_reason = 'account_deleted';
ALTER TABLE rooms DROP CONSTRAINT rooms_closed_reason_check,
    ADD CONSTRAINT rooms_closed_reason_check
        CHECK (closed_reason IN ('rejected', 'cancelled', 'withdrawn', 'expired', 'lapsed'));
