//! `[search]`: the embedding model semantic tool search uses, if any: a local
//! sentence-transformers model directory run in this process, or an OpenAI-compatible
//! embeddings endpoint. Neither set: search is lexical only. The endpoint's key is a
//! credential: `config show` says it is set, never what it is.

use std::path::PathBuf;

use switchboard_app::EmbeddingChoice;
use switchboard_app::EndpointConfig;

use super::error::SettingsError;
use super::key::Key;
use super::layers::Layers;
use super::origin::Origin;
use super::value::{SettingValue, quoted};

const MODEL_DIR: Key = Key::new("search", "embedding_model_dir", "")
    .env("SWITCHBOARD_EMBEDDING_MODEL_DIR")
    .flag("--embedding-model-dir");
const URL: Key = Key::new("search", "embeddings_url", "")
    .env("SWITCHBOARD_EMBEDDINGS_URL")
    .flag("--embeddings-url");
const MODEL: Key = Key::new("search", "embeddings_model", "")
    .env("SWITCHBOARD_EMBEDDINGS_MODEL")
    .flag("--embeddings-model");
/// No flag: a key on the command line is seen by everyone who lists processes.
const KEY: Key = Key {
    secret: true,
    ..Key::new("search", "embeddings_key", "").env("SWITCHBOARD_EMBEDDINGS_KEY")
};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct SearchFlags {
    /// A sentence-transformers model directory (model.safetensors, tokenizer.json,
    /// config.json, 1_Pooling/) that semantic tool search runs in this process [default: none].
    #[arg(long, value_name = "DIR")]
    pub embedding_model_dir: Option<String>,
    /// An OpenAI-compatible embeddings endpoint for semantic tool search: the API's base
    /// (`/embeddings` is added) or a URL ending in /embeddings [default: none].
    #[arg(long, value_name = "URL")]
    pub embeddings_url: Option<String>,
    /// The model the embeddings endpoint is asked for [default: none].
    #[arg(long, value_name = "MODEL")]
    pub embeddings_model: Option<String>,
}

/// `[search]`'s values. `Debug` hides the key.
#[derive(Clone, PartialEq, Eq)]
pub struct SearchSettings {
    pub embedding_model_dir: Option<PathBuf>,
    pub embeddings_url: Option<String>,
    pub embeddings_model: Option<String>,
    pub embeddings_key: Option<String>,
}

impl std::fmt::Debug for SearchSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchSettings")
            .field("embedding_model_dir", &self.embedding_model_dir)
            .field("embeddings_url", &self.embeddings_url)
            .field("embeddings_model", &self.embeddings_model)
            .field(
                "embeddings_key",
                &self.embeddings_key.as_ref().map(|_| "***"),
            )
            .finish()
    }
}

impl SearchSettings {
    pub fn load(layers: &mut Layers<'_>, flags: &SearchFlags) -> Result<Self, SettingsError> {
        let dir: Option<Text> = layers.take(&MODEL_DIR, flags.embedding_model_dir.as_slice())?;
        let url: Option<HttpUrl> = layers.take(&URL, flags.embeddings_url.as_slice())?;
        let model: Option<Text> = layers.take(&MODEL, flags.embeddings_model.as_slice())?;
        let key: Option<Text> = layers.take(&KEY, &[])?;
        let settings = Self {
            embedding_model_dir: dir.map(|d| PathBuf::from(d.0)),
            embeddings_url: url.map(|u| u.0),
            embeddings_model: model.map(|m| m.0),
            embeddings_key: key.map(|k| k.0),
        };
        settings.check()?;
        Ok(settings)
    }

