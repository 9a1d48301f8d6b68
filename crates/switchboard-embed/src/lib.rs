//! Sentence embeddings for semantic tool search: the implementations of
//! [`switchboard_core::Embedder`].
//!
//! - [`LocalModel`]: a sentence-transformers model directory (`model.safetensors`,
//!   `tokenizer.json`, `config.json`, `1_Pooling/config.json`) run in this process on the CPU:
//!   a BERT encoder written on candle's tensors ([`bert`](crate::bert)), the model's own
//!   tokenizer, its pooling, L2-normalised. No other service is needed.
//! - [`EndpointEmbedder`]: any OpenAI-compatible `/v1/embeddings` endpoint (Ollama, llama.cpp,
//!   vLLM, OpenAI).
//! - [`Cached`]: either of them behind a [`VectorCache`] keyed by the model and the text's
//!   SHA-256, so a restart or a second replica does not embed the same text again (the store
//!   keeps the vectors; the application joins the two).
//!
//! ```no_run
//! # async fn demo() -> Result<(), switchboard_core::EmbeddingError> {
//! use switchboard_core::Embedder;
//! use switchboard_embed::LocalModel;
//!
//! let model = LocalModel::open("./all-MiniLM-L6-v2".into()).await?;
//! let vectors = model.embed(&["create a GitHub issue".to_owned()]).await?;
//! assert_eq!(vectors[0].len(), model.dims());
//! # Ok(()) }
//! ```

mod bert;
mod cache;
mod endpoint;
mod local;
mod pooling;

pub use cache::{CacheError, Cached, TextHash, VectorCache, text_hash};
pub use endpoint::{EndpointConfig, EndpointEmbedder};
pub use local::LocalModel;
pub use pooling::normalized;
