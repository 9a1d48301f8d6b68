-- An API token may expire (ms since the Unix epoch); NULL: it lasts until revoked.
ALTER TABLE api_tokens ADD COLUMN expires_at BIGINT;
