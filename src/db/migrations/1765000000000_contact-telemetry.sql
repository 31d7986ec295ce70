-- Up Migration

-- Device telemetry on the user's Intercom contact (decision 047): a digest of the custom attributes last
-- written there, so the same telemetry again is not written again. NULL: nothing written to this contact yet.
ALTER TABLE user_contacts ADD COLUMN telemetry_digest text;

-- Down Migration

ALTER TABLE user_contacts DROP COLUMN telemetry_digest;
