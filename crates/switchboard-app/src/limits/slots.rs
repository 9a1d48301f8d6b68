//! Counted per-user slots for things held open (event streams, runs): taking one past the
//! limit fails at once, and a slot is given back when its guard drops, however the stream or
//! run ends. Count and check happen under one lock, so two requests at once cannot both take
//! the last slot.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use switchboard_core::OwnerId;

#[derive(Debug)]
pub struct Slots {
    limit: usize,
    held: Arc<Mutex<HashMap<OwnerId, usize>>>,
}

/// One slot, given back on drop.
#[derive(Debug)]
pub struct SlotGuard {
    owner: OwnerId,
    held: Arc<Mutex<HashMap<OwnerId, usize>>>,
}

impl Slots {
    pub fn new(limit: usize) -> Self {
        Self {
            limit,
            held: Arc::default(),
        }
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    /// A slot for `owner`, unless they hold `limit` already.
    pub fn try_take(&self, owner: &OwnerId) -> Option<SlotGuard> {
        self.take(owner, false)
    }

    /// A slot for `owner` even past the limit (work that was admitted earlier and goes on,
    /// such as a run resumed after a decision), still counted.
    pub fn take_anyway(&self, owner: &OwnerId) -> SlotGuard {
        let taken = self.take(owner, true);
        taken.unwrap_or_else(|| SlotGuard {
            owner: owner.clone(),
            held: Arc::clone(&self.held),
        })
    }

    fn take(&self, owner: &OwnerId, anyway: bool) -> Option<SlotGuard> {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        let count = held.get(owner).copied().unwrap_or(0);
        if count >= self.limit && !anyway {
            return None;
        }
        held.insert(owner.clone(), count + 1);
        Some(SlotGuard {
            owner: owner.clone(),
            held: Arc::clone(&self.held),
        })
    }
}

impl Drop for SlotGuard {
    fn drop(&mut self) {
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(count) = held.get_mut(&self.owner) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                held.remove(&self.owner);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_counted_per_user_and_given_back() {
        let slots = Slots::new(2);
        let alice = OwnerId("alice".into());
        let bob = OwnerId("bob".into());
        let a = slots.try_take(&alice).unwrap();
        let _b = slots.try_take(&alice).unwrap();
        assert!(slots.try_take(&alice).is_none());
        assert!(slots.try_take(&bob).is_some());
        drop(a);
        assert!(slots.try_take(&alice).is_some());
    }
}
