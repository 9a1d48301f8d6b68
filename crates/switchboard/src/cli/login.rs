//! `switchboard servers login NAME` and `logout NAME`: OAuth sign-in to a remote server from a
//! terminal, as the settings page's "Sign in" does from a browser.
//!
//! The authorization URL is printed for the person to open; the authorization server sends
//! the browser back to a listener on a loopback port of this machine (RFC 8252's loopback
//! redirect for native apps), which takes exactly one callback with the flow's `state`, then
//! closes. The tokens go to the store, where `serve` and every other command find them.

use std::net::SocketAddr;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use axum::extract::{Query, State};
use axum::response::Html;
use serde::Deserialize;
use serde_json::json;
use switchboard_core::Auth;
use tokio::sync::{Mutex, oneshot};

use super::app::interrupted;
use super::{CliError, Context};
use crate::output;

/// How long the listener waits for the browser.
const WAIT: Duration = Duration::from_secs(10 * 60);

/// What the authorization server sends back (RFC 6749 4.1.2, RFC 9207).
#[derive(Debug, Deserialize)]
struct Callback {
    code: Option<String>,
    state: Option<String>,
    iss: Option<String>,
    error: Option<String>,
}

type Arrived = Arc<Mutex<Option<oneshot::Sender<Callback>>>>;

pub async fn login(context: &Context, name: &str, port: u16) -> anyhow::Result<ExitCode> {
    let servers = context.servers().await?;
    let spec = servers.connection_spec(name).await?;
    if !matches!(spec.auth, Auth::OAuth { .. }) {
        anyhow::bail!(
            "server `{}` does not use OAuth sign-in (add it with --oauth)",
            spec.name
        );
    }
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], port)))
        .await
        .with_context(|| format!("cannot listen on 127.0.0.1:{port} for the sign-in"))?;
    let at = listener.local_addr()?;
    let redirect_uri = format!("http://{at}/callback");
    let manager = &servers.app().manager;
    let pool = &servers.app().pool;
    let outcome = async {
        let url = pool
            .start_sign_in(servers.owner(), &spec, &redirect_uri)
            .await?;
        if context.json {
            output::print_json(&json!({ "authorizationUrl": url }));
        } else {
            outln!(
                "Open this address in a browser to sign in to `{}`:",
                spec.name
            );
            outln!("{url}");
        }
        let callback = tokio::select! {
            callback = one_callback(listener) => callback?,
            () = interrupted() => return Err(CliError::Interrupted.into()),
        };
        if let Some(error) = callback.error {
            anyhow::bail!("the authorization server refused the sign-in: {error}");
        }
        let (Some(code), Some(state)) = (callback.code, callback.state) else {
            anyhow::bail!("the callback carried no code");
        };
        let pending = manager
            .sign_ins()
            .take(&state)
            .await?
            .context("the callback answers no sign-in of this command")?;
        pool.finish_sign_in(&spec, pending, &code, callback.iss.as_deref())
            .await?;
        Ok::<_, anyhow::Error>(())
    }
    .await;
    manager.shutdown().await;
    outcome?;
    if context.json {
        output::print_json(&json!({ "signedIn": spec.name }));
    } else {
        outln!("signed in to `{}`", spec.name);
    }
    Ok(ExitCode::SUCCESS)
}

pub async fn logout(context: &Context, name: &str) -> anyhow::Result<ExitCode> {
    let servers = context.servers().await?;
    let spec = servers.connection_spec(name).await?;
    let manager = &servers.app().manager;
    let done = manager.sign_ins().sign_out(servers.owner(), &spec.id).await;
    manager.shutdown().await;
    done.map_err(|e| anyhow::anyhow!(e.to_string()))?;
    if context.json {
        output::print_json(&json!({ "signedOut": spec.name }));
    } else {
        outln!("signed out of `{}`", spec.name);
    }
    Ok(ExitCode::SUCCESS)
}

/// Serves `GET /callback` until one arrives (or [`WAIT`] passes), answers the browser, and
/// closes the listener.
async fn one_callback(listener: tokio::net::TcpListener) -> anyhow::Result<Callback> {
    let (sender, arrived) = oneshot::channel();
    let slot: Arrived = Arc::new(Mutex::new(Some(sender)));
    let app = axum::Router::new()
        .route("/callback", axum::routing::get(answer))
        .with_state(Arc::clone(&slot));
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async {
                let _ = stopped.await;
            })
            .await
    });
    let callback = tokio::time::timeout(WAIT, arrived).await;
    let _ = stop.send(());
    let _ = server.await;
    match callback {
        Ok(Ok(callback)) => Ok(callback),
        Ok(Err(_)) => anyhow::bail!("the sign-in listener stopped"),
        Err(_) => anyhow::bail!("no sign-in arrived within {} minutes", WAIT.as_secs() / 60),
    }
}

async fn answer(
    State(slot): State<Arrived>,
    Query(callback): Query<Callback>,
) -> Html<&'static str> {
    let refused = callback.error.is_some();
    if let Some(sender) = slot.lock().await.take() {
        let _ = sender.send(callback);
    }
    Html(if refused {
        "<!doctype html><title>Switchboard</title><p>The sign-in was refused. You can close \
         this tab.</p>"
    } else {
        "<!doctype html><title>Switchboard</title><p>Back to the terminal: Switchboard \
         finishes the sign-in there. You can close this tab.</p>"
    })
}
