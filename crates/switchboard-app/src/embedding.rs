//! The embedding model semantic tool search uses: chosen in the settings
//! ([`EmbeddingChoice`]), made once by [`App::build`](crate::App::build), and always behind
//! the store's vector cache ([`StoreVectors`]), so a text is embedded once per model across
//! restarts and replicas.
//!
//! A model that cannot be made (a directory that is not a model, an endpoint URL that does
//! not parse) is logged as an error and the application runs without one: search is then
//! lexical, as when none is configured.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use switchboard_core::{Embedder, EmbeddingError};
use switchboard_embed::{
    CacheError, Cached, EndpointConfig, EndpointEmbedder, LocalModel, TextHash, VectorCache,
};
use switchboard_store::Store;

/// Which embedding model, if any (`[search]` in the settings).
#[derive(Debug, Clone, Default)]
pub enum EmbeddingChoice {
    /// None: search is lexical.
    #[default]
    None,
    /// A sentence-transformers model directory, run in this process.
    LocalDir(PathBuf),
    /// An OpenAI-compatible embeddings endpoint the administrator configured (not guarded:
    /// the destination guard is for what members configure).
    Endpoint(EndpointConfig),
    /// A model made elsewhere (tests).
    Given(Arc<dyn Embedder>),
}

impl EmbeddingChoice {
    /// A local model loaded, on a blocking thread; everything else as it is.
    pub(crate) async fn loaded(self) -> Self {
        match self {
            EmbeddingChoice::LocalDir(dir) => match LocalModel::open(dir.clone()).await {
                Ok(model) => EmbeddingChoice::Given(Arc::new(model)),
                Err(error) => {
                    unusable(&error);
                    EmbeddingChoice::None
                }
            },
            other => other,
        }
    }

    /// The model, its vectors cached in `store`. A local model not loaded yet is loaded here,
    /// blocking the calling thread ([`App::build`](crate::App::build) loads it beforehand).
    pub(crate) fn embedder(self, store: &Arc<dyn Store>) -> Option<Arc<dyn Embedder>> {
        let made: Result<Arc<dyn Embedder>, EmbeddingError> = match self {
            EmbeddingChoice::None => return None,
            EmbeddingChoice::LocalDir(dir) => {
                LocalModel::load(&dir).map(|m| Arc::new(m) as Arc<dyn Embedder>)
            }
            EmbeddingChoice::Endpoint(config) => {
                EndpointEmbedder::new(config).map(|e| Arc::new(e) as Arc<dyn Embedder>)
            }
            EmbeddingChoice::Given(embedder) => Ok(embedder),
        };
        match made {
            Ok(inner) => {
                tracing::info!(model = inner.model(), "semantic tool search is on");
                let cache = Arc::new(StoreVectors(Arc::clone(store)));
                Some(Arc::new(Cached::new(inner, cache)))
            }
            Err(error) => {
                unusable(&error);
                None
            }
        }
    }
}

fn unusable(error: &EmbeddingError) {
    tracing::error!(%error, "no embedding model: tool search is lexical only");
}

/// The store as the embedders' [`VectorCache`].
#[derive(Debug)]
pub struct StoreVectors(pub Arc<dyn Store>);

#[async_trait]
impl VectorCache for StoreVectors {
    async fn get(
        &self,
        model: &str,
        hashes: &[TextHash],
    ) -> Result<HashMap<TextHash, Vec<f32>>, CacheError> {
        let found = self
            .0
            .vectors(model, hashes)
            .await
            .map_err(|e| CacheError(Box::new(e)))?;
        Ok(found.into_iter().collect())
    }

    async fn put(&self, model: &str, vectors: &[(TextHash, Vec<f32>)]) -> Result<(), CacheError> {
        self.0
            .put_vectors(model, vectors)
            .await
            .map_err(|e| CacheError(Box::new(e)))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use switchboard_core::{EmbedFuture, Vectors};
    use switchboard_store::StoreConfig;

    use super::*;

    /// Counts the texts it embeds.
    #[derive(Debug, Default)]
    struct Counting(Mutex<usize>);

    impl Embedder for Counting {
        fn model(&self) -> &str {
            "counting"
        }

        fn embed<'a>(&'a self, texts: &'a [String]) -> EmbedFuture<'a> {
            Box::pin(async move {
                *self.0.lock().unwrap() += texts.len();
                let vectors: Vectors = texts.iter().map(|t| vec![t.len() as f32, 1.0]).collect();
                Ok(vectors)
            })
        }
    }

    #[tokio::test]
    async fn vectors_are_kept_in_the_store_across_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let texts = vec!["create an issue".to_owned(), "read a file".to_owned()];
        for embedded_now in [2, 0] {
            let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
                .await
                .unwrap();
            let inner = Arc::new(Counting::default());
            let embedder = EmbeddingChoice::Given(Arc::clone(&inner) as Arc<dyn Embedder>)
                .embedder(&store)
                .unwrap();
            assert_eq!(embedder.model(), "counting");
            let vectors = embedder.embed(&texts).await.unwrap();
            assert_eq!(vectors, [vec![15.0, 1.0], vec![11.0, 1.0]]);
            assert_eq!(*inner.0.lock().unwrap(), embedded_now);
            store.close().await;
        }
    }

    #[tokio::test]
    async fn without_a_usable_model_search_is_lexical() {
        let dir = tempfile::tempdir().unwrap();
        let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
            .await
            .unwrap();
        assert!(EmbeddingChoice::None.embedder(&store).is_none());
        let not_a_model = EmbeddingChoice::LocalDir(dir.path().to_owned());
        assert!(not_a_model.loaded().await.embedder(&store).is_none());
        let bad_url = EmbeddingChoice::Endpoint(EndpointConfig::new("not a url", "m"));
        assert!(bad_url.embedder(&store).is_none());
    }
}
