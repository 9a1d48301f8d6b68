//! Ctrl-C, listened for once for the whole chat.
//!
//! A fresh `tokio::signal::ctrl_c()` future sees only the signals that arrive after it is first
//! polled, so one made per run could miss a Ctrl-C pressed just as a question appeared. On
//! Unix the listener is registered when the chat starts and keeps every Ctrl-C until it is
//! read; elsewhere each wait falls back to `ctrl_c()`.

/// The chat's Ctrl-C listener.
#[derive(Debug)]
pub struct Interrupts {
    #[cfg(unix)]
    signal: Option<tokio::signal::unix::Signal>,
}

impl Interrupts {
    /// Starts listening. Where that fails, [`Interrupts::next`] never completes and Ctrl-C
    /// keeps its default effect.
    pub fn listen() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let signal = signal(SignalKind::interrupt())
                .inspect_err(|error| tracing::warn!(%error, "cannot listen for Ctrl-C"))
                .ok();
            Self { signal }
        }
        #[cfg(not(unix))]
        {
            Self {}
        }
    }

    /// Completes at the next Ctrl-C (one already pressed counts). Cancel-safe.
    pub async fn next(&mut self) {
        #[cfg(unix)]
        {
            if let Some(signal) = &mut self.signal
                && signal.recv().await.is_some()
            {
                return;
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_ok() {
                return;
            }
        }
        std::future::pending::<()>().await;
    }
}
