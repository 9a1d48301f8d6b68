//! A fake model server that answers from a script, in both wire formats.
//!
//! Tests of code that talks to a model need answers they can predict: this server replays a
//! list of [`Turn`]s, one per request, whichever wire format asks. It serves OpenAI chat
//! completions (`POST /v1/chat/completions`) and Anthropic Messages (`POST /v1/messages`),
//! streamed or not as the request says, framed as the real APIs frame their streams (OpenAI's
//! `data:` chunks ending in `data: [DONE]`, with the usage chunk when `stream_options.include_usage`
//! asks for it; Anthropic's `event:`/`data:` pairs). Streamed text is cut into several deltas and
//! tool-call arguments into several fragments, so a client's reassembly is exercised. A turn
//! may search the tools with Anthropic's tool search tool first ([`Turn::with_tool_search`]).
//! Every
//! request is recorded ([`ScriptedLlm::requests`]) for assertions on what the client sent
//! and when.
//!
//! ```no_run
//! use serde_json::json;
//! use switchboard_testkit::{ScriptedLlm, Turn};
//!
//! # async fn demo() {
//! let llm = ScriptedLlm::start(vec![
//!     Turn::tool_call("mcp__everything__echo", json!({"message": "hi"})),
//!     Turn::text("The answer is 42."),
//! ])
//! .await;
//! let base_url = llm.openai_base_url(); // http://127.0.0.1:PORT/v1
//! // ... point the code under test at it, run it ...
//! assert_eq!(llm.requests().len(), 2);
//! # let _ = base_url;
//! # }
//! ```
//!
//! The server binds 127.0.0.1:0 and shuts down gracefully when the [`ScriptedLlm`] is dropped.
//! A request with a body that is not JSON gets a 400 and consumes no turn; a request after the
//! script ran out gets a 500 whose message says so.
//!
//! It also lists its models, as OpenAI and Anthropic do (`GET /v1/models`) and as Ollama does
//! (`GET /api/tags`): [`ScriptedLlm::set_models`] says which, [`ScriptedLlm::require_api_key`]
//! makes a listing without that key a 401, and [`ScriptedLlm::listings`] records what asked.

mod anthropic;
mod listing;
mod openai;
mod turn;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use switchboard_llm::WireFormat;
use tokio::sync::oneshot;

pub use listing::RecordedListing;
pub use turn::Turn;
use turn::{HttpError, NativeSearch, Reply};

/// How many characters of text or arguments go in one streamed delta.
const PIECE_CHARS: usize = 6;

/// The models listed until [`ScriptedLlm::set_models`] says otherwise.
pub const SCRIPTED_MODELS: [&str; 2] = ["scripted-large", "scripted-small"];

/// One request the server received.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedRequest {
    /// Which endpoint it came to.
    pub wire: WireFormat,
    /// Its headers, names lowercase, in the order received.
    pub headers: Vec<(String, String)>,
    /// Its JSON body (`Value::Null` if it was not JSON).
    pub body: Value,
    /// When it was received (its body read): how long a client took to ask is measured
    /// against it.
    pub received_at: std::time::Instant,
}

impl RecordedRequest {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Whether the request asked for a stream.
    pub fn streamed(&self) -> bool {
        self.body["stream"] == true
    }
}

/// A running scripted model server. See the [module docs](self).
#[derive(Debug)]
pub struct ScriptedLlm {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<oneshot::Sender<()>>,
    server: Option<tokio::task::JoinHandle<()>>,
}

/// Picks the answer to a request from the request itself, once the script is used up.
pub type Responder = Box<dyn Fn(&Value) -> Turn + Send + Sync>;

#[derive(Default)]
struct Shared {
    turns: Mutex<VecDeque<Turn>>,
    responder: Option<Responder>,
    scripted: AtomicU64,
    requests: Mutex<Vec<RecordedRequest>>,
    /// The last tool-call number handed out (ids count from 1).
    calls: AtomicU64,
    /// What the listings answer.
    models: Mutex<Vec<String>>,
    /// The key a listing must carry, when one is required.
    api_key: Mutex<Option<String>>,
    listings: Mutex<Vec<RecordedListing>>,
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shared")
            .field("scripted", &self.scripted)
            .field("responder", &self.responder.is_some())
            .finish_non_exhaustive()
    }
}

