-- Sentence vectors of semantic tool search, kept so that a restart or another replica does not
-- embed the same text again. `model` names the embedding model (the local model's weights'
-- hash, or the endpoint and its model); `text_hash` is the SHA-256 of the text; `vector` is
-- `dims` floats as little-endian f32 bytes. Not owned: the same text has the same vector for
-- everyone. Times are ms since the Unix epoch.
CREATE TABLE embedding_vectors (
    model TEXT NOT NULL,
    text_hash BLOB NOT NULL,
    dims BIGINT NOT NULL,
    vector BLOB NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (model, text_hash)
);
