//! `switchboard serve`: the HTTP API on one address until SIGINT or SIGTERM.
//!
//! First start on an empty store: with tokens, an `admin` user is created and its API token
//! printed once; with `--single-user` (loopback only), every request acts as the `local`
//! admin. Either way that user gets the built-in demo MCP server once, so there is something
//! to try. On shutdown the server stops taking requests, finishes the ones in flight, ends
//! every stdio server's process group and closes the store.

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context as _;
use switchboard_agent::AgentConfig;
use switchboard_core::destination::{AllowedDestination, DestinationRules};
use switchboard_core::{LaunchRules, OwnerId, ServerSpec};
use switchboard_mcp::{ConnectionManager, ManagerConfig};
use switchboard_server::limits::Rate;
use switchboard_server::{
    AppState, AuthMode, EnvProvider, GuardConfig, Limits, ServerConfig, ServerPolicy, app,
};
use switchboard_store::{Role, Store};

use super::Context;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// No API tokens: every request acts as the local admin. Only on a loopback address.
    #[arg(long)]
    pub single_user: bool,
    /// A launch template: a stdio server members may run (admins may run any), written
    /// `PROGRAM [ARG]... [env=NAME,...]`. Arguments are matched one for one; an argument with a
    /// `*` takes one package name there (`npx -y @modelcontextprotocol/server-*`); `env=` lists
    /// the variables members may set. Repeat for more, or separate them with `;` in
    /// SWITCHBOARD_LAUNCH_TEMPLATES.
    #[arg(long = "launch-template", env = "SWITCHBOARD_LAUNCH_TEMPLATES")]
    pub launch_templates: Vec<String>,
    /// Removed: it let members run a program with any arguments. Refused at start.
    #[arg(
        long = "allow-command",
        env = "SWITCHBOARD_ALLOW_COMMANDS",
        hide = true
    )]
    pub allow_commands: Vec<String>,
    /// A host name, IP address or network (CIDR, such as 10.20.0.0/16) members' MCP servers
    /// and providers may reach although it is not a public address. With tokens, members
    /// reach public addresses only; admins and --single-user are not limited. Repeat for
    /// more, or list them comma-separated in SWITCHBOARD_ALLOW_DESTINATIONS.
    #[arg(
        long = "allow-destination",
        env = "SWITCHBOARD_ALLOW_DESTINATIONS",
        value_delimiter = ','
    )]
    pub allow_destinations: Vec<AllowedDestination>,
    /// Request bodies larger than this many bytes are refused.
    #[arg(long, default_value_t = 4 * 1024 * 1024)]
    pub max_body_bytes: usize,
    /// A URL this server is reached by (behind a proxy: `https://switchboard.example.com`): its
    /// host is answered and its origin may call the API. Repeat for more, or list them
    /// comma-separated in SWITCHBOARD_PUBLIC_URL. Other hosts than the listen address and
    /// localhost are refused (DNS rebinding).
    #[arg(
        long = "public-url",
        env = "SWITCHBOARD_PUBLIC_URL",
        value_delimiter = ','
    )]
    pub public_urls: Vec<url::Url>,
    /// Another host name this server answers to, `NAME` (any port) or `NAME:PORT`. Repeat
    /// for more, or list them comma-separated in SWITCHBOARD_ALLOWED_HOSTS.
    #[arg(
        long = "allowed-host",
        env = "SWITCHBOARD_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    pub allowed_hosts: Vec<String>,
    /// Another origin whose pages may call the API (a UI served elsewhere). Repeat for more,
    /// or list them comma-separated in SWITCHBOARD_ALLOWED_ORIGINS.
    #[arg(
        long = "allowed-origin",
        env = "SWITCHBOARD_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    pub allowed_origins: Vec<String>,
    /// Serve `/metrics` on this address, without a token, and not on the API's address
    /// (where it otherwise takes an admin's token).
    #[arg(long, env = "SWITCHBOARD_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
    /// On shutdown, how long runs that are answering get to finish before they are cancelled.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    pub shutdown_grace: std::time::Duration,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Quotas and limits (README "Security"); admins are under them too.