impl Shared {
    fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
        // A panicking test thread may poison the lock; the data is still good for the others.
        mutex
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl ScriptedLlm {
    /// Starts the server on a free port of 127.0.0.1 with `turns` as its script.
    ///
    /// # Panics
    ///
    /// When no port can be bound; see [`ScriptedLlm::try_start`].
    pub async fn start(turns: Vec<Turn>) -> ScriptedLlm {
        match Self::try_start(turns).await {
            Ok(llm) => llm,
            Err(error) => panic!("ScriptedLlm could not bind 127.0.0.1:0: {error}"),
        }
    }

    /// Like [`ScriptedLlm::start`], returning the bind error instead of panicking.
    pub async fn try_start(turns: Vec<Turn>) -> std::io::Result<ScriptedLlm> {
        Self::serve(Shared {
            scripted: AtomicU64::new(turns.len() as u64),
            turns: Mutex::new(turns.into()),
            ..Shared::default()
        })
        .await
    }

    /// Starts a model that answers every request with what `responder` makes of it (the
    /// request's JSON body, in whichever wire format it came): for many conversations at
    /// once, where a script's order cannot say which conversation asks next.
    ///
    /// # Panics
    ///
    /// When no port can be bound.
    pub async fn responding(
        responder: impl Fn(&Value) -> Turn + Send + Sync + 'static,
    ) -> ScriptedLlm {
        let shared = Shared {
            responder: Some(Box::new(responder)),
            ..Shared::default()
        };
        match Self::serve(shared).await {
            Ok(llm) => llm,
            Err(error) => panic!("ScriptedLlm: cannot listen on 127.0.0.1: {error}"),
        }
    }

    async fn serve(shared: Shared) -> std::io::Result<ScriptedLlm> {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        *Shared::lock(&shared.models) = SCRIPTED_MODELS.map(str::to_owned).to_vec();
        let shared = Arc::new(shared);
        let app = Router::new()
            .route("/v1/chat/completions", post(openai_endpoint))
            .route("/v1/messages", post(anthropic_endpoint))
            .route("/v1/models", get(listing::openai_models))
            .route("/api/tags", get(listing::ollama_tags))
            .with_state(Arc::clone(&shared));
        let (shutdown, stopped) = oneshot::channel::<()>();
        let server = tokio::spawn(async move {
            let serve = axum::serve(listener, app).with_graceful_shutdown(async move {
                // A dropped sender stops the server too.
                let _ = stopped.await;
            });
            if let Err(error) = serve.await {
                tracing::warn!("ScriptedLlm server failed: {error}");
            }
        });
        Ok(ScriptedLlm {
            addr,
            shared,
            shutdown: Some(shutdown),
            server: Some(server),
        })
    }

    /// The OpenAI base URL: `http://127.0.0.1:PORT/v1`.
    pub fn openai_base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// The Anthropic base URL: `http://127.0.0.1:PORT`.
    pub fn anthropic_base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The base URL for `wire`.
    pub fn base_url(&self, wire: WireFormat) -> String {
        match wire {
            WireFormat::OpenAi => self.openai_base_url(),
            WireFormat::Anthropic => self.anthropic_base_url(),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        Shared::lock(&self.shared.requests).clone()
    }

    /// The models the listings answer from now on ([`SCRIPTED_MODELS`] until set).
    pub fn set_models(&self, models: &[&str]) {
        *Shared::lock(&self.shared.models) = models.iter().map(|m| (*m).to_owned()).collect();
    }

    /// From now on a listing must carry `key` (`Authorization: Bearer` or `x-api-key`), or it
    /// is answered 401 as OpenAI answers a wrong key.
    pub fn require_api_key(&self, key: &str) {
        *Shared::lock(&self.shared.api_key) = Some(key.to_owned());
    }

    /// Every listing request received so far, in order.
    pub fn listings(&self) -> Vec<RecordedListing> {
        Shared::lock(&self.shared.listings).clone()
    }

    /// Appends a turn to the script.
    pub fn push(&self, turn: Turn) {
        Shared::lock(&self.shared.turns).push_back(turn);
        self.shared.scripted.fetch_add(1, Ordering::Relaxed);
    }

    /// How many turns are left.
    pub fn remaining(&self) -> usize {
        Shared::lock(&self.shared.turns).len()
    }

    /// Stops the server and waits until it has stopped (requests in flight finish first).
    pub async fn shutdown(mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(server) = self.server.take() {
            let _ = server.await;
        }
    }
}

impl Drop for ScriptedLlm {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
    }
}

async fn openai_endpoint(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    answer(WireFormat::OpenAi, &shared, &headers, &body).await
}

async fn anthropic_endpoint(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    answer(WireFormat::Anthropic, &shared, &headers, &body).await
}

async fn answer(wire: WireFormat, shared: &Shared, headers: &HeaderMap, body: &[u8]) -> Response {
    let parsed = serde_json::from_slice::<Value>(body);
    let number = {
        let mut requests = Shared::lock(&shared.requests);
        requests.push(RecordedRequest {
            wire,
            headers: headers
                .iter()
                .map(|(name, value)| {
                    let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                    (name.as_str().to_owned(), value)
                })
                .collect(),
            body: parsed.as_ref().cloned().unwrap_or(Value::Null),
            received_at: std::time::Instant::now(),
        });
        requests.len()
    };
    let request = match parsed {
        Ok(request) => request,
        Err(error) => {
            return error_response(
                wire,
                &plain_error(400, format!("invalid JSON body: {error}")),
            );
        }
    };
    let next = Shared::lock(&shared.turns).pop_front();
    let Some(turn) = next.or_else(|| shared.responder.as_ref().map(|answer| answer(&request)))
    else {
        let scripted = shared.scripted.load(Ordering::Relaxed);
        let message = format!(
            "ScriptedLlm: the script ran out: request #{number} came after all {scripted} scripted turn(s) were used"
        );
        return error_response(wire, &plain_error(500, message));
    };
    if !turn.delay.is_zero() {
        tokio::time::sleep(turn.delay).await;
    }
    let plan = match &turn.reply {
        Reply::HttpError(error) => return error_response(wire, error),
        Reply::StreamError { kind, message, .. } if request["stream"] != true => {
            let mut error = plain_error(500, message.clone());
            error.kind = Some(kind.clone());
            return error_response(wire, &error);
        }
        _ => Plan::new(wire, number, &turn, &request, shared),
    };
    if request["stream"] == true {
        let frames = match wire {
            WireFormat::OpenAi => {
                openai::streamed(&plan, request["stream_options"]["include_usage"] == true)
            }
            WireFormat::Anthropic => anthropic::streamed(&plan),
        };
        let body = if turn.cut {
            let kept = frames.len().div_ceil(2);
            let broken = std::io::Error::new(std::io::ErrorKind::ConnectionReset, "cut");
            // Pending once before the error, so the frames kept are written out before the
            // connection is dropped (an error the body yields at once drops them too).
            let broken = futures::stream::once(async move {
                tokio::task::yield_now().await;
                Err(broken)
            });
            Body::from_stream(futures::StreamExt::chain(
                futures::stream::iter(frames.into_iter().take(kept).map(Ok)),
                broken,
            ))
        } else {
            Body::from_stream(futures::stream::iter(
                frames.into_iter().map(Ok::<_, Infallible>),
            ))
        };
        (
            [
                (header::CONTENT_TYPE, "text/event-stream; charset=utf-8"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            body,
        )
            .into_response()
    } else {
        let whole = match wire {
            WireFormat::OpenAi => openai::whole(&plan),
            WireFormat::Anthropic => anthropic::whole(&plan),
        };
        axum::Json(whole).into_response()
    }
}

fn plain_error(status: u16, message: String) -> HttpError {
    HttpError {
        status,
        message,
        kind: None,
        code: None,
        retry_after: None,
        retry_after_ms: None,
    }
}

fn error_response(wire: WireFormat, error: &HttpError) -> Response {
    let body = match wire {
        WireFormat::OpenAi => openai::error_body(error),
        WireFormat::Anthropic => anthropic::error_body(error),
    };
    let status = StatusCode::from_u16(error.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, axum::Json(body)).into_response();
    let headers = response.headers_mut();
    if let Some(seconds) = error.retry_after {
        headers.insert(header::RETRY_AFTER, seconds.into());
    }
    if let Some(ms) = error.retry_after_ms {
        headers.insert("retry-after-ms", ms.into());
    }
    response
}

/// Why the answer stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Finish {
    Stop,
    ToolCalls,
    Length,
}

/// A tool call as the server will send it.
#[derive(Debug, Clone)]
pub(crate) struct PlannedCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: Value,
}

impl PlannedCall {
    pub(crate) fn arguments_text(&self) -> String {
        self.arguments.to_string()
    }
}

/// A search with the provider's tool search as the server will send it.
#[derive(Debug, Clone)]
pub(crate) struct PlannedSearch {
    /// `srvtoolu_N`.
    pub(crate) id: String,
    /// The name of the request's tool search tool.
    pub(crate) name: String,
    pub(crate) query: String,
    pub(crate) found: Vec<String>,
}

impl PlannedSearch {
    pub(crate) fn input(&self) -> Value {
        json!({"query": self.query})
    }

