//! [`PerList`]: what was worked out from a server's tool list, remembered while that list
//! lives.
//!
//! The connection manager hands out each server's tools as one shared list
//! (`Arc<Vec<ToolInfo>>`) until they are listed again. What a call derives from them (a
//! compiled validator, the bytes of their schemas) is then the same for every call that gets
//! the same list, and is found again by the list's address, confirmed by a `Weak` of it: the
//! `Weak` keeps the address from being reused while the entry stands, and a list that is gone
//! (the tools were listed again) no longer matches, so nothing is ever invalidated by hand.

use std::collections::HashMap;
use std::convert::Infallible;
use std::hash::Hash;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use crate::ToolInfo;

/// Entries kept at most; past it those of lists no longer held are forgotten (or, if every
/// list is still held, all of them).
const MAX_ENTRIES: usize = 4096;

type Entry<V> = (Weak<Vec<ToolInfo>>, V);

/// Values `V` per tool list (and per `K` within it: a tool's place, say).
#[derive(Debug)]
pub struct PerList<K, V> {
    kept: Mutex<HashMap<(usize, K), Entry<V>>>,
}

impl<K, V> Default for PerList<K, V> {
    fn default() -> Self {
        Self {
            kept: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Hash + Eq, V: Clone> PerList<K, V> {
    /// The value for `key` within `list`, worked out by `work` the first time (outside the
    /// lock: it may be slow), or its error.
    pub fn get_or_try<E>(
        &self,
        list: &Arc<Vec<ToolInfo>>,
        key: K,
        work: impl FnOnce() -> Result<V, E>,
    ) -> Result<V, E> {
        let key = (Arc::as_ptr(list) as usize, key);
        let known = self
            .kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&key)
            .filter(|(kept, _)| kept.upgrade().is_some_and(|kept| Arc::ptr_eq(&kept, list)))
            .map(|(_, value)| value.clone());
        if let Some(value) = known {
            return Ok(value);
        }
        let value = work()?;
        let mut kept = self.kept.lock().unwrap_or_else(PoisonError::into_inner);
        if kept.len() >= MAX_ENTRIES {
            kept.retain(|_, (list, _)| list.strong_count() > 0);
            if kept.len() >= MAX_ENTRIES {
                kept.clear();
            }
        }
        kept.insert(key, (Arc::downgrade(list), value.clone()));
        Ok(value)
    }

    /// As [`PerList::get_or_try`], for work that cannot fail.
    pub fn get_or(&self, list: &Arc<Vec<ToolInfo>>, key: K, work: impl FnOnce() -> V) -> V {
        match self.get_or_try(list, key, || Ok::<_, Infallible>(work())) {
            Ok(value) => value,
        }
    }

    /// Entries kept now.
    pub fn len(&self) -> usize {
        self.kept
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_is_worked_out_once_per_list_and_again_for_a_new_list() {
        let memo = PerList::<(), usize>::default();
        let list = Arc::new(Vec::new());
        let mut worked = 0;
        for _ in 0..3 {
            let value = memo.get_or_try(&list, (), || {
                worked += 1;
                Ok::<_, Infallible>(7)
            });
            assert_eq!(value, Ok(7));
        }
        assert_eq!(worked, 1);
        drop(list);
        // A list listed again, even at the same address, is worked out again.
        let again = Arc::new(Vec::new());
        assert_eq!(
            memo.get_or_try(&again, (), || Ok::<_, Infallible>(8)),
            Ok(8)
        );
        assert_eq!(memo.get_or_try(&again, (), || Ok::<_, ()>(9)), Ok(8));
        assert_eq!(memo.get_or_try(&again, (), || Err::<usize, _>("no")), Ok(8));
    }
}
