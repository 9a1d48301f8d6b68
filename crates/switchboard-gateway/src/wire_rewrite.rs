//! What the gateway's transports rewrite for the 2025-11-25 tasks, which rmcp's types do not
//! carry: rmcp 3.9 models only the 2026-07-28 tasks extension, drops a call's `task` and the
//! `tasks` capabilities when it decodes a message, has no tool `execution`, and refuses
//! `tasks/get` and `tasks/cancel` to a client that did not declare the extension.
//!
//! - A session client's (one whose request does not carry the 2026-07-28 `_meta`)
//!   `tools/call` with `task`, `tools/list`, `tasks/get` and `tasks/cancel` are renamed
//!   ([`renamed`]): rmcp hands a request of a method it does not know to the gateway whole
//!   ([`crate::renamed`]), which answers as JSON rmcp passes on as it is. `tasks/result` and
//!   `tasks/list` need no renaming: rmcp does not know them either.
//! - A client's `initialize` `capabilities.tasks` is copied to
//!   `capabilities.experimental["switchboard/tasks"]`, where the gateway sees that the client
//!   declared the 2025-11-25 tasks.
//! - The gateway's `initialize` result's `capabilities.experimental["switchboard/tasks"]`
//!   moves to `capabilities.tasks`, where the client looks for it.
//!
//! Messages that cannot need a rewrite are found by a byte search and not parsed twice.
//! Streamable HTTP applies [`client_message`] to each POST body and [`server_body`] to the
//! answer of an `initialize`; stdio applies [`client_message`] and [`server_message`] to each
//! line.

use serde_json::{Map, Value};

use crate::tasks::legacy::{CLIENT_CAPABILITY, SERVER_CAPABILITY};

/// The names the renamed requests reach the gateway under.
pub(crate) mod renamed {
    /// `tools/call` with `task`.
    pub(crate) const CALL_AS_TASK: &str = "switchboard/tools/call-as-task";
    pub(crate) const LIST_TOOLS: &str = "switchboard/tools/list";
    pub(crate) const GET_TASK: &str = "switchboard/tasks/get";
    pub(crate) const CANCEL_TASK: &str = "switchboard/tasks/cancel";
}

/// Words one of which a client's message that needs a rewrite contains.
const CLIENT_WORDS: [&[u8]; 3] = [b"\"task", b"tools/list", b"tasks/"];
/// The `_meta` key every request of the stateless 2026-07-28 revision carries.
const STATELESS_META: &str = "io.modelcontextprotocol/protocolVersion";

/// `raw`, one message from a client, rewritten when it needs to be; `None` leaves it as it
/// is.
pub fn client_message(raw: &[u8]) -> Option<Vec<u8>> {
    if !CLIENT_WORDS.iter().any(|word| contains(raw, word)) {
        return None;
    }
    let mut message: Value = serde_json::from_slice(raw).ok()?;
    rewrite_client(&mut message).then(|| serde_json::to_vec(&message).ok())?
}

/// Whether `raw`, one message from a client, is an `initialize` (whose answer goes through
/// [`server_body`]).
pub fn is_initialize(raw: &[u8]) -> bool {
    contains(raw, b"\"initialize\"")
        && serde_json::from_slice::<Value>(raw)
            .ok()
            .is_some_and(|message| {
                message.get("method").and_then(Value::as_str) == Some("initialize")
            })
}

/// `raw`, one message from the gateway, rewritten when it needs to be; `None` leaves it as
/// it is.
pub fn server_message(raw: &[u8]) -> Option<Vec<u8>> {
    if !contains(raw, SERVER_CAPABILITY.as_bytes()) {
        return None;
    }
    let mut message: Value = serde_json::from_slice(raw).ok()?;
    rewrite_server(&mut message).then(|| serde_json::to_vec(&message).ok())?
}

