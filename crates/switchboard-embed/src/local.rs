//! [`LocalModel`]: a sentence-transformers model run in this process, on the CPU.
//!
//! Loading reads the directory ([`files`]), the tokenizer and the weights (copied out of the
//! file into tensors; the file's bytes are dropped once loaded, so the model holds about the
//! size of `model.safetensors`). Embedding tokenises a batch (cut at the model's
//! `max_seq_length`, padded to its longest text), runs the encoder, pools and normalises.
//! Texts are embedded in batches of similar length, so little work goes into padding, and on
//! Tokio's blocking threads, so the CPU-heavy work never holds up the runtime.

mod files;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use candle_core::{DType, Device};
use candle_nn::VarBuilder;
use switchboard_core::{EmbedFuture, Embedder, EmbeddingError, Vectors};
use tokenizers::{Encoding, Tokenizer, TruncationParams};

use crate::bert::{Bert, ids_tensor, mask_tensor};
use crate::pooling::{Pooling, normalized};
use files::{ModelFiles, TOKENIZER, WEIGHTS, load_error, read_bytes};

/// Texts encoded in one forward pass, at most.
const BATCH: usize = 32;

/// Positions (texts times the longest one's word pieces) of one forward pass, at most, unless
/// a single text has more.
const BATCH_TOKENS: usize = 2048;

/// Hex digits of the weights' SHA-256 in [`LocalModel`]'s model name.
const HASH_CHARS: usize = 16;

/// A local sentence-transformers model. Cheap to clone; `Send + Sync`.
#[derive(Clone)]
pub struct LocalModel {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    dims: usize,
    max_tokens: usize,
    bert: Bert,
    tokenizer: Tokenizer,
    pad_id: u32,
    pooling: Pooling,
    device: Device,
}

impl std::fmt::Debug for LocalModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LocalModel")
            .field("name", &self.inner.name)
            .field("dims", &self.inner.dims)
            .field("max_tokens", &self.inner.max_tokens)
            .field("pooling", &self.inner.pooling)
            .finish_non_exhaustive()
    }
}

impl LocalModel {
    /// Loads the model in `dir` on a blocking thread (it reads and copies some 100 MB).
    pub async fn open(dir: PathBuf) -> Result<Self, EmbeddingError> {
        tokio::task::spawn_blocking(move || Self::load(&dir))
            .await
            .map_err(|e| EmbeddingError::Load(format!("the loading thread failed: {e}")))?
    }

    /// Loads the model in `dir`, blocking the calling thread.
    pub fn load(dir: &Path) -> Result<Self, EmbeddingError> {
        let files = ModelFiles::read(dir)?;
        let mut tokenizer = Tokenizer::from_file(files.path(TOKENIZER))
            .map_err(|e| load_error(&files.path(TOKENIZER), e))?;
        let pad_id = configure(&mut tokenizer, files.max_tokens)
            .map_err(|e| load_error(&files.path(TOKENIZER), e))?;
        let weights_path = files.path(WEIGHTS);
        let weights = read_bytes(&weights_path)?;
        let name = model_name(dir, &weights);
        let device = Device::Cpu;
        let vb = VarBuilder::from_buffered_safetensors(weights, DType::F32, &device)
            .map_err(|e| load_error(&weights_path, e))?;
        let bert = Bert::load(vb, &files.config).map_err(|e| load_error(&weights_path, e))?;
        Ok(Self {
            inner: Arc::new(Inner {
                name,
                dims: files.config.hidden_size,
                max_tokens: files.max_tokens,
                bert,
                tokenizer,
                pad_id,
                pooling: files.pooling,
                device,
            }),
        })
    }

    /// The length of every vector.
    pub fn dims(&self) -> usize {
        self.inner.dims
    }

    /// Word pieces of a text the model reads (special tokens included); the rest is cut.
    pub fn max_tokens(&self) -> usize {
        self.inner.max_tokens
    }

    /// [`Embedder::embed`] on the calling thread.
    pub fn embed_blocking(&self, texts: &[String]) -> Result<Vectors, EmbeddingError> {
        self.inner.embed(texts)
    }
}

impl Embedder for LocalModel {
    fn model(&self) -> &str {
        &self.inner.name
    }

