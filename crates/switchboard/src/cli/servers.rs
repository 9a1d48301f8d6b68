//! `switchboard servers add | list | remove | test`, on the store (see [`super::local`]).
//!
//! Listings show secrets masked, as the store returns them; `test` connects with the secrets
//! in clear. `add --preset NAME --setting K=V` adds an entry of the catalogue of ready
//! servers ([`switchboard_core::catalogue`]), filled in as `POST /api/catalogue/{name}/add`
//! fills it, and marks it as a preset the same way. `add` warns on stderr when the program a
//! stdio server starts with is not on this machine (saying what to install), and adds it all
//! the same.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::{ArgGroup, Args, Subcommand, ValueEnum};
use serde_json::json;
use switchboard_app::presets;
use switchboard_core::catalogue::Catalogue;
use switchboard_core::{Auth, ServerSpec, TransportKind};
use switchboard_store::{ServerShape, StoredServer};

use super::Context;
use super::local::Put;
use crate::output;

#[derive(Debug, Subcommand)]
pub enum ServersCommand {
    /// Add a server: a local process (--command), a remote endpoint (--url) or an entry of
    /// the catalogue of ready servers (--preset).
    Add(Box<AddArgs>),
    /// List the configured servers.
    List,
    /// Remove a server.
    Remove {
        /// The server's name (or id).
        name: String,
    },
    /// Connect to a server and show what it offers.
    Test {
        /// The server's name (or id).
        name: String,
    },
    /// Sign in to a server that uses OAuth: prints the address to open in a browser and
    /// waits for the sign-in to come back to a listener on this machine.
    Login {
        /// The server's name (or id).
        name: String,
        /// The loopback port the browser comes back to (0: any free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Forget your OAuth sign-in to a server.
    Logout {
        /// The server's name (or id).
        name: String,
    },
}

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("target").required(true).args(["command", "url", "preset"])))]
pub struct AddArgs {
    /// A unique name for the server (with --preset, the entry's name when left out).
    #[arg(required_unless_present = "preset")]
    pub name: Option<String>,

