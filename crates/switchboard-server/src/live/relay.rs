//! Events and approvals across replicas sharing one Postgres, through `NOTIFY`/`LISTEN`.
//!
//! Each replica sends its own events on one channel and takes the others' into its event log,
//! so a client's stream shows a run whichever replica runs it. A decision stored by replica B
//! reaches B's log as `assistant.toolCall.updated`; replica A, whose run waits for it, sees
//! the event and wakes the run, which reads the decision from the store. On SQLite there are
//! no signals and no relay: one process owns the file.

use std::sync::Arc;

use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use switchboard_agent::{Agent, CallUpdate, EventKind};
use switchboard_core::OwnerId;
use switchboard_store::{Store, StoreError};

use super::log::{EventLog, Logged};

/// The channel every replica listens on.
pub const CHANNEL: &str = "switchboard_events";
/// `NOTIFY` payloads must stay under 8,000 bytes.
const MAX_PAYLOAD: usize = 7_900;

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Wire {
    replica: String,
    owner: String,
    kind: String,
    #[serde(default)]
    conversation_id: Option<String>,
    data: String,
}

/// Starts relaying between `log` and the other replicas, if the store has signals. Returns
/// whether it did.
pub async fn start(
    store: Arc<dyn Store>,
    log: &Arc<EventLog>,
    agent: &Agent,
) -> Result<bool, StoreError> {
    let Some(mut incoming) = store.listen(CHANNEL).await? else {
        return Ok(false);
    };
    let replica = agent.replica().to_owned();
    let (outgoing, mut to_send) = tokio::sync::mpsc::channel::<Arc<Logged>>(4096);
    log.relay_to(outgoing);
    let sender_replica = replica.clone();
    tokio::spawn(async move {
        while let Some(logged) = to_send.recv().await {
            let payload = encode(&sender_replica, &logged);
            if let Err(error) = store.notify(CHANNEL, &payload).await {
                tracing::warn!(%error, "cannot send an event to the other replicas");
            }
        }
    });
    let log = Arc::downgrade(log);
    let agent = agent.clone();
    tokio::spawn(async move {
        while let Some(payload) = incoming.next().await {
            let Some(log) = log.upgrade() else { return };
            receive(&log, &agent, &replica, &payload);
        }
    });
    Ok(true)
}

fn encode(replica: &str, logged: &Logged) -> String {
    let mut wire = Wire {
        replica: replica.to_owned(),
        owner: logged.owner.0.clone(),
        kind: logged.kind.to_owned(),
        conversation_id: logged.conversation_id.clone(),
        data: logged.data.clone(),
    };
    let payload = serde_json::to_string(&wire).unwrap_or_default();
    if payload.len() <= MAX_PAYLOAD {
        return payload;
    }
    // Too big for NOTIFY (a long message): send what identifies it; clients reload it.
    wire.data = Value::Object(summary(&logged.data)).to_string();
    serde_json::to_string(&wire).unwrap_or_default()
}

/// The identifying fields of an event, with `"truncated": true`.
fn summary(data: &str) -> Map<String, Value> {
    let full: Value = serde_json::from_str(data).unwrap_or_default();
    let mut out = Map::new();
    for key in ["type", "conversationId", "messageId", "stop", "code"] {
        if let Some(value) = full.get(key) {
            out.insert(key.to_owned(), value.clone());
        }
    }
    for (key, fields) in [
        ("message", &["id", "role", "conversationId"][..]),
        (
            "toolCall",
            &["id", "status", "approved", "toolName", "serverId"][..],
        ),
    ] {
        if let Some(inner) = full.get(key) {
            let kept: Map<String, Value> = fields
                .iter()
                .filter_map(|f| inner.get(*f).map(|v| ((*f).to_owned(), v.clone())))
                .collect();
            out.insert(key.to_owned(), Value::Object(kept));
        }
    }
    out.insert("truncated".to_owned(), Value::Bool(true));
    out
}

fn receive(log: &EventLog, agent: &Agent, replica: &str, payload: &str) {
    let Ok(wire) = serde_json::from_str::<Wire>(payload) else {
        tracing::warn!("ignoring a malformed event from another replica");
        return;
    };
    if wire.replica == replica {
        return;
    }
    let Some(kind) = known_kind(&wire.kind) else {
        return;
    };
    if kind == EventKind::ToolCallUpdated.as_str()
        && let Some(update) = CallUpdate::parse(&wire.data)
        && update.is_decided()
    {
        agent.wake(&update.message_id);
    }
    log.record_foreign(OwnerId(wire.owner), kind, wire.conversation_id, wire.data);
}

fn known_kind(kind: &str) -> Option<&'static str> {
    if kind == crate::routes::seeds::seed_001::TOOL_MESSAGE_UPDATED {
        return Some(crate::routes::seeds::seed_001::TOOL_MESSAGE_UPDATED);
    }
    EventKind::parse(kind).map(EventKind::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_events_are_summarised_under_the_limit() {
        let long = "x".repeat(20_000);
        let data = serde_json::json!({
            "type": "message.created",
            "conversationId": "c1",
            "message": {"id": "m1", "role": "assistant", "content": long},
        })
        .to_string();
        let logged = Logged {
            id: 1,
            owner: OwnerId("u".into()),
            conversation_id: Some("c1".into()),
            kind: "message.created",
            data,
        };
        let payload = encode("r", &logged);
        assert!(payload.len() <= MAX_PAYLOAD, "{}", payload.len());
        let wire: Wire = serde_json::from_str(&payload).unwrap();
        let data: Value = serde_json::from_str(&wire.data).unwrap();
        assert_eq!(data["message"]["id"], "m1");
        assert_eq!(data["truncated"], true);

        let short = Logged {
            data: r#"{"type":"message.delta","delta":"hi"}"#.into(),
            ..logged
        };
        let wire: Wire = serde_json::from_str(&encode("r", &short)).unwrap();
        assert_eq!(wire.data, short.data);
    }
}
