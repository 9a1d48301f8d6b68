//! `switchboard mcp [--stdio] [--view NAME] [--user NAME]`: the MCP gateway (the same server
//! as `serve`'s `/mcp`) over standard input and output, for clients that only launch commands
//! (Claude Desktop: `{"command": "switchboard", "args": ["mcp", "--stdio", "--view", "NAME"]}`).
//! Run where there is no store (a client launching it from another directory without
//! `--data-dir`), it says so on stderr and exits rather than serve an empty list.
//!
//! It builds the application as the other local commands do, and acts for one person and view
//! fixed at start: the command line's (`--user`, else as `cli::local` chooses). The upstream
//! servers it needs are started on demand by the application's pool, and all of them (their
//! process groups) end with it: when the client closes stdin, or on SIGINT or SIGTERM. stdout carries
//! the protocol, so nothing else is ever written there; logs go to stderr (`main.rs`).

use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::Args;
use rmcp::ServiceExt as _;
use switchboard_gateway::{Gateway, Scope};
use switchboard_store::{Store, StoreError, User};

use super::{CliError, Context};

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve on standard input and output, the only way this command serves (the HTTP
    /// endpoint is `serve`'s /mcp); accepted for the clients' configurations that name it.
    #[arg(long)]
    pub stdio: bool,
    /// Offer only this view's servers and tools (see the settings page, or /api/mcp/views).
    #[arg(long, value_name = "NAME")]
    pub view: Option<String>,
}

pub async fn run(context: &Context, args: McpArgs) -> anyhow::Result<ExitCode> {
    // Opening the store would make an empty one here.
    let file = context.store.data_dir.join(switchboard_store::DB_FILE);
    if context.store.database_url.is_none() && !file.exists() {
        return Err(CliError::NoData(context.store.data_dir.display().to_string()).into());
    }
    // The person is the command line's (`--user`, else as `cli::local` chooses).
    let local = context.servers().await?;
    let store = Arc::clone(local.store());
    let user = store.user(local.owner()).await?;
    if let Some(view) = &args.view {
        check_view(store.as_ref(), &user, view).await?;
    }
    let scope = Scope {
        user,
        view: args.view,
    };
    let app = local.app();
    // Calls its client asked to run as tasks are followed while the session lasts (those of
    // this process's own end as interrupted with it).
    app.tasks.start();
    let served = serve(&app.gateway, scope).await;
    // Every upstream server this session started ends here, whatever ended the session.
    app.shutdown(std::time::Duration::ZERO).await;
    served?;
    Ok(ExitCode::SUCCESS)
}

/// Serves one session on stdio until the client hangs up or a signal asks to stop.
async fn serve(gateway: &Arc<Gateway>, scope: Scope) -> anyhow::Result<()> {
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let running = gateway
        .handler(Some(scope))
        .serve(switchboard_gateway::stdio::rewritten(stdin, stdout))
        .await
        .context("the MCP handshake on stdio failed")?;
    let cancel = running.cancellation_token();
    tokio::select! {
        quit = running.waiting() => {
            let quit = quit.context("the MCP session failed")?;
            tracing::debug!(?quit, "stdio session ended");
        }
        () = super::serve::shutdown_signal() => cancel.cancel(),
    }
    Ok(())
}

async fn check_view(store: &dyn Store, user: &User, view: &str) -> anyhow::Result<()> {
    match store.view_by_name(&user.id, view).await {
        Ok(_) => Ok(()),
        Err(StoreError::NotFound { .. }) => Err(CliError::ViewNotFound(view.to_owned()).into()),
        Err(error) => Err(error.into()),
    }
}