    /// An entry of the catalogue of ready servers (`filesystem`, `memory`, `git`, ...).
    #[arg(long, value_name = "NAME", help_heading = "Catalogue")]
    pub preset: Option<String>,
    /// A setting of the --preset entry (a root folder, an API key); repeat for more.
    #[arg(
        long = "setting",
        value_name = "K=V",
        value_parser = parse_pair,
        requires = "preset",
        conflicts_with_all = ["command", "url"],
        help_heading = "Catalogue",
    )]
    pub settings: Vec<(String, String)>,

    /// Run this program and speak MCP over its stdin/stdout.
    #[arg(long, value_name = "CMD", help_heading = "Local process")]
    pub command: Option<String>,
    /// An argument for the command; repeat for more (`--arg -y --arg pkg`).
    #[arg(
        long = "arg",
        value_name = "A",
        allow_hyphen_values = true,
        conflicts_with = "url",
        help_heading = "Local process"
    )]
    pub args: Vec<String>,
    /// An environment variable for the process; repeat for more.
    #[arg(
        long = "env",
        value_name = "K=V",
        value_parser = parse_pair,
        conflicts_with = "url",
        help_heading = "Local process",
    )]
    pub env: Vec<(String, String)>,
    /// An environment variable holding a secret (a token, a password): stored encrypted and
    /// shown masked; repeat for more.
    #[arg(
        long = "secret-env",
        value_name = "K=V",
        value_parser = parse_pair,
        conflicts_with = "url",
        help_heading = "Local process",
    )]
    pub secret_env: Vec<(String, String)>,
    /// The working directory of the process.
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with = "url",
        help_heading = "Local process"
    )]
    pub cwd: Option<PathBuf>,

    /// The server's endpoint, e.g. https://example.com/mcp.
    #[arg(long, value_name = "URL", help_heading = "Remote server")]
    pub url: Option<String>,
    /// The HTTP transport; by default a URL ending in /mcp means streamable_http, any other
    /// URL sse.
    #[arg(
        long,
        value_enum,
        conflicts_with = "command",
        help_heading = "Remote server"
    )]
    pub transport: Option<HttpTransport>,
    /// An HTTP header sent with every request; repeat for more.
    #[arg(
        long = "header",
        value_name = "K=V",
        value_parser = parse_pair,
        conflicts_with = "command",
        help_heading = "Remote server",
    )]
    pub headers: Vec<(String, String)>,
    /// Send `Authorization: Bearer TOKEN`.
    #[arg(
        long,
        value_name = "TOKEN",
        conflicts_with_all = ["command", "api_key"],
        help_heading = "Remote server",
    )]
    pub bearer: Option<String>,
    /// Send this API key in the header named by --api-key-header.
    #[arg(
        long,
        value_name = "KEY",
        conflicts_with = "command",
        help_heading = "Remote server"
    )]
    pub api_key: Option<String>,
    /// Sign in with OAuth (the MCP authorization specification): `servers login NAME`
    /// afterwards, or "Sign in" on the settings page.
    #[arg(
        long,
        conflicts_with_all = ["command", "bearer", "api_key"],
        help_heading = "Remote server"
    )]
    pub oauth: bool,
    /// With --oauth: a client registered with the authorization server beforehand (without
    /// it, Switchboard registers itself).
    #[arg(
        long,
        value_name = "ID",
        requires = "oauth",
        help_heading = "Remote server"
    )]
    pub client_id: Option<String>,
    /// With --client-id: its secret.
    #[arg(
        long,
        value_name = "SECRET",
        requires = "client_id",
        help_heading = "Remote server"
    )]
    pub client_secret: Option<String>,
    /// With --oauth: a scope to ask for; repeat for more (default: those the server names).
    #[arg(
        long = "scope",
        value_name = "SCOPE",
        requires = "oauth",
        help_heading = "Remote server"
    )]
    pub scopes: Vec<String>,
    /// The header that carries --api-key.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "X-API-Key",
        requires = "api_key",
        help_heading = "Remote server"
    )]
    pub api_key_header: String,

    /// A folder the server may work in (an MCP root: filesystem servers stay inside their
    /// roots); repeat for more.
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// Send the server's sampling requests to the model and their answers back without
    /// asking (each is otherwise shown in the chat for review).
    #[arg(long)]
    pub sampling_auto: bool,
    /// The most tokens one of the server's sampling requests may ask for (default 1024).
    #[arg(long, value_name = "N")]
    pub sampling_max_tokens: Option<u32>,
    /// Time a call may go without an answer or progress, in seconds.
    #[arg(long, value_name = "SECS", value_parser = parse_seconds)]
    pub timeout: Option<Duration>,
    /// Run the server on this MCP node (a `[nodes.NAME]` of the settings file) instead of
    /// on this machine.
    #[arg(long, value_name = "NAME")]
    pub node: Option<String>,
    /// Add the server switched off.
    #[arg(long)]
    pub disabled: bool,
    /// Overwrite a server of the same name.
    #[arg(long)]
    pub replace: bool,
}

/// `--transport` values; stdio is chosen with `--command` instead.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum HttpTransport {
    /// MCP Streamable HTTP (2025-03-26 and later).
    #[value(name = "streamable_http", alias = "streamable-http", alias = "http")]
    StreamableHttp,
    /// The legacy HTTP+SSE transport (2024-11-05).
    Sse,
}

impl From<HttpTransport> for TransportKind {
    fn from(value: HttpTransport) -> Self {
        match value {
            HttpTransport::StreamableHttp => TransportKind::StreamableHttp,
            HttpTransport::Sse => TransportKind::Sse,
        }
    }
}

fn parse_pair(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((key, value)) if !key.is_empty() => Ok((key.to_owned(), value.to_owned())),
        _ => Err(format!("expected KEY=VALUE, got `{text}`")),
    }
}

fn parse_seconds(text: &str) -> Result<Duration, String> {
    let seconds: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    Duration::try_from_secs_f64(seconds)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| format!("`{text}` must be a positive number of seconds"))
}

pub async fn run(context: &Context, command: ServersCommand) -> anyhow::Result<ExitCode> {
    match command {
        ServersCommand::Add(args) => add(context, *args).await,
        ServersCommand::List => list(context).await,
        ServersCommand::Remove { name } => remove(context, &name).await,
        ServersCommand::Test { name } => test(context, &name).await,
        ServersCommand::Login { name, port } => super::login::login(context, &name, port).await,
        ServersCommand::Logout { name } => super::login::logout(context, &name).await,
    }
}