    /// One embedding model at most, and an endpoint names its model.
    fn check(&self) -> Result<(), SettingsError> {
        let bad = |key: &Key, reason: &str, expected: &'static str| SettingsError::BadValue {
            key: key.path(),
            origin: Origin::Default,
            reason: reason.to_owned(),
            expected,
        };
        if self.embedding_model_dir.is_some() && self.embeddings_url.is_some() {
            return Err(bad(
                &URL,
                "search.embedding_model_dir is set too",
                "one embedding model: a model directory or an endpoint, not both",
            ));
        }
        if self.embeddings_url.is_some() && self.embeddings_model.is_none() {
            return Err(bad(
                &MODEL,
                "search.embeddings_url is set but no model is named",
                "the model the endpoint serves, such as \"nomic-embed-text\"",
            ));
        }
        Ok(())
    }

    /// The embedding model the application is built with.
    pub fn embedding(&self) -> EmbeddingChoice {
        if let Some(dir) = &self.embedding_model_dir {
            return EmbeddingChoice::LocalDir(dir.clone());
        }
        match (&self.embeddings_url, &self.embeddings_model) {
            (Some(url), Some(model)) => EmbeddingChoice::Endpoint(EndpointConfig {
                key: self.embeddings_key.clone(),
                ..EndpointConfig::new(url.clone(), model.clone())
            }),
            _ => EmbeddingChoice::None,
        }
    }
}

/// Text as given, trimmed; empty is none (through `Option`).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Text(String);

impl SettingValue for Text {
    const EXPECTED: &'static str = "text";

    fn from_text(text: &str) -> Result<Self, String> {
        Ok(Self(text.trim().to_owned()))
    }

    fn to_toml(&self) -> String {
        quoted(&self.0)
    }
}

/// An http(s) URL, kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HttpUrl(String);

impl SettingValue for HttpUrl {
    const EXPECTED: &'static str = "an http(s) URL such as \"http://127.0.0.1:11434/v1\"";

    fn from_text(text: &str) -> Result<Self, String> {
        let text = text.trim();
        let url = url::Url::parse(text).map_err(|e| format!("`{text}`: {e}"))?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(format!("`{text}` is not http(s)"));
        }
        Ok(Self(text.to_owned()))
    }

    fn to_toml(&self) -> String {
        quoted(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(dir: Option<&str>, url: Option<&str>, model: Option<&str>) -> SearchSettings {
        SearchSettings {
            embedding_model_dir: dir.map(PathBuf::from),
            embeddings_url: url.map(str::to_owned),
            embeddings_model: model.map(str::to_owned),
            embeddings_key: Some("sk-embeddings-secret".to_owned()),
        }
    }

    #[test]
    fn one_embedding_model_is_chosen() {
        let none = settings(None, None, None);
        assert!(none.check().is_ok());
        assert!(matches!(none.embedding(), EmbeddingChoice::None));
        let local = settings(Some("/models/minilm"), None, None);
        assert!(
            matches!(local.embedding(), EmbeddingChoice::LocalDir(d) if d.as_path() == std::path::Path::new("/models/minilm"))
        );
        let endpoint = settings(None, Some("http://127.0.0.1:11434/v1"), Some("all-minilm"));
        assert!(endpoint.check().is_ok());
        match endpoint.embedding() {
            EmbeddingChoice::Endpoint(config) => {
                assert_eq!(config.model, "all-minilm");
                assert_eq!(config.key.as_deref(), Some("sk-embeddings-secret"));
            }
            other => panic!("{other:?}"),
        }
        assert!(!format!("{endpoint:?}").contains("sk-embeddings-secret"));
        assert!(
            settings(Some("/m"), Some("http://h/v1"), Some("m"))
                .check()
                .is_err()
        );
        assert!(settings(None, Some("http://h/v1"), None).check().is_err());
    }

    #[test]
    fn an_endpoint_is_an_http_url() {
        assert!(HttpUrl::from_text("http://127.0.0.1:11434/v1").is_ok());
        assert!(HttpUrl::from_text("ftp://h/v1").is_err());
        assert!(HttpUrl::from_text("127.0.0.1:11434").is_err());
    }
}
