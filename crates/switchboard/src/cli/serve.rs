//! `switchboard serve`: the HTTP API on one address until SIGINT or SIGTERM.
//!
//! First start on an empty store: with tokens, an `admin` user is created and its API token
//! printed once; with `--single-user` (loopback only), every request acts as the `local`
//! admin. Either way that user gets the built-in demo MCP server once, so there is something
//! to try. On shutdown the server stops taking requests, finishes the ones in flight, ends
//! every stdio server's process group and closes the store.
//!
//! Everything it is configured with comes from the layered settings ([`crate::settings`]).

use std::sync::Arc;

use anyhow::Context as _;
use switchboard_agent::EnvProvider;
use switchboard_app::App;
use switchboard_core::{OwnerId, ServerSpec};
use switchboard_server::{
    AppState, AuthMode, GuardConfig, ServerConfig, StdioLaunch, app as app_router,
};
use switchboard_store::{Role, Store, StoreConfig};

use super::{CliError, Context};
use crate::settings::{ServerSettings, Settings, SettingsFlags};

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Every setting's flag; see `switchboard config show` and README "Configuration".
    #[command(flatten)]
    pub settings: SettingsFlags,
    /// Removed: it let members run a program with any arguments. Refused at start.
    #[arg(
        long = "allow-command",
        env = "SWITCHBOARD_ALLOW_COMMANDS",
        hide = true
    )]
    pub allow_commands: Vec<String>,
}

/// The marker under which the demo server is added, once per user.
const DEMO_MARKER: &str = "demo-server";

pub async fn run(context: &Context, args: ServeArgs) -> anyhow::Result<std::process::ExitCode> {
    let env = |name: &str| std::env::var(name).ok();
    let settings = Settings::load(
        &context.global.settings_file(),
        &env,
        &args.settings,
        &context.global.store_shown(),
    )?
    .settings;
    let server = &settings.server;
    if let Some(refusal) = server.refusal() {
        return Err(CliError::StartRefused(refusal).into());
    }
    refuse_allow_command(&args)?;
    // Switchboard's Client ID Metadata Document is offered where it has a public https URL.
    let oauth = switchboard_mcp::oauth::OAuthClientIdentity {
        metadata_url: server
            .public_urls
            .iter()
            .find(|url| url.scheme() == "https")
            .map(|url| {
                format!(
                    "{}{}",
                    url.origin().ascii_serialization(),
                    switchboard_server::oauth_paths::CLIENT_METADATA
                )
            }),
        ..Default::default()
    };
    let mut config = settings.app_config(env_provider(), oauth)?;
    config.manager.stdio_guard = super::guard::stdio_guard();
    // Where the stdio servers `serve` starts will look for their programs.
    config.program_path = std::env::var_os("PATH");
    let app = Arc::new(
        App::build(&context.store, config)
            .await
            .context("cannot open the store")?,
    );
    let auth = first_start(app.store.as_ref(), server.single_user).await?;
    let listener = tokio::net::TcpListener::bind(server.listen)
        .await
        .map_err(|source| CliError::CannotListen {
            address: server.listen,
            source,
        })?;
    let address = listener.local_addr()?;
    let metrics_listener = match server.metrics_listen {
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
    let config = ServerConfig {
        max_body_bytes: server.max_body_bytes,
        guard: GuardConfig {
            listen: Some(address),
            public_urls: server.public_urls.clone(),
            allowed_hosts: ServerSettings::names(&server.allowed_hosts),
            allowed_origins: ServerSettings::names(&server.allowed_origins),
            metrics_listen: metrics_address,
            ..GuardConfig::default()
        },
        stream_auth: Default::default(),
        stdio_launch: stdio_launch(&context.store),
    };
    if !settings.nodes.is_empty() {
        tracing::info!(
            nodes = settings.nodes.len(),
            "MCP servers with a node run on it"
        );
    }
    let state = AppState::new(Arc::clone(&app), config, auth);
    if switchboard_server::live::relay::start(Arc::clone(&app.store), &state.events, &app.agent)
        .await
        .context("cannot listen for the other replicas' events")?
    {
        tracing::info!("relaying events and approvals to replicas on the same database");
    }
    let stopping = state.clone();
    let limits = app.limits.clone();
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
    let signalled = shutdown_signal();
    errln!("switchboard is listening on http://{address}");
    let served = switchboard_server::serve(listener, app_router(state), &limits, async move {
        signalled.await;
        let _ = stop_metrics.send(());
        // Streams and waits for decisions end first, so no request holds the shutdown.
        stopping.agent.stop_waiting();
        stopping.events.close();
    })
    .await;
    app.shutdown(server.shutdown_grace).await;
    served.context("the HTTP server failed")?;
    errln!("switchboard stopped");
    Ok(std::process::ExitCode::SUCCESS)
}

/// `--allow-command` is refused rather than read: it meant "this program with any
/// arguments", which let `npx -c` run anything. Launch templates replace it.
fn refuse_allow_command(args: &ServeArgs) -> anyhow::Result<()> {
    if args.allow_commands.iter().any(|c| !c.trim().is_empty()) {
        anyhow::bail!(
            "--allow-command (SWITCHBOARD_ALLOW_COMMANDS) is gone: it let members run a program \
             with any arguments. Name what members may run with --launch-template, for example \
             --launch-template 'npx -y @modelcontextprotocol/server-* env=GITHUB_TOKEN'"
        );
    }
    Ok(())
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
/// How a client on this machine launches `switchboard mcp` on this store, for the snippets
/// the settings page offers: none where the store is a database named by URL (a snippet would
/// carry its password) or where this binary's path cannot be told.
fn stdio_launch(store: &StoreConfig) -> Option<StdioLaunch> {
    if store.database_url.is_some() {
        return None;
    }
    Some(StdioLaunch {
        command: std::env::current_exe().ok()?,
        data_dir: std::path::absolute(&store.data_dir).ok()?,
    })
}

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

/// Completes on SIGINT or SIGTERM. The handlers are installed when this is called, not when
/// the future is first polled: a signal that arrives in between (a server that just said it
/// listens, and is stopped at once) must not meet the default action and kill the process.
pub(super) fn shutdown_signal() -> impl Future<Output = ()> + Send {
    #[cfg(unix)]
    let signals = {
        use tokio::signal::unix::{SignalKind, signal};
        (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        )
    };
    async move {
        #[cfg(unix)]
        match signals {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            _ => std::future::pending::<()>().await,
        }
        #[cfg(not(unix))]
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}