/// A Streamable HTTP answer's body (one JSON message, or server-sent events each carrying
/// one on a `data:` line), with each message [`server_message`] rewritten; `None` leaves it
/// as it is.
pub fn server_body(body: &[u8]) -> Option<Vec<u8>> {
    if !contains(body, SERVER_CAPABILITY.as_bytes()) {
        return None;
    }
    if body.first() == Some(&b'{') {
        return server_message(body);
    }
    let text = std::str::from_utf8(body).ok()?;
    let mut changed = false;
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split_inclusive('\n') {
        let (content, ending) = match line.strip_suffix('\n') {
            Some(content) => (content, "\n"),
            None => (line, ""),
        };
        let rewritten = content
            .strip_prefix("data:")
            .and_then(|data| server_message(data.trim_start().as_bytes()))
            .and_then(|data| String::from_utf8(data).ok());
        match rewritten {
            Some(data) => {
                changed = true;
                out.push_str("data: ");
                out.push_str(&data);
                out.push_str(ending);
            }
            None => out.push_str(line),
        }
    }
    changed.then(|| out.into_bytes())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

fn rewrite_client(message: &mut Value) -> bool {
    let Some(object) = message.as_object_mut() else {
        return false;
    };
    let method = object.get("method").and_then(Value::as_str).unwrap_or("");
    let stateless = object
        .get("params")
        .and_then(|params| params.get("_meta"))
        .is_some_and(|meta| meta.get(STATELESS_META).is_some());
    let has_task = object
        .get("params")
        .is_some_and(|params| params.get("task").is_some());
    let new_name = match method {
        _ if stateless => None,
        "tools/call" if has_task => Some(renamed::CALL_AS_TASK),
        "tools/list" => Some(renamed::LIST_TOOLS),
        "tasks/get" => Some(renamed::GET_TASK),
        "tasks/cancel" => Some(renamed::CANCEL_TASK),
        "initialize" => return keep_client_capability(object),
        _ => None,
    };
    match new_name {
        Some(name) => {
            object.insert("method".to_owned(), Value::String(name.to_owned()));
            true
        }
        None => false,
    }
}

/// Copies an `initialize`'s `capabilities.tasks` to its `capabilities.experimental`.
fn keep_client_capability(initialize: &mut Map<String, Value>) -> bool {
    let Some(capabilities) = initialize
        .get_mut("params")
        .and_then(|params| params.get_mut("capabilities"))
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let Some(tasks) = capabilities.get("tasks").filter(|t| t.is_object()).cloned() else {
        return false;
    };
    let experimental = capabilities
        .entry("experimental")
        .or_insert_with(|| Value::Object(Map::new()));
    match experimental.as_object_mut() {
        Some(experimental) => {
            experimental.insert(CLIENT_CAPABILITY.to_owned(), tasks);
            true
        }
        None => false,
    }
}

fn rewrite_server(message: &mut Value) -> bool {
    let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) else {
        return false;
    };
    if !result.contains_key("protocolVersion") {
        return false;
    }
    let Some(capabilities) = result
        .get_mut("capabilities")
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let Some(experimental) = capabilities
        .get_mut("experimental")
        .and_then(Value::as_object_mut)
    else {
        return false;
    };
    let Some(tasks) = experimental.remove(SERVER_CAPABILITY) else {
        return false;
    };
    if experimental.is_empty() {
        capabilities.remove("experimental");
    }
    capabilities.insert("tasks".to_owned(), tasks);
    true
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn client(message: Value) -> Option<Value> {
        client_message(&serde_json::to_vec(&message).unwrap())
            .map(|raw| serde_json::from_slice(&raw).unwrap())
    }

    #[test]
    fn a_session_clients_task_requests_are_renamed() {
        let request = |method: &str, params: Value| json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        let call = client(request(
            "tools/call",
            json!({"name": "slow", "arguments": {"task": 1}, "task": {"ttl": 60000}}),
        ))
        .unwrap();
        assert_eq!(call["method"], renamed::CALL_AS_TASK);
        assert_eq!(call["params"]["task"], json!({"ttl": 60000}));
        // An argument named `task` is the tool's business.
        let plain = request("tools/call", json!({"name": "t", "arguments": {"task": 1}}));
        assert!(client(plain).is_none());
        for (method, to) in [
            ("tools/list", renamed::LIST_TOOLS),
            ("tasks/get", renamed::GET_TASK),
            ("tasks/cancel", renamed::CANCEL_TASK),
        ] {
            let renamed = client(request(method, json!({"taskId": "t"}))).unwrap();
            assert_eq!(renamed["method"], to);
        }
        assert!(client(request("tasks/result", json!({"taskId": "t"}))).is_none());
        // The stateless revision's requests are the extension's, and rmcp's to decode.
        let stateless = json!({"taskId": "t", "_meta": {STATELESS_META: "2026-07-28"}});
        assert!(client(request("tasks/get", stateless)).is_none());
        assert!(client_message(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_none());
    }

    #[test]
    fn a_clients_tasks_capability_is_kept_in_experimental() {
        let tasks = json!({"list": {}, "cancel": {}});
        let moved = client(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {"tasks": tasks},
                       "clientInfo": {"name": "c", "version": "1"}}}))
        .unwrap();
        assert_eq!(
            moved["params"]["capabilities"]["experimental"][CLIENT_CAPABILITY],
            tasks
        );
    }

    #[test]
    fn the_gateways_tasks_capability_leaves_as_tasks_in_json_or_events() {
        let tasks = json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
        let message = json!({"jsonrpc": "2.0", "id": 0, "result": {
            "protocolVersion": "2025-11-25", "serverInfo": {"name": "s", "version": "1"},
            "capabilities": {"tools": {}, "experimental": {SERVER_CAPABILITY: tasks}}}});
        let raw = serde_json::to_vec(&message).unwrap();
        let json: Value = serde_json::from_slice(&server_body(&raw).unwrap()).unwrap();
        assert_eq!(
            json["result"]["capabilities"],
            json!({"tools": {}, "tasks": tasks})
        );

        let events = format!(
            "data: \nid: 0\nretry: 3000\n\ndata: {}\nid: 1\n\n",
            String::from_utf8(raw).unwrap()
        );
        let rewritten = String::from_utf8(server_body(events.as_bytes()).unwrap()).unwrap();
        assert!(rewritten.starts_with("data: \nid: 0\nretry: 3000\n\ndata: {"));
        assert!(rewritten.ends_with("}\nid: 1\n\n"));
        assert!(rewritten.contains(r#""tasks":{"#) && !rewritten.contains(SERVER_CAPABILITY));
        assert!(server_body(b"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n").is_none());
    }
}
