//! `switchboard call SERVER TOOL --args JSON`: one tool call through the tool-call service
//! (the tool must be offered, the arguments must fit its schema; the call is audited as the
//! command line's), printed.
//!
//! Text content is printed as it is, other content as a short description, and structured
//! content as JSON when there is nothing else. With `--json` the MCP result is printed
//! unchanged. A result the tool marked `isError` is printed too, and the exit status is then
//! non-zero; a call that failed outright prints its error code instead (see `crate::output`).
//! Progress the server reports is shown on stderr.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use rmcp::model::{CallToolResult, ContentBlock, ResourceContents};
use serde_json::{Map, Value};
use switchboard_agent::{CallerKind, ToolCallRequest};
use switchboard_mcp::Progress;
use tokio::sync::mpsc;

use super::{CliError, Context};
use crate::output;

#[derive(Debug, Args)]
pub struct CallArgs {
    /// The server's name (or id).
    pub server: String,
    /// The tool's name, as the server calls it.
    pub tool: String,
    /// The tool's arguments as a JSON object.
    #[arg(long, value_name = "JSON")]
    pub args: Option<String>,
}

pub async fn run(context: &Context, args: CallArgs) -> anyhow::Result<ExitCode> {
    let arguments = parse_arguments(args.args.as_deref())?.unwrap_or_default();
    let servers = context.servers().await?;
    let spec = servers.connection_spec(&args.server).await?;
    let owner = servers.owner().clone();
    let (progress_tx, mut progress_rx) = mpsc::unbounded_channel();
    let mut request =
        ToolCallRequest::new(owner, CallerKind::Cli, Arc::new(spec), args.tool, arguments);
    if !context.json {
        request.progress = Some(progress_tx);
    }
    // Through the tool-call service, as every other way in: the tool must be offered, the
    // arguments fit its schema, the call is retried only when safe, and audited.
    // The audit record is written out before the pool closes (`with_pool`).
    let call = servers.with_pool(async move |app| Ok(app.tool_calls.call(request).await?));
    tokio::pin!(call);
    // Progress is printed from this task while the call runs, and whatever is still queued
    // when it returns is printed after; nothing waits on the sender being dropped.
    let outcome = loop {
        tokio::select! {
            Some(report) = progress_rx.recv() => print_progress(report),
            outcome = &mut call => break outcome,
        }
    };
    while let Ok(report) = progress_rx.try_recv() {
        print_progress(report);
    }
    let result = outcome?.result;

    if context.json {
        output::print_json(&result);
    } else {
        out!("{}", render(&result));
    }
    if result.is_error == Some(true) {
        if !context.json {
            errln!(
                "error {}: {}",
                switchboard_core::ErrorCode::McpExecutionError,
                CliError::ToolFailed
            );
        }
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn parse_arguments(text: Option<&str>) -> Result<Option<Map<String, Value>>, CliError> {
    let Some(text) = text else {
        return Ok(None);
    };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        Ok(other) => Err(CliError::BadArguments(format!("got {}", json_kind(&other)))),
        Err(error) => Err(CliError::BadArguments(error.to_string())),
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn print_progress(report: Progress) {
    let amount = match report.total {
        Some(total) => format!("{}/{}", report.progress, total),
        None => report.progress.to_string(),
    };
    match report.message {
        Some(message) => errln!("progress {amount}: {message}"),
        None => errln!("progress {amount}"),
    }
}

/// The result for a person: text as is, everything else described in one line.
pub(super) fn render(result: &CallToolResult) -> String {
    let mut out = String::new();
    for block in &result.content {
        let line = match block {
            ContentBlock::Text(text) => text.text.clone(),
            ContentBlock::Image(image) => {
                format!(
                    "[image {}, {} bytes base64]",
                    image.mime_type,
                    image.data.len()
                )
            }
            ContentBlock::Audio(audio) => {
                format!(
                    "[audio {}, {} bytes base64]",
                    audio.mime_type,
                    audio.data.len()
                )
            }
            ContentBlock::Resource(embedded) => match &embedded.resource {
                ResourceContents::TextResourceContents { uri, text, .. } => {
                    format!("[resource {uri}]\n{text}")
                }
                ResourceContents::BlobResourceContents {
                    uri,
                    mime_type,
                    blob,
                    ..
                } => format!(
                    "[resource {uri}, {}, {} bytes base64]",
                    mime_type.as_deref().unwrap_or("binary"),
                    blob.len()
                ),
                _ => "[resource]".to_owned(),
            },
            ContentBlock::ResourceLink(link) => format!("[link {} {}]", link.name, link.uri),
            _ => "[content of a kind this version cannot show; use --json]".to_owned(),
        };
        out.push_str(&line);
        if !line.ends_with('\n') {
            out.push('\n');
        }
    }
    if result.content.is_empty()
        && let Some(structured) = &result.structured_content
    {
        out.push_str(&serde_json::to_string_pretty(structured).unwrap_or_default());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn arguments_must_be_an_object() {
        assert_eq!(parse_arguments(None).unwrap(), None);
        let map = parse_arguments(Some(r#"{"a": 1}"#)).unwrap().unwrap();
        assert_eq!(map.get("a"), Some(&json!(1)));
        let error = parse_arguments(Some("[1]")).unwrap_err();
        assert!(error.to_string().contains("an array"), "{error}");
        assert!(parse_arguments(Some("{oops")).is_err());
    }

    #[test]
    fn results_render_for_people() {
        let mut result = CallToolResult::success(vec![
            ContentBlock::text("hello"),
            ContentBlock::image("aGk=", "image/png"),
            ContentBlock::embedded_text("file:///a.txt", "contents"),
        ]);
        assert_eq!(
            render(&result),
            "hello\n[image image/png, 4 bytes base64]\n[resource file:///a.txt]\ncontents\n"
        );
        result.content.clear();
        result.structured_content = Some(json!({"a": 1}));
        assert_eq!(render(&result), "{\n  \"a\": 1\n}\n");
    }
}
