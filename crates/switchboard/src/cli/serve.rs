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
use switchboard_core::{OwnerId, ServerSpec};
use switchboard_mcp::{ConnectionManager, ManagerConfig};
use switchboard_server::{AppState, AuthMode, EnvProvider, ServerConfig, ServerPolicy, app};
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
    /// A command members may configure as a stdio server (admins may configure any). Exact
    /// text; repeat for more, or list them comma-separated in SWITCHBOARD_ALLOW_COMMANDS.
    #[arg(
        long = "allow-command",
        env = "SWITCHBOARD_ALLOW_COMMANDS",
        value_delimiter = ','
    )]
    pub allow_commands: Vec<String>,
    /// Request bodies larger than this many bytes are refused.
    #[arg(long, default_value_t = 4 * 1024 * 1024)]
    pub max_body_bytes: usize,
    /// On shutdown, how long runs that are answering get to finish before they are cancelled.
    #[arg(long, default_value = "10s", value_parser = humantime::parse_duration)]
    pub shutdown_grace: std::time::Duration,
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
    let store = switchboard_store::open(&context.store)
        .await
        .context("cannot open the store")?;
    let auth = first_start(store.as_ref(), args.single_user).await?;
    let config = Arc::new(ServerConfig {
        stdio_allowlist: args.allow_commands.clone(),
        max_body_bytes: args.max_body_bytes,
        env_provider: env_provider(),
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
    .with_shared_config(config);
    if switchboard_server::live::relay::start(Arc::clone(&store), &state.events, &state.agent)
        .await
        .context("cannot listen for the other replicas' events")?
    {
        tracing::info!("relaying events and approvals to replicas on the same database");
    }
    let stopping = state.clone();
    let runs = Arc::clone(&state.runs);
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .with_context(|| format!("cannot listen on {}", args.listen))?;
    let address = listener.local_addr()?;
    eprintln!("switchboard is listening on http://{address}");
    let served = axum::serve(listener, app(state))
        .with_graceful_shutdown(async move {
            shutdown_signal().await;
            // Streams and waits for decisions end first, so no request holds the shutdown.
            stopping.agent.stop_waiting();
            stopping.events.close();
        })
        .await;
    runs.shutdown(args.shutdown_grace).await;
    manager.shutdown().await;
    store.close().await;
    served.context("the HTTP server failed")?;
    eprintln!("switchboard stopped");
    Ok(std::process::ExitCode::SUCCESS)
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
        println!("admin API token (shown once, keep it): {}", token.secret);
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
