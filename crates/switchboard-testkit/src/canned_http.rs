//! An HTTP server on 127.0.0.1 that gives every request the same answer and counts the
//! connections it accepted: the stand-in for "something on the host's network" in the
//! server-side request forgery tests. A guard that works leaves its count at zero.
//!
//! Hand-written on a raw socket rather than with axum so that every accepted connection is
//! counted, including one that never sends a whole request.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

/// See the [module docs](self). The server stops when this is dropped.
#[derive(Debug)]
pub struct CannedHttp {
    port: u16,
    hits: Arc<AtomicUsize>,
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl CannedHttp {
    /// Answers every request with `status`, `content_type` and `body`, then closes the
    /// connection.
    pub async fn start(status: u16, content_type: &str, body: impl Into<String>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .unwrap_or_else(|e| panic!("cannot bind a test server: {e}"));
        let port = listener
            .local_addr()
            .unwrap_or_else(|e| panic!("no local address: {e}"))
            .port();
        let body = body.into();
        let answer = Arc::new(format!(
            "HTTP/1.1 {status} Canned\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        ));
        let hits = Arc::new(AtomicUsize::new(0));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let counted = Arc::clone(&hits);
        tokio::spawn(async move {
            let serve = async {
                while let Ok((mut socket, _)) = listener.accept().await {
                    counted.fetch_add(1, Ordering::SeqCst);
                    let answer = Arc::clone(&answer);
                    tokio::spawn(async move {
                        let mut head = Vec::new();
                        let mut buf = [0u8; 4096];
                        while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                            match socket.read(&mut buf).await {
                                Ok(0) | Err(_) => return,
                                Ok(n) => head.extend_from_slice(&buf[..n]),
                            }
                        }
                        let _ = socket.write_all(answer.as_bytes()).await;
                        let _ = socket.shutdown().await;
                    });
                }
            };
            tokio::select! {
                () = serve => {}
                _ = stopped => {}
            }
        });
        Self {
            port,
            hits,
            _stop: stop,
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://{host}:{port}{path}`; `host` as it goes in a URL (`[::1]` for IPv6).
    pub fn url(&self, host: &str, path: &str) -> String {
        format!("http://{host}:{}{path}", self.port)
    }

    /// How many connections it accepted so far.
    pub fn hits(&self) -> usize {
        self.hits.load(Ordering::SeqCst)
    }
}

/// A port on 127.0.0.1 where nothing listens (bound, then released).
pub async fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap_or_else(|e| panic!("cannot bind: {e}"));
    listener
        .local_addr()
        .unwrap_or_else(|e| panic!("no local address: {e}"))
        .port()
}
