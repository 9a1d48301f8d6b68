//! Model servers running on this machine, found the way Open WebUI finds Ollama: by asking
//! the usual loopback ports for their models.
//!
//! Ollama (11434), LM Studio (1234), llama.cpp's server (8080) and vLLM (8000) all speak the
//! OpenAI API under `/v1`, and Ollama also answers `/api/tags`; a port that lists models is a
//! server a person can chat with. Only `127.0.0.1` is asked, every port at once and briefly
//! ([`ListLimits`]): a closed port is refused at once, and one that does not answer in time is
//! left out. Nothing here stores or offers anything; the caller shows what was found and the
//! person chooses.

use futures::future::join_all;

use crate::models::ListLimits;
use crate::openai::{OpenAiConfig, OpenAiProvider};
use crate::provider::Provider;

/// The ports asked by default: Ollama, LM Studio, llama.cpp's server, vLLM.
pub const LOCAL_PORTS: [u16; 4] = [11434, 1234, 8080, 8000];

/// A model server found on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalServer {
    pub port: u16,
    /// The server usually found on this port (`Ollama`, ...); `None` for other ports.
    pub name: Option<&'static str>,
    /// Its OpenAI-compatible API root: `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    /// The models it lists, sorted.
    pub models: Vec<String>,
}

/// The server usually found on `port`.
pub fn local_server_name(port: u16) -> Option<&'static str> {
    match port {
        11434 => Some("Ollama"),
        1234 => Some("LM Studio"),
        8080 => Some("llama.cpp"),
        8000 => Some("vLLM"),
        _ => None,
    }
}

/// The servers among `ports` of 127.0.0.1 that list their models within `limits`, in the
/// order of `ports`. `client` should use no proxy (a proxy would be asked instead of this
/// machine).
pub async fn find_local_servers(
    client: &reqwest::Client,
    ports: &[u16],
    limits: &ListLimits,
) -> Vec<LocalServer> {
    let asked = ports.iter().map(|&port| async move {
        let base_url = format!("http://127.0.0.1:{port}/v1");
        let provider = OpenAiProvider::with_client(OpenAiConfig::new(&base_url), client.clone());
        let models = provider.models(limits).await.ok()?;
        Some(LocalServer {
            port,
            name: local_server_name(port),
            base_url,
            models,
        })
    });
    join_all(asked).await.into_iter().flatten().collect()
}
