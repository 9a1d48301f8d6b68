//! The `tool_calls` column of the few messages this process wrote last, as it wrote them.
//!
//! A tool-call edit is a compare-and-swap (`sql/conversations.rs`): it reads the column, edits
//! it, and writes it back only if it is unchanged. A run edits one message over and over
//! (its calls' `invoking`, then their results), and what it wrote last is, almost always,
//! what is stored: the swap is tried against that first, and the read is made only when the
//! swap finds the column changed (another process wrote it) or the message is not remembered.
//! So the cache can be stale without harm; it is bounded in messages and in size.

use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

/// Messages remembered, at most.
const MESSAGES: usize = 32;
/// A column larger than this (results can be large) is not remembered.
const LARGEST: usize = 64 * 1024;

#[derive(Debug, Default)]
pub(crate) struct KnownCalls {
    recent: Mutex<VecDeque<(String, String)>>,
}

impl KnownCalls {
    /// The column of `message_id` as this process last wrote it, if remembered.
    pub(crate) fn get(&self, message_id: &str) -> Option<String> {
        let recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        recent
            .iter()
            .find(|(id, _)| id == message_id)
            .map(|(_, calls)| calls.clone())
    }

    /// Remembers what was just written to the column of `message_id`.
    pub(crate) fn put(&self, message_id: &str, calls: &str) {
        let mut recent = self.recent.lock().unwrap_or_else(PoisonError::into_inner);
        recent.retain(|(id, _)| id != message_id);
        if calls.len() > LARGEST {
            return;
        }
        if recent.len() == MESSAGES {
            recent.pop_back();
        }
        recent.push_front((message_id.to_owned(), calls.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_written_is_remembered_within_bounds() {
        let known = KnownCalls::default();
        known.put("m", "[]");
        known.put("m", "[1]");
        assert_eq!(known.get("m").as_deref(), Some("[1]"));
        known.put("m", &"x".repeat(LARGEST + 1));
        assert_eq!(known.get("m"), None, "too large: forgotten, not stale");
        for i in 0..=MESSAGES {
            known.put(&format!("m{i}"), "[]");
        }
        assert_eq!(known.get("m0"), None, "the oldest goes");
        assert!(known.get(&format!("m{MESSAGES}")).is_some());
    }
}