    /// The whole `server_tool_use` block.
    pub(crate) fn use_block(&self) -> Value {
        json!({"type": "server_tool_use", "id": self.id, "name": self.name, "input": self.input()})
    }

    /// The whole `tool_search_tool_result` block.
    pub(crate) fn result_block(&self) -> Value {
        let references: Vec<Value> = self
            .found
            .iter()
            .map(|name| json!({"type": "tool_reference", "tool_name": name}))
            .collect();
        json!({
            "type": "tool_search_tool_result",
            "tool_use_id": self.id,
            "content": {"type": "tool_search_tool_search_result", "tool_references": references},
        })
    }
}

/// The name of the tool search tool `request` offers (`tool_search_tool_bm25` when none).
fn search_tool_name(request: &Value) -> String {
    request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|tool| {
            tool["type"]
                .as_str()
                .is_some_and(|kind| kind.starts_with("tool_search_tool_"))
        })
        .and_then(|tool| tool["name"].as_str())
        .unwrap_or("tool_search_tool_bm25")
        .to_owned()
}

/// Everything a wire format needs to render one answer.
#[derive(Debug, Clone)]
pub(crate) struct Plan {
    /// `chatcmpl-N` / `msg_N`.
    pub(crate) id: String,
    pub(crate) model: String,
    pub(crate) text: String,
    /// A search with the provider's tool search, before the calls (Anthropic only).
    pub(crate) search: Option<PlannedSearch>,
    pub(crate) calls: Vec<PlannedCall>,
    pub(crate) finish: Finish,
    pub(crate) input_tokens: u64,
    pub(crate) output_tokens: u64,
    /// An error to report inside the stream after the text: `(type, message)`.
    pub(crate) stream_error: Option<(String, String)>,
}

