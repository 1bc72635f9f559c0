-- At most 100 live (unrevoked) API keys per account: checked inside the insert, as
-- inbound_webhooks_cap is (0011), so concurrent creates cannot all pass 99 on a count read
-- before them (40 at once left 106). Every insert meets it: POST /v1/api-keys and the admin API.
-- src/model/api-keys.ts MAX_LIVE_KEYS holds the same number for messages and docs.
CREATE TRIGGER api_keys_cap BEFORE INSERT ON api_keys
WHEN (SELECT count(*) FROM api_keys WHERE account_id = new.account_id AND revoked_at IS NULL) >= 100 BEGIN
  SELECT RAISE(ABORT, 'api_key_limit_reached');
END;
