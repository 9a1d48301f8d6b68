//! Sentence embeddings for semantic tool search: what an embedding model is to the rest of
//! Switchboard. The in-process model and the OpenAI-compatible endpoint implement
//! [`Embedder`]; the tool index asks it for vectors and never knows which one answers.

use std::fmt::Debug;
use std::future::Future;
use std::pin::Pin;

/// The vectors of a batch of texts, one per text, in order.
pub type Vectors = Vec<Vec<f32>>;

/// What [`Embedder::embed`] returns.
pub type EmbedFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Vectors, EmbeddingError>> + Send + 'a>>;

/// A sentence embedding model.
pub trait Embedder: Send + Sync + Debug {
    /// Names the model and where it runs, so vectors of two models are never mixed (it is part
    /// of the key vectors are cached under).
    fn model(&self) -> &str;

    /// One vector per text, L2-normalised, in the texts' order.
    fn embed<'a>(&'a self, texts: &'a [String]) -> EmbedFuture<'a>;
}

/// Why texts could not be embedded. Search goes on lexically when it happens.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmbeddingError {
    /// The model directory could not be read or loaded.
    #[error("the embedding model could not be loaded: {0}")]
    Load(String),
    /// The model failed on the input.
    #[error("the embedding model failed: {0}")]
    Model(String),
    /// The embeddings endpoint could not be reached or answered an error.
    #[error("the embeddings endpoint failed: {0}")]
    Endpoint(String),
}
