//! Log lines a test can read: what a component logged, checked for what must (and must not)
//! be there.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};

/// Debug-level log lines of the current thread, kept in memory.
#[derive(Clone, Default)]
pub struct CapturedLog(Arc<Mutex<Vec<u8>>>);

impl CapturedLog {
    /// Captures every event at debug level and above logged on this thread until the guard
    /// is dropped. With a current-thread runtime (`#[tokio::test]`'s default) that is every
    /// task the test runs, servers included.
    pub fn start() -> (CapturedLog, tracing::subscriber::DefaultGuard) {
        let captured = CapturedLog::default();
        let sink = captured.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_ansi(false)
            .with_writer(move || sink.clone())
            .finish();
        (captured, tracing::subscriber::set_default(subscriber))
    }

    /// Everything logged so far.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(PoisonError::into_inner)).into_owned()
    }
}

impl Write for CapturedLog {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
