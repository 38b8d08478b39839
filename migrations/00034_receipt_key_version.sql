-- A receipt key is never retired: every version that signed a receipt
-- must stay published, so RECEIPT_KEY_VERSION may not go below it.
--
-- installation.receipt_key_version is the highest RECEIPT_KEY_VERSION a
-- process of this database started with (it may sign receipts with it),
-- raised by each process as it starts (app.KeepReceiptKeyVersion), which
-- refuses to start with a lower one. Here, the highest version that signed
-- one of the receipts kept so far (NULL: none yet).

-- +goose Up
ALTER TABLE installation ADD COLUMN receipt_key_version int CHECK (receipt_key_version >= 1);
UPDATE installation SET receipt_key_version =
    (SELECT max(substring(kid FROM '^taasky-receipt-([0-9]{1,4})-')::int) FROM receipts);

-- +goose Down
ALTER TABLE installation DROP COLUMN receipt_key_version;
