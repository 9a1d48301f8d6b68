//! Tool lists as the node sends them: their JSON, written once per list, and a generation
//! that moves on whenever a server's list changed.
//!
//! The manager hands out its cached list as one shared `Arc` until the cache is refreshed (the
//! server said its list changed, the connection is new, or the cache expired). The node keeps
//! the last list it sent for each (owner, server) with its JSON: the same `Arc` again costs no
//! serialisation, and a refreshed list whose content differs gets a new generation. Generations
//! start at the node's start time in microseconds, so a restarted node never repeats one a host
//! may have cached.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use switchboard_core::{OwnerId, ServerId, ToolInfo};

pub(crate) struct ToolLists {
    next_generation: AtomicU64,
    sent: Mutex<HashMap<(OwnerId, ServerId), Sent>>,
}

struct Sent {
    tools: Arc<Vec<ToolInfo>>,
    json: Vec<u8>,
    generation: u64,
}

impl ToolLists {
    pub(crate) fn new() -> Self {
        let start = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|since| u64::try_from(since.as_micros()).unwrap_or(u64::MAX / 2))
            .unwrap_or(1);
        Self {
            next_generation: AtomicU64::new(start),
            sent: Mutex::new(HashMap::new()),
        }
    }

    /// The JSON of `tools` and their generation.
    pub(crate) fn encode(
        &self,
        owner: &OwnerId,
        server: &ServerId,
        tools: &Arc<Vec<ToolInfo>>,
    ) -> Result<(Vec<u8>, u64), serde_json::Error> {
        let key = (owner.clone(), server.clone());
        let previous = {
            let sent = self.sent.lock().unwrap_or_else(PoisonError::into_inner);
            match sent.get(&key) {
                Some(last) if Arc::ptr_eq(&last.tools, tools) => {
                    return Ok((last.json.clone(), last.generation));
                }
                Some(last) => Some((Arc::clone(&last.tools), last.generation)),
                None => None,
            }
        };
        let json = serde_json::to_vec(tools.as_ref())?;
        let generation = match previous {
            Some((last, generation)) if *last == **tools => generation,
            _ => self.next_generation.fetch_add(1, Ordering::Relaxed),
        };
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(
                key,
                Sent {
                    tools: Arc::clone(tools),
                    json: json.clone(),
                    generation,
                },
            );
        Ok((json, generation))
    }

    /// Forgets a server's list (its connection was closed).
    pub(crate) fn forget(&self, owner: &OwnerId, server: &ServerId) {
        self.sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(owner.clone(), server.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str) -> ToolInfo {
        serde_json::from_value(serde_json::json!({
            "serverId": "s", "name": name, "inputSchema": {}
        }))
        .expect("tool")
    }

    #[test]
    fn the_generation_moves_only_when_the_list_changes() {
        let lists = ToolLists::new();
        let (owner, server) = (OwnerId("o".into()), ServerId("s".into()));
        let first = Arc::new(vec![tool("a")]);
        let (json, generation) = lists.encode(&owner, &server, &first).expect("encode");
        assert!(String::from_utf8_lossy(&json).contains("\"a\""));
        let same_content = Arc::new(vec![tool("a")]);
        let (_, again) = lists
            .encode(&owner, &server, &same_content)
            .expect("encode");
        assert_eq!(again, generation);
        let changed = Arc::new(vec![tool("a"), tool("b")]);
        let (_, next) = lists.encode(&owner, &server, &changed).expect("encode");
        assert!(next > generation);
    }
}
