//! [`Cached`]: an [`Embedder`] that asks a [`VectorCache`] first, embeds only the texts it
//! does not know, and keeps what it embedded.
//!
//! Vectors are kept under the model's name ([`Embedder::model`]) and the SHA-256 of the text,
//! so two models never share vectors and a text is embedded once wherever it comes from.
//! The cache only saves work: when it fails, the texts are embedded anyway and the failure
//! is logged, never returned.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use async_trait::async_trait;
use switchboard_core::{EmbedFuture, Embedder, EmbeddingError, Vectors};

/// The SHA-256 of a text's UTF-8 bytes.
pub type TextHash = [u8; 32];

/// The hash a text's vector is kept under.
pub fn text_hash(text: &str) -> TextHash {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, text.as_bytes());
    let mut hash = [0; 32];
    hash.copy_from_slice(digest.as_ref());
    hash
}

/// Why the cache could not be read or written.
#[derive(Debug, thiserror::Error)]
#[error("the vector cache failed: {0}")]
pub struct CacheError(#[source] pub Box<dyn std::error::Error + Send + Sync>);

/// Where vectors are kept, by model and text hash (the store, in the application).
#[async_trait]
pub trait VectorCache: Send + Sync + std::fmt::Debug {
    /// The vectors kept for `model` under any of `hashes`; a hash with none is absent.
    async fn get(
        &self,
        model: &str,
        hashes: &[TextHash],
    ) -> Result<HashMap<TextHash, Vec<f32>>, CacheError>;

    /// Keeps `vectors` for `model` (a hash already kept is replaced).
    async fn put(&self, model: &str, vectors: &[(TextHash, Vec<f32>)]) -> Result<(), CacheError>;
}

/// `inner` behind `cache`.
#[derive(Debug)]
pub struct Cached<E: ?Sized> {
    cache: Arc<dyn VectorCache>,
    inner: Arc<E>,
}

impl<E: Embedder + ?Sized> Cached<E> {
    pub fn new(inner: Arc<E>, cache: Arc<dyn VectorCache>) -> Self {
        Self { cache, inner }
    }

    /// The embedder behind the cache.
    pub fn inner(&self) -> &Arc<E> {
        &self.inner
    }

    async fn embed_cached(&self, texts: &[String]) -> Result<Vectors, EmbeddingError> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let model = self.inner.model();
        let hashes: Vec<TextHash> = texts.iter().map(|t| text_hash(t)).collect();
        let mut unique = hashes.clone();
        unique.sort_unstable();
        unique.dedup();
        let mut known = match self.cache.get(model, &unique).await {
            Ok(known) => known,
            Err(error) => {
                tracing::warn!(%error, model, "embedding without the vector cache");
                HashMap::new()
            }
        };
        // Each text the cache does not know, once.
        let mut missing: Vec<String> = Vec::new();
        let mut missing_hashes: Vec<TextHash> = Vec::new();
        let mut seen = HashSet::new();
        for (text, hash) in texts.iter().zip(&hashes) {
            if !known.contains_key(hash) && seen.insert(*hash) {
                missing.push(text.clone());
                missing_hashes.push(*hash);
            }
        }
        if !missing.is_empty() {
            let fresh = self.inner.embed(&missing).await?;
            if fresh.len() != missing.len() {
                return Err(EmbeddingError::Model(format!(
                    "{} vectors for {} texts",
                    fresh.len(),
                    missing.len()
                )));
            }
            let entries: Vec<(TextHash, Vec<f32>)> =
                missing_hashes.into_iter().zip(fresh).collect();
            if let Err(error) = self.cache.put(model, &entries).await {
                tracing::warn!(%error, model, "embedded vectors not cached");
            }
            known.extend(entries);
        }
        hashes
            .iter()
            .map(|hash| {
                known
                    .get(hash)
                    .cloned()
                    .ok_or_else(|| EmbeddingError::Model("a text was left without a vector".into()))
            })
            .collect()
    }
}

impl<E: Embedder + ?Sized> Embedder for Cached<E> {
    fn model(&self) -> &str {
        self.inner.model()
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> EmbedFuture<'a> {
        Box::pin(self.embed_cached(texts))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// Counts the texts it embeds; a text's vector is its length and its first byte.
    #[derive(Debug, Default)]
    struct Counting(Mutex<Vec<String>>);

    impl Embedder for Counting {
        fn model(&self) -> &str {
            "counting"
        }

        fn embed<'a>(&'a self, texts: &'a [String]) -> EmbedFuture<'a> {
            Box::pin(async move {
                self.0.lock().unwrap().extend(texts.iter().cloned());
                Ok(texts
                    .iter()
                    .map(|t| vec![t.len() as f32, f32::from(t.as_bytes()[0])])
                    .collect())
            })
        }
    }

    #[derive(Debug, Default)]
    struct Memory {
        kept: Mutex<HashMap<(String, TextHash), Vec<f32>>>,
        broken: bool,
    }

    #[async_trait]
    impl VectorCache for Memory {
        async fn get(
            &self,
            model: &str,
            hashes: &[TextHash],
        ) -> Result<HashMap<TextHash, Vec<f32>>, CacheError> {
            if self.broken {
                return Err(CacheError("down".into()));
            }
            let kept = self.kept.lock().unwrap();
            Ok(hashes
                .iter()
                .filter_map(|h| kept.get(&(model.to_owned(), *h)).map(|v| (*h, v.clone())))
                .collect())
        }

        async fn put(
            &self,
            model: &str,
            vectors: &[(TextHash, Vec<f32>)],
        ) -> Result<(), CacheError> {
            if self.broken {
                return Err(CacheError("down".into()));
            }
            let mut kept = self.kept.lock().unwrap();
            for (h, v) in vectors {
                kept.insert((model.to_owned(), *h), v.clone());
            }
            Ok(())
        }
    }

    fn texts(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| (*w).to_owned()).collect()
    }

    #[tokio::test]
    async fn each_text_is_embedded_once_and_answers_keep_their_order() {
        let inner = Arc::new(Counting::default());
        let cached = Cached::new(Arc::clone(&inner), Arc::new(Memory::default()));
        let first = cached.embed(&texts(&["bb", "a", "bb"])).await.unwrap();
        assert_eq!(first, [vec![2., 98.], vec![1., 97.], vec![2., 98.]]);
        assert_eq!(*inner.0.lock().unwrap(), ["bb", "a"]);
        let second = cached.embed(&texts(&["a", "ccc", "bb"])).await.unwrap();
        assert_eq!(second, [vec![1., 97.], vec![3., 99.], vec![2., 98.]]);
        assert_eq!(*inner.0.lock().unwrap(), ["bb", "a", "ccc"]);
        assert_eq!(cached.model(), "counting");
        assert!(cached.embed(&[]).await.unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_failing_cache_only_costs_the_work_it_would_have_saved() {
        let inner = Arc::new(Counting::default());
        let cache = Arc::new(Memory {
            broken: true,
            ..Memory::default()
        });
        let cached = Cached::new(Arc::clone(&inner), cache);
        for _ in 0..2 {
            let vectors = cached.embed(&texts(&["a"])).await.unwrap();
            assert_eq!(vectors, [vec![1., 97.]]);
        }
        assert_eq!(inner.0.lock().unwrap().len(), 2);
    }

    #[test]
    fn a_text_hash_is_its_sha256() {
        let hash = text_hash("abc");
        assert_eq!(hash[..4], [0xba, 0x78, 0x16, 0xbf]);
    }
}
