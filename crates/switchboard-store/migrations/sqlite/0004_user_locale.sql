-- The language a user chose for messages and the web UI ('en-US', 'zh-Hans'); NULL: follow
-- the request's Accept-Language.
ALTER TABLE users ADD COLUMN locale TEXT;
