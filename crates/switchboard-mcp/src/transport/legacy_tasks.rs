//! The 2025-11-25 (experimental) tasks dialect, made readable through rmcp's types.
//!
//! rmcp 3.9 models only the 2026-07-28 tasks extension. Of the 2025-11-25 dialect its types
//! drop what we need: a tool's `execution.taskSupport` and the server's `capabilities.tasks`
//! are unknown fields, and a legacy `Task` (`ttl`, `pollInterval`) decodes as the extension's
//! `GetTaskResult`, which loses them. So before rmcp decodes a server's message, its result is
//! rewritten here into places rmcp keeps:
//!
//! - `capabilities.tasks` of an `initialize` result is copied to
//!   `capabilities.experimental["switchboard/tasks"]` ([`CAPABILITY`]);
//! - each listed tool's `execution` moves to its `_meta["switchboard/execution"]`
//!   ([`EXECUTION`]), taken out again when the tool is read (`crate::manager::tools`), so it
//!   never reaches anyone else;
//! - a result that is a legacy `Task` (`tasks/get`, `tasks/cancel`: `taskId`, `status` and
//!   `ttl`, no `ttlMs`) is wrapped as `{"switchboard/task": …}` ([`TASK`]), which no typed
//!   result takes, so it arrives whole as a `CustomResult`.
//!
//! The extension's shapes are left alone: its tasks carry `ttlMs`, and its tools no
//! `execution`. Messages that cannot need a rewrite are found by a byte search and not
//! parsed twice.

use serde_json::{Map, Value};

/// Where a server's `capabilities.tasks` is kept in `capabilities.experimental`.
pub(crate) const CAPABILITY: &str = "switchboard/tasks";
/// Where a tool's `execution` is kept in its `_meta`.
pub(crate) const EXECUTION: &str = "switchboard/execution";
/// The key a legacy `Task` result is wrapped under.
pub(crate) const TASK: &str = "switchboard/task";

/// Whether `raw` (one message as the server wrote it) may need [`rewrite`].
pub(crate) fn may_need(raw: &[u8]) -> bool {
    const WORDS: [&[u8]; 3] = [b"\"tasks\"", b"\"execution\"", b"\"taskId\""];
    WORDS
        .iter()
        .any(|word| raw.windows(word.len()).any(|window| window == *word))
}

/// `raw` rewritten, when it is a message that needs it; `None` leaves it as it is.
pub(crate) fn rewritten(raw: &[u8]) -> Option<Vec<u8>> {
    if !may_need(raw) {
        return None;
    }
    let mut message: Value = serde_json::from_slice(raw).ok()?;
    if !rewrite(&mut message) {
        return None;
    }
    serde_json::to_vec(&message).ok()
}

/// `stream` (Streamable HTTP's events) with each message event's data [`rewritten`].
pub(crate) fn events(
    stream: futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>,
) -> futures::stream::BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>> {
    use futures::StreamExt;
    stream
        .map(|event| {
            event.map(|mut event| {
                if matches!(event.event.as_deref(), None | Some("" | "message"))
                    && let Some(data) = event.data.as_deref()
                    && let Some(rewritten) = rewritten(data.as_bytes())
                    && let Ok(text) = String::from_utf8(rewritten)
                {
                    event.data = Some(text);
                }
                event
            })
        })
        .boxed()
}

/// Rewrites the result of `message` (a server's JSON-RPC message) as the module says;
/// whether anything changed.
pub(crate) fn rewrite(message: &mut Value) -> bool {
    let Some(result) = message.get_mut("result").and_then(Value::as_object_mut) else {
        return false;
    };
    if is_legacy_task(result) {
        let task = std::mem::take(result);
        result.insert(TASK.to_owned(), Value::Object(task));
        return true;
    }
    let mut changed = false;
    if result.contains_key("protocolVersion")
        && let Some(capabilities) = result
            .get_mut("capabilities")
            .and_then(Value::as_object_mut)
        && let Some(tasks) = capabilities.get("tasks").cloned()
    {
        let experimental = capabilities
            .entry("experimental")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(experimental) = experimental.as_object_mut() {
            experimental.insert(CAPABILITY.to_owned(), tasks);
            changed = true;
        }
    }
    if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
        for tool in tools.iter_mut().filter_map(Value::as_object_mut) {
            let Some(execution) = tool.remove("execution") else {
                continue;
            };
            let meta = tool
                .entry("_meta")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(meta) = meta.as_object_mut() {
                meta.insert(EXECUTION.to_owned(), execution);
            }
            changed = true;
        }
    }
    changed
}

