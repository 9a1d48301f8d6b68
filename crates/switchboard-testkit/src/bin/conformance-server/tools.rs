//! The tools that answer on their own (content of each kind, an error, logging, progress)
//! and the diagnostic hooks of the stateless scenario.

// Logging is deprecated by SEP-2577 but is what `tools-call-with-logging` tests.
#![allow(deprecated)]

use std::sync::atomic::Ordering;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::json;

use crate::catalog::{PNG, WAV, complete};
use crate::{Change, ConformanceServer};

/// The pause between two log messages or progress steps: the scenarios ask for ~50 ms so a
/// client sees the notifications arrive while the call is still running.
const STEP: Duration = Duration::from_millis(50);

pub async fn call(
    server: &ConformanceServer,
    request: &CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let content = match request.name.as_ref() {
        "test_simple_text" => {
            json!([{"type": "text", "text": "This is a simple text response for testing."}])
        }
        "test_image_content" => json!([{"type": "image", "data": PNG, "mimeType": "image/png"}]),
        "test_audio_content" => json!([{"type": "audio", "data": WAV, "mimeType": "audio/wav"}]),
        "test_embedded_resource" => json!([{
            "type": "resource",
            "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content.",
            },
        }]),
        "test_multiple_content_types" => json!([
            {"type": "text", "text": "Multiple content types test:"},
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "resource", "resource": {
                "uri": "test://mixed-content-resource",
                "mimeType": "application/json",
                "text": json!({"test": "data", "value": 123}).to_string(),
            }},
        ]),
        "test_error_handling" => {
            let result: CallToolResult = complete(json!({
                "isError": true,
                "content": [{
                    "type": "text",
                    "text": "This tool intentionally returns an error for testing",
                }],
            }))?;
            return Ok(result.into());
        }
        "test_tool_with_logging" => {
            for (i, message) in [
                "Tool execution started",
                "Tool processing data",
                "Tool execution completed",
            ]
            .into_iter()
            .enumerate()
            {
                if i > 0 {
                    tokio::time::sleep(STEP).await;
                }
                log(server, context, message).await;
            }
            json!([{"type": "text", "text": "Tool with logging executed successfully"}])
        }
        "test_logging_tool" => {
            // Stateless revision: a message only when the request set `_meta.../logLevel`.
            if context.meta.log_level().is_some() {
                log(server, context, "test_logging_tool ran").await;
            }
            json!([{"type": "text", "text": "Logging tool executed"}])
        }
        "test_tool_with_progress" => {
            let token = context.meta.get_progress_token();
            for (i, progress) in [0.0, 50.0, 100.0].into_iter().enumerate() {
                if i > 0 {
                    tokio::time::sleep(STEP).await;
                }
                if let Some(token) = &token {
                    let params =
                        ProgressNotificationParam::new(token.clone(), progress).with_total(100.0);
                    if let Err(error) = context.peer.notify_progress(params).await {
                        tracing::debug!(%error, "progress notification not sent");
                    }
                }
            }
            json!([{"type": "text", "text": "Tool with progress executed successfully"}])
        }
        "test_missing_capability" => {
            let sampling = context
                .client_capabilities()
                .is_some_and(|caps| caps.sampling.is_some());
            if !sampling {
                return Err(ErrorData::new(
                    rmcp::model::ErrorCode(-32021),
                    "this tool needs the sampling capability",
                    Some(json!({"requiredCapabilities": {"sampling": {}}})),
                ));
            }
            json!([{"type": "text", "text": "The client declared sampling"}])
        }
        "test_trigger_tool_change" => {
            server.extra_tool.store(true, Ordering::SeqCst);
            // Nobody listening is not an error.
            let _ = server.changes.send(Change::Tools);
            if let Err(error) = context.peer.notify_tool_list_changed().await {
                tracing::debug!(%error, "tool list change not sent");
            }
            json!([{"type": "text", "text": "The tool list changed"}])
        }
        "test_trigger_prompt_change" => {
            let _ = server.changes.send(Change::Prompts);
            if let Err(error) = context.peer.notify_prompt_list_changed().await {
                tracing::debug!(%error, "prompt list change not sent");
            }
            json!([{"type": "text", "text": "The prompt list changed"}])
        }
        "test_added_tool" => json!([{"type": "text", "text": "Added tool"}]),
        "json_schema_2020_12_tool" => json!([{"type": "text", "text": "Schema tool called"}]),
        other => {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {other}"),
                None,
            ));
        }
    };
    let result: CallToolResult = complete(json!({"content": content}))?;
    Ok(result.into())
}

/// Sends `message` at info level unless the client asked for a higher threshold.
async fn log(server: &ConformanceServer, context: &RequestContext<RoleServer>, message: &str) {
    let threshold = context
        .meta
        .log_level()
        .or_else(|| server.log_level.lock().ok().and_then(|level| *level));
    if threshold.is_some_and(|threshold| rank(threshold) > rank(LoggingLevel::Info)) {
        return;
    }
    let params = LoggingMessageNotificationParam::new(LoggingLevel::Info, json!(message))
        .with_logger("conformance-server");
    if let Err(error) = context.peer.notify_logging_message(params).await {
        tracing::debug!(%error, "log message not sent");
    }
}

fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}