impl Plan {
    fn new(wire: WireFormat, number: usize, turn: &Turn, request: &Value, shared: &Shared) -> Self {
        let (text, search, calls, stream_error) = match &turn.reply {
            Reply::Answer {
                text,
                search,
                calls,
            } => (text.clone(), search.clone(), calls.clone(), None),
            Reply::StreamError {
                text,
                kind,
                message,
            } => (
                text.clone(),
                None,
                Vec::new(),
                Some((kind.clone(), message.clone())),
            ),
            Reply::HttpError(_) => (String::new(), None, Vec::new(), None),
        };
        let prefix = match wire {
            WireFormat::OpenAi => "call_",
            WireFormat::Anthropic => "toolu_",
        };
        let search = search.filter(|_| wire == WireFormat::Anthropic).map(
            |NativeSearch { query, found }| PlannedSearch {
                id: format!(
                    "srvtoolu_{}",
                    shared.calls.fetch_add(1, Ordering::Relaxed) + 1
                ),
                name: search_tool_name(request),
                query,
                found,
            },
        );
        let calls: Vec<PlannedCall> = calls
            .into_iter()
            .map(|(name, arguments)| PlannedCall {
                id: format!(
                    "{prefix}{}",
                    shared.calls.fetch_add(1, Ordering::Relaxed) + 1
                ),
                name,
                arguments,
            })
            .collect();
        let finish = if turn.truncated {
            Finish::Length
        } else if calls.is_empty() {
            Finish::Stop
        } else {
            Finish::ToolCalls
        };
        let output_chars = text.chars().count()
            + search.as_ref().map_or(0, |s| s.query.len())
            + calls
                .iter()
                .map(|c| c.name.len() + c.arguments_text().len())
                .sum::<usize>();
        let (input_tokens, output_tokens) = turn.usage.unwrap_or_else(|| {
            let input_chars =
                request["messages"].to_string().len() + request["system"].to_string().len();
            (estimate(input_chars), estimate(output_chars))
        });
        let id = match wire {
            WireFormat::OpenAi => format!("chatcmpl-{number}"),
            WireFormat::Anthropic => format!("msg_{number}"),
        };
        Plan {
            id,
            model: request["model"].as_str().unwrap_or("scripted").to_owned(),
            text,
            search,
            calls,
            finish,
            input_tokens,
            output_tokens,
            stream_error,
        }
    }
}

/// About four characters a token, at least one.
fn estimate(chars: usize) -> u64 {
    (chars as u64).div_ceil(4).max(1)
}

/// `text` cut into pieces of a few characters (on character boundaries); none for "".
pub(crate) fn pieces(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    chars
        .chunks(PIECE_CHARS)
        .map(|piece| piece.iter().collect())
        .collect()
}

/// One SSE message with only `data:`.
pub(crate) fn data_frame(data: &Value) -> String {
    format!("data: {data}\n\n")
}

/// The status's usual reason, for error messages that have none.
pub(crate) fn reason(status: u16) -> String {
    StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("error")
        .to_owned()
}

/// An empty JSON object, for Anthropic's initial `tool_use.input`.
pub(crate) fn empty_object() -> Value {
    json!({})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_respect_characters() {
        assert_eq!(pieces(""), Vec::<String>::new());
        assert_eq!(pieces("héllo wörld!"), vec!["héllo ", "wörld!"]);
        assert_eq!(pieces("abcdefg"), vec!["abcdef", "g"]);
    }
}