/// The spec described by `add`'s flags (clap has already made sure they fit together), and
/// the preset marks of a catalogue entry.
fn spec_of(
    catalogue: &Catalogue,
    args: AddArgs,
) -> anyhow::Result<(ServerSpec, Option<ServerShape>)> {
    let (timeout, enabled, node) = (args.timeout, !args.disabled, args.node.clone());
    let roots = roots_of(&args.roots)?;
    let sampling = (args.sampling_auto || args.sampling_max_tokens.is_some()).then(|| {
        switchboard_core::SamplingPolicy {
            auto_approve: args.sampling_auto,
            max_tokens: args
                .sampling_max_tokens
                .unwrap_or(switchboard_core::SamplingPolicy::DEFAULT_MAX_TOKENS),
        }
    });
    let (mut spec, shape) = match &args.preset {
        Some(preset) => {
            let (spec, shape) =
                preset_spec(catalogue, preset, args.name.as_deref(), args.settings)?;
            (spec, Some(shape))
        }
        None => (plain_spec(args), None),
    };
    if timeout.is_some() {
        spec.timeout = timeout;
    }
    spec.enabled = enabled;
    spec.node = node;
    if !roots.is_empty() {
        spec.roots = roots;
    }
    if sampling.is_some() {
        spec.sampling = sampling;
    }
    Ok((spec, shape))
}

/// `--root` folders as absolute paths (a relative one is taken from the current folder).
fn roots_of(dirs: &[PathBuf]) -> anyhow::Result<Vec<String>> {
    dirs.iter()
        .map(|dir| {
            let absolute = std::path::absolute(dir)
                .with_context(|| format!("cannot make {} absolute", dir.display()))?;
            absolute
                .to_str()
                .map(str::to_owned)
                .with_context(|| format!("{} is not valid UTF-8", absolute.display()))
        })
        .collect()
}

/// The catalogue entry `preset` with `settings` filled in, and its preset marks (as the
/// HTTP API fills them, [`switchboard_app::presets`]).
fn preset_spec(
    catalogue: &Catalogue,
    preset: &str,
    name: Option<&str>,
    settings: Vec<(String, String)>,
) -> anyhow::Result<(ServerSpec, ServerShape)> {
    let entry = presets::entry(catalogue, preset)?;
    let filled = presets::fill(entry, name, &settings.into_iter().collect())
        .with_context(|| format!("catalogue entry `{preset}`"))?;
    Ok((filled.spec, filled.shape))
}

fn plain_spec(args: AddArgs) -> ServerSpec {
    let name = args.name.unwrap_or_default();
    match (args.command, args.url) {
        (Some(command), _) => {
            let mut spec = ServerSpec::stdio(name, command, args.args);
            spec.env = args.env.into_iter().collect();
            spec.cwd = args.cwd;
            args.secret_env
                .into_iter()
                .fold(spec, |spec, (key, value)| spec.with_secret_env(key, value))
        }
        (None, url) => {
            let mut spec = ServerSpec::http(
                name,
                url.unwrap_or_default(),
                args.transport.map(Into::into),
            );
            spec.headers = args.headers.into_iter().collect();
            spec.auth = match (args.bearer, args.api_key) {
                _ if args.oauth => Auth::OAuth {
                    client_id: args.client_id,
                    client_secret: args.client_secret,
                    scopes: args.scopes,
                },
                (Some(token), _) => Auth::Bearer { token },
                (None, Some(key)) => Auth::ApiKey {
                    header: args.api_key_header,
                    key,
                },
                (None, None) => Auth::None,
            };
            spec
        }
    }
}

