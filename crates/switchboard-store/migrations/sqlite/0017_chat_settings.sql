-- A chat's own model, system prompt and temperature, chosen in the chat without making an
-- assistant; NULL: the assistant's, else the provider's default.
ALTER TABLE conversations ADD COLUMN model TEXT;
ALTER TABLE conversations ADD COLUMN system_prompt TEXT;
ALTER TABLE conversations ADD COLUMN temperature REAL;