    fn embed<'a>(&'a self, texts: &'a [String]) -> EmbedFuture<'a> {
        Box::pin(async move {
            if texts.is_empty() {
                return Ok(Vec::new());
            }
            let inner = Arc::clone(&self.inner);
            let texts = texts.to_vec();
            tokio::task::spawn_blocking(move || inner.embed(&texts))
                .await
                .map_err(|e| EmbeddingError::Model(format!("the embedding thread failed: {e}")))?
        })
    }
}

impl Inner {
    fn embed(&self, texts: &[String]) -> Result<Vectors, EmbeddingError> {
        let inputs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let encodings = self
            .tokenizer
            .encode_batch(inputs, true)
            .map_err(|e| EmbeddingError::Model(e.to_string()))?;
        let mut vectors: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for batch in batches(&encodings) {
            let chosen: Vec<&Encoding> = batch.iter().map(|&i| &encodings[i]).collect();
            let pooled = self
                .embed_batch(&chosen)
                .map_err(|e| EmbeddingError::Model(e.to_string()))?;
            for (&i, vector) in batch.iter().zip(pooled) {
                vectors[i] = vector;
            }
        }
        Ok(vectors)
    }

    /// One forward pass over `encodings`, padded to the longest.
    fn embed_batch(&self, encodings: &[&Encoding]) -> candle_core::Result<Vectors> {
        let rows = encodings.len();
        let columns = encodings.iter().map(|e| e.len()).max().unwrap_or(0);
        let mut ids = vec![self.pad_id; rows * columns];
        let mut type_ids = vec![0; rows * columns];
        let mut mask = vec![0; rows * columns];
        for (row, encoding) in encodings.iter().enumerate() {
            let start = row * columns;
            let len = encoding.len();
            ids[start..start + len].copy_from_slice(encoding.get_ids());
            type_ids[start..start + len].copy_from_slice(encoding.get_type_ids());
            mask[start..start + len].copy_from_slice(encoding.get_attention_mask());
        }
        let device = &self.device;
        let mask = mask_tensor(&mask, rows, columns, device)?;
        let hidden = self.bert.forward(
            &ids_tensor(ids, rows, columns, device)?,
            &ids_tensor(type_ids, rows, columns, device)?,
            &mask,
        )?;
        let pooled = self.pooling.apply(&hidden, &mask)?;
        Ok(pooled
            .to_vec2::<f32>()?
            .into_iter()
            .map(normalized)
            .collect())
    }
}

/// The encodings' places grouped into forward passes: longest first, each pass at most
/// [`BATCH`] texts and [`BATCH_TOKENS`] padded positions (one long text does not make a
/// whole batch of short ones pay for its length).
fn batches(encodings: &[Encoding]) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..encodings.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(encodings[i].len()));
    let mut batches: Vec<Vec<usize>> = Vec::new();
    for i in order {
        match batches.last_mut() {
            // The batch's first text is its longest.
            Some(batch)
                if batch.len() < BATCH
                    && (batch.len() + 1) * encodings[batch[0]].len() <= BATCH_TOKENS =>
            {
                batch.push(i);
            }
            _ => batches.push(vec![i]),
        }
    }
    batches
}

/// Cuts texts at `max_tokens` word pieces and leaves padding to [`Inner::embed_batch`] (a
/// `tokenizer.json` may come with a fixed padding and a shorter cut of its own); the id
/// padding is written with.
fn configure(tokenizer: &mut Tokenizer, max_tokens: usize) -> Result<u32, String> {
    let pad_id = tokenizer.get_padding().map_or(0, |p| p.pad_id);
    tokenizer.with_padding(None);
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: max_tokens,
            ..TruncationParams::default()
        }))
        .map_err(|e| e.to_string())?;
    Ok(pad_id)
}

/// `local:<directory name>@<weights' SHA-256, first 16 hex digits>`: another model, or the
/// same one retrained, never shares its cached vectors.
fn model_name(dir: &Path, weights: &[u8]) -> String {
    let digest = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, weights);
    let hex: String = digest
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
        .chars()
        .take(HASH_CHARS)
        .collect();
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".to_owned());
    format!("local:{name}@{hex}")
}