async fn add(context: &Context, args: AddArgs) -> anyhow::Result<ExitCode> {
    let replace = args.replace;
    let servers = context.servers().await?;
    let (spec, shape) = spec_of(&servers.app().catalogue, args)?;
    spec.validate()
        .with_context(|| format!("server `{}` is not valid", spec.name))?;
    let target = target(&spec);
    // Looked up before the spec is stored, as it will be started: its own PATH, if it sets
    // one, else this command's.
    let missing = servers.app().launchers.missing(&spec);
    let (action, server) = match servers.put(spec, replace).await? {
        Put::Added(server) => ("added", server),
        Put::Replaced(server) => ("replaced", server),
    };
    if let Some(shape) = &shape {
        servers
            .app()
            .servers
            .mark(servers.owner(), &server.spec.id, shape)
            .await?;
    }
    // Added all the same: the program may be installed later, or be there when `serve` runs
    // with another PATH.
    if let Some(missing) = missing {
        errln!("warning: {missing}; the server cannot start until it is there");
    }
    if context.json {
        let preset = shape.and_then(|shape| shape.preset_type);
        output::print_json(&json!({ "action": action, "server": server, "presetType": preset }));
    } else {
        match &server.spec.node {
            Some(node) => outln!(
                "{action} server `{}` ({target}) on node `{node}`",
                server.spec.name
            ),
            None => outln!("{action} server `{}` ({target})", server.spec.name),
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn list(context: &Context) -> anyhow::Result<ExitCode> {
    let servers = context.servers().await?.list().await?;
    if context.json {
        output::print_json(&servers);
    } else if servers.is_empty() {
        outln!("no servers (add one with `switchboard servers add`)");
    } else {
        out!("{}", table(&servers));
    }
    Ok(ExitCode::SUCCESS)
}

fn table(servers: &[StoredServer]) -> String {
    let rows: Vec<Vec<String>> = servers
        .iter()
        .map(|StoredServer { spec, .. }| {
            vec![
                spec.name.clone(),
                spec.transport.to_string(),
                if spec.enabled { "yes" } else { "no" }.to_owned(),
                target(spec),
                spec.node.clone().unwrap_or_else(|| "-".to_owned()),
            ]
        })
        .collect();
    output::table(&["NAME", "TRANSPORT", "ENABLED", "TARGET", "NODE"], &rows)
}

async fn remove(context: &Context, name: &str) -> anyhow::Result<ExitCode> {
    let removed = context.servers().await?.remove(name).await?;
    if context.json {
        output::print_json(&json!({ "removed": removed.spec.name }));
    } else {
        outln!("removed server `{}`", removed.spec.name);
    }
    Ok(ExitCode::SUCCESS)
}

async fn test(context: &Context, name: &str) -> anyhow::Result<ExitCode> {
    let servers = context.servers().await?;
    let owner = servers.owner().clone();
    let mut spec = servers.connection_spec(name).await?;
    // Testing is how one checks a server before switching it on, so a disabled server is
    // tested like any other.
    spec.enabled = true;
    let report = servers
        .with_pool(async |app| Ok(app.pool.test_connection(&owner, &spec).await?))
        .await?;
    let details = &report.details;
    let mut tools: Vec<&str> = report.tools.iter().map(|t| t.name.as_str()).collect();
    tools.sort_unstable();
    if context.json {
        output::print_json(&json!({
            "name": spec.name,
            "serverInfo": details.server_info,
            "protocolVersion": details.protocol_version,
            "capabilities": details.capabilities,
            "instructions": details.instructions,
            "tools": tools,
        }))
    } else {
        let server = details
            .server_info
            .as_ref()
            .map(|info| format!("{} {}", info.name, info.version))
            .unwrap_or_else(|| "(did not say)".to_owned());
        outln!("server    {server}");
        outln!("protocol  {}", details.protocol_version);
        outln!("tools     {}: {}", tools.len(), tools.join(", "));
    }
    Ok(ExitCode::SUCCESS)
}

/// What a server points at: its command line or its URL.
fn target(spec: &ServerSpec) -> String {
    match (&spec.command, &spec.url) {
        (_, Some(url)) if spec.transport.is_http() => url.clone(),
        (Some(command), _) => output::command_line(command, &spec.args),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    fn add_args(argv: &[&str]) -> AddArgs {
        let cli = Cli::try_parse_from(["switchboard", "servers", "add"].iter().chain(argv))
            .unwrap_or_else(|e| panic!("{e}"));
        match cli.command {
            Command::Servers(ServersCommand::Add(args)) => *args,
            other => panic!("{other:?}"),
        }
    }

    fn catalogue() -> Catalogue {
        Catalogue::embedded().unwrap()
    }

    fn plain(args: AddArgs) -> ServerSpec {
        spec_of(&catalogue(), args)
            .unwrap_or_else(|e| panic!("{e:#}"))
            .0
    }

    fn add_error(argv: &[&str]) -> String {
        Cli::try_parse_from(["switchboard", "servers", "add"].iter().chain(argv))
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn stdio_flags_make_a_stdio_spec() {
        let spec = plain(add_args(&[
            "files",
            "--command",
            "npx",
            "--arg",
            "-y",
            "--arg",
            "server",
            "--env",
            "A=1=2",
            "--secret-env",
            "TOKEN=t0k",
            "--cwd",
            "/srv",
            "--timeout",
            "2.5",
        ]));
        assert_eq!(spec.transport, TransportKind::Stdio);
        assert_eq!(spec.args, ["-y", "server"]);
        assert_eq!(spec.env.get("A").map(String::as_str), Some("1=2"));
        assert_eq!(spec.env.get("TOKEN").map(String::as_str), Some("t0k"));
        assert_eq!(spec.secret_env.iter().collect::<Vec<_>>(), ["TOKEN"]);
        assert_eq!(spec.cwd, Some(PathBuf::from("/srv")));
        assert_eq!(spec.timeout, Some(Duration::from_millis(2500)));
        assert!(spec.validate().is_ok());
    }

    #[test]
    fn url_flags_make_an_http_spec() {
        let spec = plain(add_args(&[
            "remote",
            "--url",
            "https://h.example/mcp",
            "--header",
            "X-Team=blue",
            "--api-key",
            "k",
            "--api-key-header",
            "X-Key",
        ]));
        assert_eq!(spec.transport, TransportKind::StreamableHttp);
        assert_eq!(
            spec.auth,
            Auth::ApiKey {
                header: "X-Key".into(),
                key: "k".into()
            }
        );
        let sse = plain(add_args(&[
            "r",
            "--url",
            "https://h.example/mcp",
            "--transport",
            "sse",
            "--bearer",
            "t",
        ]));
        assert_eq!(sse.transport, TransportKind::Sse);
        assert_eq!(sse.auth, Auth::Bearer { token: "t".into() });
        let default_header = plain(add_args(&[
            "r",
            "--url",
            "https://h.example/x",
            "--api-key",
            "k",
        ]));
        assert!(
            matches!(default_header.auth, Auth::ApiKey { header, .. } if header == "X-API-Key")
        );
    }

    #[test]
    fn flags_of_the_other_transport_are_refused() {
        assert!(add_error(&["x"]).contains("--command"));
        assert!(
            add_error(&["x", "--command", "c", "--url", "http://h/mcp"]).contains("cannot be used")
        );
        assert!(add_error(&["x", "--command", "c", "--header", "A=b"]).contains("cannot be used"));
        assert!(
            add_error(&["x", "--url", "http://h/mcp", "--arg", "a"]).contains("cannot be used")
        );
        assert!(
            add_error(&["x", "--url", "http://h/mcp", "--api-key-header", "H"])
                .contains("--api-key")
        );
        assert!(
            add_error(&[
                "x",
                "--url",
                "http://h/mcp",
                "--bearer",
                "t",
                "--api-key",
                "k"
            ])
            .contains("cannot be used")
        );
        assert!(
            add_error(&["x", "--url", "http://h/mcp", "--secret-env", "A=b"])
                .contains("cannot be used")
        );
        assert!(add_error(&["x", "--command", "c", "--env", "novalue"]).contains("KEY=VALUE"));
        assert!(add_error(&["x", "--command", "c", "--timeout", "0"]).contains("positive"));
    }

    #[test]
    fn a_preset_is_filled_in_from_the_catalogue_and_marked() {
        let (spec, shape) = spec_of(
            &catalogue(),
            add_args(&[
                "--preset",
                "git",
                "--setting",
                "repository=/srv/repo",
                "--timeout",
                "9",
            ]),
        )
        .unwrap();
        assert_eq!(spec.name, "git");
        assert_eq!(spec.command.as_deref(), Some("uvx"));
        assert_eq!(
            spec.args.last().map(String::as_str),
            Some("--repository=/srv/repo")
        );
        assert_eq!(spec.timeout, Some(Duration::from_secs(9)));
        let shape = shape.unwrap();
        assert!(shape.is_preset);
        assert_eq!(shape.preset_type.as_deref(), Some("reference"));

        let (spec, shape) = spec_of(
            &catalogue(),
            add_args(&[
                "search",
                "--preset",
                "modelscope-search",
                "--setting",
                "api_key=ms-1",
            ]),
        )
        .unwrap();
        assert_eq!(spec.name, "search");
        assert_eq!(
            spec.auth,
            Auth::Bearer {
                token: "ms-1".into()
            }
        );
        assert_eq!(shape.unwrap().preset_type.as_deref(), Some("modelscope"));
    }

    #[test]
    fn a_preset_with_missing_or_unknown_settings_is_refused() {
        let error =
            |argv: &[&str]| format!("{:#}", spec_of(&catalogue(), add_args(argv)).unwrap_err());
        assert!(error(&["--preset", "filesystem"]).contains("\"root\" is required"));
        assert!(error(&["--preset", "nope"]).contains("no entry `nope`"));
        assert!(error(&["--preset", "memory", "--setting", "colour=blue"]).contains("\"colour\""));
        assert!(add_error(&["x", "--setting", "a=b", "--command", "c"]).contains("cannot be used"));
        assert!(add_error(&["--preset", "memory", "--command", "c"]).contains("cannot be used"));
        assert!(add_error(&["--command", "c"]).contains("<NAME>"));
    }
}
