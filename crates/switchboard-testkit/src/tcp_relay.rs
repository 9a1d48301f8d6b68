//! A TCP relay in front of a server: it counts the connections a client opens, and can cut
//! every open one at once, as a network that drops or a server that dies mid-answer would.
//!
//! ```no_run
//! # async fn demo() -> std::io::Result<()> {
//! use switchboard_testkit::TcpRelay;
//! let relay = TcpRelay::start("127.0.0.1:8080".parse().unwrap()).await?;
//! let url = format!("http://{}/mcp", relay.addr());
//! // ... the client under test talks to `url` ...
//! assert!(relay.accepted() <= 4);
//! relay.cut_all(); // every open connection is closed now
//! # Ok(())
//! # }
//! ```

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Relays each connection to `target`; stops with the value.
pub struct TcpRelay {
    addr: SocketAddr,
    counts: Counts,
    /// Bumped to cut the connections open at that moment.
    cuts: watch::Sender<u64>,
    accept: JoinHandle<()>,
}

impl TcpRelay {
    /// Listens on a free port of 127.0.0.1.
    pub async fn start(target: SocketAddr) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let counts = Counts::default();
        let (cuts, _) = watch::channel(0);
        let accept = tokio::spawn(accept_loop(listener, target, counts.clone(), cuts.clone()));
        Ok(Self {
            addr,
            counts,
            cuts,
            accept,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections accepted since the start.
    pub fn accepted(&self) -> usize {
        self.counts.accepted.load(Ordering::SeqCst)
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.counts.open.load(Ordering::SeqCst)
    }

    /// The most connections that were open at once.
    pub fn peak_open(&self) -> usize {
        self.counts.peak.load(Ordering::SeqCst)
    }

    /// Closes every connection open now (both sides); later ones are relayed as before.
    pub fn cut_all(&self) {
        self.cuts.send_modify(|n| *n += 1);
    }

    /// From now on, closes each new connection at once (a server that is down) until
    /// [`TcpRelay::resume`].
    pub fn refuse(&self) {
        self.counts.refusing.store(true, Ordering::SeqCst);
    }

    /// Relays new connections again.
    pub fn resume(&self) {
        self.counts.refusing.store(false, Ordering::SeqCst);
    }

    /// Connections closed at once while refusing.
    pub fn refused(&self) -> usize {
        self.counts.refused.load(Ordering::SeqCst)
    }
}

impl Drop for TcpRelay {
    fn drop(&mut self) {
        self.accept.abort();
        self.cut_all();
    }
}

#[derive(Clone, Default)]
struct Counts {
    accepted: Arc<AtomicUsize>,
    open: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
    refusing: Arc<AtomicBool>,
    refused: Arc<AtomicUsize>,
}

async fn accept_loop(
    listener: TcpListener,
    target: SocketAddr,
    counts: Counts,
    cuts: watch::Sender<u64>,
) {
    while let Ok((mut client, _)) = listener.accept().await {
        if counts.refusing.load(Ordering::SeqCst) {
            counts.refused.fetch_add(1, Ordering::SeqCst);
            drop(client);
            continue;
        }
        counts.accepted.fetch_add(1, Ordering::SeqCst);
        let now = counts.open.fetch_add(1, Ordering::SeqCst) + 1;
        counts.peak.fetch_max(now, Ordering::SeqCst);
        let _ = client.set_nodelay(true);
        let mut cut = cuts.subscribe();
        let counts = counts.clone();
        tokio::spawn(async move {
            if let Ok(mut server) = TcpStream::connect(target).await {
                let _ = server.set_nodelay(true);
                tokio::select! {
                    _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                    _ = cut.changed() => {}
                }
            }
            counts.open.fetch_sub(1, Ordering::SeqCst);
        });
    }
}