#[derive(Debug, clap::Args)]
pub struct LimitArgs {
    /// MCP servers one user may store.
    #[arg(long, env = "SWITCHBOARD_MAX_SERVERS", default_value_t = 100)]
    pub max_servers: u32,
    /// Assistants one user may store.
    #[arg(long, env = "SWITCHBOARD_MAX_ASSISTANTS", default_value_t = 100)]
    pub max_assistants: u32,
    /// Providers one user may store.
    #[arg(long, env = "SWITCHBOARD_MAX_PROVIDERS", default_value_t = 20)]
    pub max_providers: u32,
    /// Event streams (`GET /api/events`) one user may have open at once.
    #[arg(long, env = "SWITCHBOARD_MAX_EVENT_STREAMS", default_value_t = 8)]
    pub max_event_streams: usize,
    /// Runs one user may have going on at once.
    #[arg(long, env = "SWITCHBOARD_MAX_RUNS", default_value_t = 4)]
    pub max_runs: usize,
    /// Connections served at once; more wait until one closes.
    #[arg(long, env = "SWITCHBOARD_MAX_CONNECTIONS", default_value_t = 1024)]
    pub max_connections: usize,
    /// How long a connection may take to send a request header, and stay idle between
    /// requests.
    #[arg(long, env = "SWITCHBOARD_HEADER_READ_TIMEOUT", default_value = "20s", value_parser = humantime::parse_duration)]
    pub header_read_timeout: std::time::Duration,
    /// Writes (POST, PUT, PATCH, DELETE) one user may make at once...
    #[arg(long, env = "SWITCHBOARD_WRITE_BURST", default_value_t = 60)]
    pub write_burst: u32,
    /// ...and then one per this interval.
    #[arg(long, env = "SWITCHBOARD_WRITE_INTERVAL", default_value = "100ms", value_parser = humantime::parse_duration)]
    pub write_interval: std::time::Duration,
    /// Failed authentications allowed per address (and per token) at once...
    #[arg(long, env = "SWITCHBOARD_AUTH_FAILURE_BURST", default_value_t = 20)]
    pub auth_failure_burst: u32,
    /// ...and then one per this interval.
    #[arg(long, env = "SWITCHBOARD_AUTH_FAILURE_INTERVAL", default_value = "3s", value_parser = humantime::parse_duration)]
    pub auth_failure_interval: std::time::Duration,
}

impl LimitArgs {
    fn limits(&self) -> Limits {
        Limits {
            max_servers: self.max_servers,
            max_assistants: self.max_assistants,
            max_providers: self.max_providers,
            max_event_streams: self.max_event_streams,
            max_runs: self.max_runs,
            max_connections: self.max_connections,
            header_read_timeout: self.header_read_timeout,
            writes: Rate::new(self.write_burst, self.write_interval),
            auth_failures: Rate::new(self.auth_failure_burst, self.auth_failure_interval),
            ..Limits::default()
        }
    }
}

/// The marker under which the demo server is added, once per user.
const DEMO_MARKER: &str = "demo-server";

pub async fn run(context: &Context, args: ServeArgs) -> anyhow::Result<std::process::ExitCode> {
    if args.single_user && !args.listen.ip().is_loopback() {
        anyhow::bail!(
            "--single-user serves without tokens, so it only listens on a loopback address \
             (such as 127.0.0.1), not {}",
            args.listen.ip()
        );
    }
    let launch = launch_rules(&args)?;
    let store = switchboard_store::open(&context.store)
        .await
        .context("cannot open the store")?;
    let auth = first_start(store.as_ref(), args.single_user).await?;
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let address = listener.local_addr()?;
    let metrics_listener = match args.metrics_listen {
        Some(at) => Some(
            tokio::net::TcpListener::bind(at)
                .await
                .with_context(|| format!("cannot listen for metrics on {at}"))?,
        ),
        None => None,
    };
    let metrics_address = metrics_listener
        .as_ref()
        .map(tokio::net::TcpListener::local_addr)
        .transpose()?;
    let config = Arc::new(ServerConfig {
        launch,
        max_body_bytes: args.max_body_bytes,
        env_provider: env_provider(),
        guard: GuardConfig {
            listen: Some(address),
            public_urls: args.public_urls.clone(),
            allowed_hosts: args.allowed_hosts.clone(),
            allowed_origins: args.allowed_origins.clone(),
            metrics_listen: metrics_address,
            ..GuardConfig::default()
        },
        destinations: DestinationRules {
            allowed: args.allow_destinations.clone(),
        },
        limits: args.limits.limits(),
        stream_auth: Default::default(),
    });
    let policy = ServerPolicy::new(Arc::clone(&store), Arc::clone(&config), args.single_user);
    let manager = Arc::new(ConnectionManager::with_policy(
        ManagerConfig::default(),
        Arc::new(policy),
    ));
    let state = AppState::new(
        Arc::clone(&store),
        manager.clone(),
        AgentConfig::default(),
        auth,
    )
    .with_shared_config(Arc::clone(&config));
    if switchboard_server::live::relay::start(Arc::clone(&store), &state.events, &state.agent)
        .await
        .context("cannot listen for the other replicas' events")?
    {
        tracing::info!("relaying events and approvals to replicas on the same database");
    }
    let stopping = state.clone();
    let runs = Arc::clone(&state.runs);
    let limits = config.limits.clone();
    let (stop_metrics, metrics_stopping) = tokio::sync::oneshot::channel::<()>();
    if let (Some(metrics_listener), Some(at)) = (metrics_listener, metrics_address) {
        let metrics = switchboard_server::metrics_app(state.clone(), at);
        let limits = limits.clone();
        errln!("metrics are served on http://{at}/metrics");
        tokio::spawn(async move {
            let served =
                switchboard_server::serve(metrics_listener, metrics, &limits, async move {
                    let _ = metrics_stopping.await;
                })
                .await;
            if let Err(error) = served {
                tracing::error!(%error, "the metrics listener failed");
            }
        });
    }
    errln!("switchboard is listening on http://{address}");
    let served = switchboard_server::serve(listener, app(state), &limits, async move {
        shutdown_signal().await;
        let _ = stop_metrics.send(());
        // Streams and waits for decisions end first, so no request holds the shutdown.
        stopping.agent.stop_waiting();
        stopping.events.close();
    })
    .await;
    runs.shutdown(args.shutdown_grace).await;
    manager.shutdown().await;
    store.close().await;
    served.context("the HTTP server failed")?;
    errln!("switchboard stopped");
    Ok(std::process::ExitCode::SUCCESS)
}

