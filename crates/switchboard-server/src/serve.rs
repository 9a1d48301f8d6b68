//! Serving the application on a listener: [`serve()`], in place of `axum::serve`, for the
//! limits `axum::serve` does not offer: a header read timeout, and a cap on
//! connections at once. The router is served as it is given (layers and all), each request
//! carrying its peer's address as axum's `ConnectInfo<SocketAddr>`.
//!
//! hyper's `header_read_timeout` (hyper 1.12, `proto/h1/conn.rs`, `poll_read_head`): the
//! timer starts whenever the connection waits for a request head, that is when the
//! connection opens and again after each response on a keep-alive connection, and stops once
//! the head is parsed. So it closes a connection that sends nothing, one that sends half a
//! header, and a keep-alive connection idle between requests alike: it is also the idle
//! keep-alive timeout. It does not cover a request body read slowly nor a response being
//! written (an event stream may last for hours).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_service::Service as _;

use crate::limits::Limits;

/// Serves `app` on `listener` until `shutdown` completes; then stops accepting, lets the
/// requests in flight finish (idle connections close at once) and returns. Streams that
/// never end on their own must be ended by `shutdown` itself before it completes, as
/// `switchboard serve` does with the event streams.
///
/// At most `limits.max_connections` connections are served at once: past that, new ones
/// wait in the listen backlog until one closes.
pub async fn serve(
    listener: TcpListener,
    app: Router,
    limits: &Limits,
    shutdown: impl Future<Output = ()> + Send,
) -> std::io::Result<()> {
    let connections = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let stop = CancellationToken::new();
    let tracker = TaskTracker::new();
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            () = &mut shutdown => break,
            permit = Arc::clone(&connections).acquire_owned() => match permit {
                Ok(permit) => permit,
                Err(_) => break,
            },
        };
        let (stream, peer) = tokio::select! {
            () = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    backoff(&error).await;
                    continue;
                }
            },
        };
        // Small MCP and SSE messages are written as soon as they are ready: without this,
        // Nagle's algorithm holds a small write back until the previous one is acknowledged.
        if let Err(error) = stream.set_nodelay(true) {
            tracing::debug!(%peer, %error, "cannot set TCP_NODELAY");
        }
        let app = app.clone();
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            app.clone().call(request)
        });
        let connection = http.serve_connection(TokioIo::new(stream), service);
        let stop = stop.clone();
        tracker.spawn(async move {
            tokio::pin!(connection);
            let served = tokio::select! {
                served = connection.as_mut() => served,
                () = stop.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    connection.await
                }
            };
            if let Err(error) = served {
                tracing::debug!(%peer, %error, "connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    stop.cancel();
    tracker.close();
    tracker.wait().await;
    Ok(())
}

/// After a failed accept: errors of one connection (it was reset before we took it) go on
/// at once; others (too many open files) wait a moment, as `axum::serve` does, rather than
/// spin.
async fn backoff(error: &std::io::Error) {
    use std::io::ErrorKind::{ConnectionAborted, ConnectionRefused, ConnectionReset};
    if matches!(
        error.kind(),
        ConnectionAborted | ConnectionRefused | ConnectionReset
    ) {
        return;
    }
    tracing::error!(%error, "cannot accept a connection");
    tokio::time::sleep(Duration::from_millis(200)).await;
}
