//! What the resolver pruned or dropped, said once each, in the order it first happened.

use std::collections::HashSet;

#[derive(Debug, Default)]
pub(super) struct Notes {
    list: Vec<String>,
    seen: HashSet<String>,
}

impl Notes {
    /// Records `note` unless the same note was already recorded: a definition pruned at a
    /// hundred places is one note, so the notes stay as small as the input.
    pub fn add(&mut self, note: String) {
        if !self.seen.contains(&note) {
            self.seen.insert(note.clone());
            self.list.push(note);
        }
    }

    pub fn into_vec(self) -> Vec<String> {
        self.list
    }
}