/// The launch templates of `--launch-template`. `--allow-command` is refused rather than
/// read: it meant "this program with any arguments", which let `npx -c` run anything.
fn launch_rules(args: &ServeArgs) -> anyhow::Result<LaunchRules> {
    if args.allow_commands.iter().any(|c| !c.trim().is_empty()) {
        anyhow::bail!(
            "--allow-command (SWITCHBOARD_ALLOW_COMMANDS) is gone: it let members run a program \
             with any arguments. Name what members may run with --launch-template, for example \
             --launch-template 'npx -y @modelcontextprotocol/server-* env=GITHUB_TOKEN'"
        );
    }
    Ok(LaunchRules::parse_all(&args.launch_templates)?)
}

/// The provider the environment describes (`OPENAI_API_KEY`, `OPENAI_BASE_URL`, ...), for
/// users who have stored none; its model from `OPENAI_MODEL` / `ANTHROPIC_MODEL`.
fn env_provider() -> Option<EnvProvider> {
    use super::chat::setup::{ANTHROPIC_MODEL, OPENAI_MODEL};
    let found = switchboard_llm::default_provider_from_env(|name| std::env::var(name).ok())?;
    let model_variable = match found.wire_format() {
        switchboard_llm::WireFormat::OpenAi => OPENAI_MODEL,
        switchboard_llm::WireFormat::Anthropic => ANTHROPIC_MODEL,
    };
    Some(EnvProvider {
        provider: found.into_provider(),
        model: std::env::var(model_variable)
            .ok()
            .filter(|m| !m.trim().is_empty()),
        model_variable,
    })
}

/// Settles who may call: the local user in single-user mode, else tokens (with an admin made
/// on an empty store). Gives that user the demo server once.
async fn first_start(store: &dyn Store, single_user: bool) -> anyhow::Result<AuthMode> {
    let (auth, owner) = if single_user {
        let local = OwnerId::local();
        store.ensure_user(&local, "local", Role::Admin).await?;
        (AuthMode::SingleUser(local.clone()), Some(local))
    } else if store.users().await?.is_empty() {
        let admin = store.create_user("admin", Role::Admin).await?;
        let token = store
            .issue_token(&admin.id, "created on first start")
            .await?;
        outln!("admin API token (shown once, keep it): {}", token.secret);
        (AuthMode::Tokens, Some(admin.id))
    } else {
        (AuthMode::Tokens, None)
    };
    if let Some(owner) = owner {
        store
            .import_servers_once(&owner, DEMO_MARKER, &[demo_server()?])
            .await?;
    }
    Ok(auth)
}

/// This binary's own demo MCP server, over stdio.
fn demo_server() -> anyhow::Result<ServerSpec> {
    let exe = std::env::current_exe().context("cannot find this program to run its demo server")?;
    let mut spec = ServerSpec::stdio("demo", exe.to_string_lossy(), ["demo-server"]);
    spec.auto_approved_tools.insert("current_time".into());
    Ok(spec)
}

/// Completes on SIGINT or SIGTERM.
async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            _ => std::future::pending::<()>().await,
        }
    }
    #[cfg(not(unix))]
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}