/// A legacy `Result & Task`: the extension's tasks have `ttlMs` where the legacy ones have
/// the (required, possibly null) `ttl`.
fn is_legacy_task(result: &Map<String, Value>) -> bool {
    result.get("taskId").is_some_and(Value::is_string)
        && result.get("status").is_some_and(Value::is_string)
        && result.contains_key("ttl")
        && !result.contains_key("ttlMs")
}

#[cfg(test)]
mod tests {
    use rmcp::model::{ServerJsonRpcMessage, ServerResult};
    use serde_json::json;

    use super::*;

    fn decoded(message: Value) -> ServerResult {
        let raw = serde_json::to_vec(&message).unwrap();
        let raw = rewritten(&raw).unwrap_or(raw);
        match serde_json::from_slice::<ServerJsonRpcMessage>(&raw).unwrap() {
            ServerJsonRpcMessage::Response(response) => response.result,
            other => panic!("not a response: {other:?}"),
        }
    }

    fn response(result: Value) -> Value {
        json!({"jsonrpc": "2.0", "id": 1, "result": result})
    }

    #[test]
    fn an_initialize_result_keeps_the_tasks_capability() {
        let tasks = json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}});
        let result = decoded(response(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}, "tasks": tasks},
            "serverInfo": {"name": "s", "version": "1"},
        })));
        let ServerResult::InitializeResult(init) = result else {
            panic!("{result:?}")
        };
        let experimental = init.capabilities.experimental.expect("experimental");
        assert_eq!(Value::Object(experimental[CAPABILITY].clone()), tasks);
    }

    #[test]
    fn a_tools_execution_moves_to_its_meta() {
        let result = decoded(response(json!({"tools": [
            {"name": "slow", "inputSchema": {"type": "object"},
             "execution": {"taskSupport": "required"}, "_meta": {"ui": 1}},
            {"name": "plain", "inputSchema": {"type": "object"}},
        ]})));
        let ServerResult::ListToolsResult(list) = result else {
            panic!("{result:?}")
        };
        let meta = list.tools[0].meta.as_ref().expect("meta");
        assert_eq!(meta.0[EXECUTION], json!({"taskSupport": "required"}));
        assert_eq!(meta.0["ui"], json!(1));
        assert!(list.tools[1].meta.is_none());
    }

    /// The examples of the 2025-11-25 tasks page: a created task, a task polled, a task
    /// cancelled, and the final result.
    #[test]
    fn legacy_task_results_arrive_whole() {
        let created = decoded(response(json!({"task": {
            "taskId": "786512e2-9e0d-44bd-8f29-789f320fe840",
            "status": "working", "statusMessage": "The operation is now in progress.",
            "createdAt": "2025-11-25T10:30:00Z", "lastUpdatedAt": "2025-11-25T10:40:00Z",
            "ttl": 60000, "pollInterval": 5000,
        }})));
        let ServerResult::CustomResult(created) = created else {
            panic!("{created:?}")
        };
        assert_eq!(created.0["task"]["pollInterval"], json!(5000));

        for status in ["working", "completed", "cancelled"] {
            let polled = decoded(response(json!({
                "taskId": "786512e2", "status": status, "createdAt": "2025-11-25T10:30:00Z",
                "lastUpdatedAt": "2025-11-25T10:40:00Z", "ttl": null, "pollInterval": 5000,
            })));
            let ServerResult::CustomResult(polled) = polled else {
                panic!("{polled:?}")
            };
            assert_eq!(polled.0[TASK]["pollInterval"], json!(5000), "{status}");
            assert_eq!(polled.0[TASK]["status"], json!(status));
        }

        let result = decoded(response(json!({
            "content": [{"type": "text", "text": "Current weather in New York"}],
            "isError": false,
            "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "786512e2"}},
        })));
        assert!(
            matches!(result, ServerResult::CallToolResult(_)),
            "{result:?}"
        );
    }

    #[test]
    fn the_extensions_shapes_are_left_alone() {
        let raw = serde_json::to_vec(&response(json!({
            "resultType": "complete", "taskId": "t", "status": "working",
            "createdAt": "2026-01-01T00:00:00Z", "lastUpdatedAt": "2026-01-01T00:00:00Z",
            "ttlMs": null,
        })))
        .unwrap();
        assert!(rewritten(&raw).is_none());
        let plain = br#"{"jsonrpc":"2.0","id":1,"result":{"content":[]}}"#;
        assert!(!may_need(plain));
    }
}
