//! Test-only helpers for Switchboard's integration tests: launchers for the pinned reference
//! MCP servers written by others, and `/proc` checks that no process is left behind.
//!
//! # The peers
//!
//! `scripts/test.sh --install-only` installs them into the git-ignored `.peers/` directory
//! (or wherever `SWITCHBOARD_PEERS` points) from the pinned manifests in `scripts/peers/`:
//!
//! | peer | transports | what it is |
//! |---|---|---|
//! | `@modelcontextprotocol/server-everything@2026.8.31` | stdio, SSE, Streamable HTTP | the reference server, TypeScript SDK; run on Node 24 |
//! | `peers/py1_server.py` on `mcp==1.30.0` | stdio, Streamable HTTP | FastMCP, the 2025 `initialize` handshake |
//! | `peers/py2_server.py` on `mcp==2.3.0` | stdio, Streamable HTTP | MCPServer; the stateless 2026-07-28 revision and `initialize` |
//! | `peers/{exit_at_once,noise_then_ok,never_answers,garbage_only}.py` | stdio | servers that misbehave on purpose |
//! | `peers/detaching_server.py` | stdio | a server whose children leave its process group (`setsid`, a daemon) |
//! | `@modelcontextprotocol/conformance@0.2.0-alpha.12` | | the conformance suite, run with [`Peers::node22`] |
//! | `@copilotkit/aimock@1.43.0` | HTTP | a model mock (OpenAI and Anthropic wire formats), see [`Aimock`] |
//! | `peers/catalog_server.py` (stdlib) | stdio | one file of the tool catalog of real servers' tools (`data/catalog`), see [`catalog`] |
//! | `@modelcontextprotocol/server-{filesystem,memory,sequential-thinking}@2026.8.31`; `mcp-server-{fetch,time,git}` in `.peers/ref` | stdio | the catalogue's reference servers at its pinned versions (`crates/switchboard-server/tests/it/catalogue_api.rs`) |
//!
//! Both Python peers offer the same tools, listed three to a `tools/list` page (`nextCursor`
//! is `page:N`; an unknown cursor is an invalid-params error):
//!
//! | tool | does |
//! |---|---|
//! | `echo(text)` | returns `text` |
//! | `add(a, b)` | returns the sum as text and as `structuredContent` `{"result": ...}` (has an `outputSchema`) |
//! | `image()` | returns a 2x2 PNG image content |
//! | `fail()` | returns a result with `isError: true` |
//! | `long_task(steps, step_ms)` | sends `notifications/progress` every step (with the request's progress token), returns `done after N steps` |
//! | `slow(seconds)` | waits, then returns; for timeouts and cancellation |
//! | `cancelled_count()` | how many `slow`/`long_task` calls of this process were cancelled by the client |
//! | `spawn_child()` | starts `sleep 1000` in the server's process group, returns its pid |
//! | `pid()` | the server's pid |
//! | `counter()` | 1, 2, 3, ... per process; annotated neither read-only nor idempotent |
//!
//! All tools but `spawn_child` and `counter` are annotated `readOnlyHint: true`. Results are
//! text. A cancelled call counts whether the client sent `notifications/cancelled` or (2026
//! revision over HTTP, where that notification is ignored) closed the response stream.
//!
//! Run by hand: `.peers/py1/bin/python crates/switchboard-testkit/peers/py1_server.py stdio`,
//! or `... http --port 0`, which prints `LISTENING <port>` once it accepts connections.
//!
//! # Example
//!
//! ```no_run
//! use switchboard_testkit::{EverythingHttp, Peers, PyGen, process};
//!
//! # async fn demo() -> anyhow::Result<()> {
//! let peers = Peers::locate(); // panics with "test peers not installed: ..." if absent
//! let stdio = peers.python_stdio(PyGen::V2); // program, args, env: hand to the code under test
//!
//! let mut server = peers.everything_http(EverythingHttp::StreamableHttp).await?;
//! let url = server.url(); // http://127.0.0.1:PORT/mcp
//! server.restart().await?; // same port, fresh process: sessions are gone
//! let pid = server.pid().expect("running");
//! server.kill().await?; // the whole process group, and waits until it is gone
//! assert!(!process::alive(pid));
//! # let _ = (stdio, url);
//! # Ok(())
//! # }
//! ```
//!
//! # Models
//!
//! [`ScriptedLlm`] is a model server of our own that replays a script of [`Turn`]s in both
//! wire formats and records every request; [`Aimock`] runs aimock, someone else's, as an
//! independent check of the same wire formats.
//!
//! Every HTTP peer lives in its own process group, which is killed on [`HttpPeer::kill`],
//! [`HttpPeer::restart`] and drop. The peers' output is logged with `tracing` at debug level
//! under the target `switchboard_testkit::peer`, and [`HttpPeer::output`] returns its tail.

mod aimock;
pub mod canned_http;
mod captured_log;
pub mod catalog;
pub mod headless_sign_in;
mod http_peer;
mod output;
mod peers;
pub mod process;
pub mod scripted_llm;
mod stdio_command;
mod tcp_relay;
pub mod words;

pub use aimock::{AIMOCK_CLI_JS, Aimock};
pub use canned_http::CannedHttp;
pub use captured_log::CapturedLog;
pub use http_peer::HttpPeer;
pub use peers::{EverythingHttp, Misbehaving, PEERS_ENV, Peers, PyGen};
pub use scripted_llm::{RecordedListing, RecordedRequest, SCRIPTED_MODELS, ScriptedLlm, Turn};
pub use stdio_command::StdioCommand;
pub use tcp_relay::TcpRelay;
