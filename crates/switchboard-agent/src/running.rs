//! At most one run per conversation in this process: two runs on one turn would fail each
//! other's live calls as "interrupted" and overwrite each other's rounds.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

#[derive(Debug, Default)]
pub struct Running {
    conversations: Mutex<HashSet<String>>,
}

impl Running {
    /// Marks the conversation running until the guard is dropped; `None` if it already is.
    pub fn claim(self: &Arc<Self>, conversation_id: &str) -> Option<RunGuard> {
        let mut set = self
            .conversations
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        set.insert(conversation_id.to_owned()).then(|| RunGuard {
            running: Arc::clone(self),
            conversation_id: conversation_id.to_owned(),
        })
    }

    pub fn is_running(&self, conversation_id: &str) -> bool {
        self.conversations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(conversation_id)
    }
}

/// Ends the claim when dropped (also when the run's future is dropped).
#[derive(Debug)]
pub struct RunGuard {
    running: Arc<Running>,
    conversation_id: String,
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        self.running
            .conversations
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&self.conversation_id);
    }
}
