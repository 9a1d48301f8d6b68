//! The size budget: how many bytes of output the walk may still commit to.
//!
//! Every byte of output is paid for before it is written, and only while it fits, so the total
//! never passes the limit:
//! - the input schema is paid for up front (its serialized size plus room for the root
//!   `type`); walking it copies at most that much, since dropping `$defs` and replacing a
//!   `$ref` by its siblings only ever shrinks a node;
//! - inlining a target pays the target's serialized size, measured once per target;
//! - what a pruned reference gains (the target's `type` and `description`, a note in the
//!   description) is paid entry by entry, and left out when it does not fit.
//!
//! Sizes are computed from the values, never by serializing, so the accounting is O(output).

use std::collections::HashMap;

use serde_json::Value;

use super::size::measure;

#[derive(Debug)]
pub(super) struct Budget {
    limit: usize,
    spent: usize,
    /// Serialized size of each target inlined so far, by address in the resolver's document.
    target_sizes: HashMap<*const Value, usize>,
}

impl Budget {
    pub fn new(limit: usize, spent: usize) -> Self {
        Self {
            limit,
            spent,
            target_sizes: HashMap::new(),
        }
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Pays `bytes` if they fit.
    pub fn try_spend(&mut self, bytes: usize) -> bool {
        let total = self.spent.saturating_add(bytes);
        let fits = total <= self.limit;
        if fits {
            self.spent = total;
        }
        fits
    }

    /// Pays for inlining `target` if it fits.
    pub fn try_inline(&mut self, target: &Value) -> bool {
        let bytes = *self
            .target_sizes
            .entry(std::ptr::from_ref(target))
            .or_insert_with(|| measure(target).bytes);
        self.try_spend(bytes)
    }
}
