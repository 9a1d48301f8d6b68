//! What a sentence-transformers model directory holds, read and checked before any weight is
//! loaded, so a wrong directory fails with the file and the reason.
//!
//! ```text
//! config.json                   the encoder's shape (BertConfig)
//! tokenizer.json                the tokenizer (Hugging Face `tokenizers` format)
//! model.safetensors             the weights
//! modules.json                  the pipeline: Transformer, Pooling, Normalize (optional)
//! sentence_bert_config.json     max_seq_length (optional)
//! 1_Pooling/config.json         the pooling (the path modules.json gives; mean when absent)
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde::de::DeserializeOwned;
use switchboard_core::EmbeddingError;

use crate::bert::BertConfig;
use crate::pooling::{Pooling, PoolingConfig};

pub(crate) const WEIGHTS: &str = "model.safetensors";
pub(crate) const TOKENIZER: &str = "tokenizer.json";
const CONFIG: &str = "config.json";
const MODULES: &str = "modules.json";
const SENTENCE_CONFIG: &str = "sentence_bert_config.json";
const POOLING_MODULE: &str = "sentence_transformers.models.Pooling";
const DEFAULT_POOLING_DIR: &str = "1_Pooling";

/// The model directory's settings (everything but the weights and the tokenizer).
#[derive(Debug, Clone)]
pub(crate) struct ModelFiles {
    pub dir: PathBuf,
    pub config: BertConfig,
    pub pooling: Pooling,
    /// Word pieces per text, special tokens included; longer texts are cut.
    pub max_tokens: usize,
}

#[derive(Debug, Deserialize)]
struct Module {
    #[serde(default)]
    path: String,
    #[serde(rename = "type", default)]
    kind: String,
}

#[derive(Debug, Deserialize)]
struct SentenceConfig {
    #[serde(default)]
    max_seq_length: Option<usize>,
}

impl ModelFiles {
    pub fn read(dir: &Path) -> Result<Self, EmbeddingError> {
        let config: BertConfig = read_json(&dir.join(CONFIG))?;
        if let Some(why) = config.unsupported() {
            return Err(load_error(&dir.join(CONFIG), why));
        }
        let pooling_dir = match optional_json::<Vec<Module>>(&dir.join(MODULES))? {
            Some(modules) => modules
                .into_iter()
                .find(|m| m.kind == POOLING_MODULE)
                .map(|m| m.path)
                .unwrap_or_else(|| DEFAULT_POOLING_DIR.to_owned()),
            None => DEFAULT_POOLING_DIR.to_owned(),
        };
        let pooling_path = dir.join(&pooling_dir).join(CONFIG);
        let pooling = match optional_json::<PoolingConfig>(&pooling_path)? {
            Some(pooling) => pooling
                .pooling()
                .map_err(|why| load_error(&pooling_path, why))?,
            // sentence-transformers' own default for a bare transformer.
            None => Pooling::Mean,
        };
        let sentence = optional_json::<SentenceConfig>(&dir.join(SENTENCE_CONFIG))?;
        let max_tokens = sentence
            .and_then(|s| s.max_seq_length)
            .unwrap_or(config.max_position_embeddings)
            .min(config.max_position_embeddings);
        Ok(Self {
            dir: dir.to_owned(),
            config,
            pooling,
            max_tokens,
        })
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

pub(crate) fn load_error(path: &Path, why: impl std::fmt::Display) -> EmbeddingError {
    EmbeddingError::Load(format!("{}: {why}", path.display()))
}

pub(crate) fn read_bytes(path: &Path) -> Result<Vec<u8>, EmbeddingError> {
    std::fs::read(path).map_err(|e| load_error(path, e))
}

fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, EmbeddingError> {
    serde_json::from_slice(&read_bytes(path)?).map_err(|e| load_error(path, e))
}

fn optional_json<T: DeserializeOwned>(path: &Path) -> Result<Option<T>, EmbeddingError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| load_error(path, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(load_error(path, e)),
    }
}
