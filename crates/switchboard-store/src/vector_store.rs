//! [`VectorStore`]: sentence vectors kept by embedding model and text hash, so semantic tool
//! search does not embed the same text again after a restart or on another replica.
//!
//! Not owned: a vector depends only on the model and the text (its SHA-256), so everyone's
//! identical tool descriptions share one. A vector is `dims` floats kept as little-endian f32
//! bytes; a row whose bytes do not make `dims` floats is [`StoreError::Corrupt`].

use async_trait::async_trait;

use crate::StoreError;

/// The SHA-256 of a text's UTF-8 bytes.
pub type TextHash = [u8; 32];

/// Texts' vectors per model.
#[async_trait]
pub trait VectorStore: Send + Sync {
    /// The vectors kept for `model` under any of `hashes`; a hash with none is left out.
    async fn vectors(
        &self,
        model: &str,
        hashes: &[TextHash],
    ) -> Result<Vec<(TextHash, Vec<f32>)>, StoreError>;

    /// Keeps `vectors` for `model`, in one transaction; a hash kept already is replaced.
    async fn put_vectors(
        &self,
        model: &str,
        vectors: &[(TextHash, Vec<f32>)],
    ) -> Result<(), StoreError>;
}
