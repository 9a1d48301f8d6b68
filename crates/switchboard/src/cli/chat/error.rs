//! Why `switchboard chat` could not start or go on, each with the code it is reported under.

use switchboard_core::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum ChatError {
    #[error(
        "no LLM provider is configured: set OPENAI_API_KEY (or OPENAI_BASE_URL for an \
         OpenAI-compatible server such as Ollama) or ANTHROPIC_API_KEY, or store a provider"
    )]
    NoProvider,
    /// No provider, but a model server answers on this machine: how to chat with it.
    #[error(
        "no LLM provider is configured, but {name} answers at {base_url}: chat with it with \
         OPENAI_BASE_URL={base_url} OPENAI_MODEL={model}, or add it on the web UI's Providers page"
    )]
    NoProviderButLocal {
        name: String,
        base_url: String,
        model: String,
    },
    /// `--provider openai|anthropic` without the variables that describe it.
    #[error("--provider {name} uses the environment, but neither {key} nor {url} is set")]
    NoEnvProvider {
        name: &'static str,
        key: &'static str,
        url: &'static str,
    },
    #[error(
        "no provider named `{0}`: give a stored provider's name or id, or `openai` / \
         `anthropic` for the one the environment describes"
    )]
    ProviderNotFound(String),
    #[error("no assistant named `{0}`")]
    AssistantNotFound(String),
    /// The provider has no default model and none was given.
    #[error("no model: pass --model or set {0}")]
    NoModel(&'static str),
    #[error("provider `{name}` is of a kind this version cannot use ({kind})")]
    UnsupportedKind { name: String, kind: String },
    /// A script's answer to an approval question that is not one.
    #[error("expected y, n or a in answer to the approval question, got `{0}`")]
    BadAnswer(String),
    #[error("cannot read standard input")]
    Input(#[source] std::io::Error),
}

impl ChatError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ChatError::ProviderNotFound(_) | ChatError::AssistantNotFound(_) => ErrorCode::NotFound,
            ChatError::Input(_) => ErrorCode::InternalError,
            ChatError::NoProvider
            | ChatError::NoProviderButLocal { .. }
            | ChatError::NoEnvProvider { .. }
            | ChatError::NoModel(_)
            | ChatError::UnsupportedKind { .. }
            | ChatError::BadAnswer(_) => ErrorCode::ValidationError,
        }
    }
}
