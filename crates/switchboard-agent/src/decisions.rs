//! Waking a run that waits for approvals when a decision is stored.
//!
//! The decision itself lives in the store (the tool call's `approved`); this only tells a
//! waiting run in this process to look again. A run that was not waiting here (another
//! process, or none since a restart) finds the decision when it resumes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;

#[derive(Debug, Default)]
pub struct DecisionHub {
    waiting: Mutex<HashMap<String, Arc<Notify>>>,
}

impl DecisionHub {
    /// The notifier for a message's decisions.
    pub fn notifier(&self, message_id: &str) -> Arc<Notify> {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        Arc::clone(waiting.entry(message_id.to_owned()).or_default())
    }

    /// Wakes whoever waits on the message.
    pub fn decided(&self, message_id: &str) {
        let waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(notify) = waiting.get(message_id) {
            notify.notify_waiters();
        }
    }

    /// Forgets a message whose run no longer waits.
    pub fn done(&self, message_id: &str) {
        let mut waiting = self.waiting.lock().unwrap_or_else(PoisonError::into_inner);
        waiting.remove(message_id);
    }
}
