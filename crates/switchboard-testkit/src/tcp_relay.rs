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
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

/// Relays each connection to `target`; stops with the value.
pub struct TcpRelay {
    addr: SocketAddr,
    accepted: Arc<AtomicUsize>,
    open: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
    /// Bumped to cut the connections open at that moment.
    cuts: watch::Sender<u64>,
    accept: JoinHandle<()>,
}

impl TcpRelay {
    /// Listens on a free port of 127.0.0.1.
    pub async fn start(target: SocketAddr) -> std::io::Result<Self> {
        let listener = TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let accepted = Arc::new(AtomicUsize::new(0));
        let open = Arc::new(AtomicUsize::new(0));
        let peak = Arc::new(AtomicUsize::new(0));
        let (cuts, _) = watch::channel(0);
        let counts = Counts {
            accepted: Arc::clone(&accepted),
            open: Arc::clone(&open),
            peak: Arc::clone(&peak),
        };
        let accept = tokio::spawn(accept_loop(listener, target, counts, cuts.clone()));
        Ok(Self {
            addr,
            accepted,
            open,
            peak,
            cuts,
            accept,
        })
    }

    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Connections accepted since the start.
    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::SeqCst)
    }

    /// The most connections that were open at once.
    pub fn peak_open(&self) -> usize {
        self.peak.load(Ordering::SeqCst)
    }

    /// Closes every connection open now (both sides); later ones are relayed as before.
    pub fn cut_all(&self) {
        self.cuts.send_modify(|n| *n += 1);
    }
}

impl Drop for TcpRelay {
    fn drop(&mut self) {
        self.accept.abort();
        self.cut_all();
    }
}

#[derive(Clone)]
struct Counts {
    accepted: Arc<AtomicUsize>,
    open: Arc<AtomicUsize>,
    peak: Arc<AtomicUsize>,
}

async fn accept_loop(
    listener: TcpListener,
    target: SocketAddr,
    counts: Counts,
    cuts: watch::Sender<u64>,
) {
    while let Ok((mut client, _)) = listener.accept().await {
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
