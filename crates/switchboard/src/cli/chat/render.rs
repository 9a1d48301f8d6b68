//! What the chat prints on stdout: the answer as it streams, and one line per tool call when
//! it is recorded and one when it finishes.
//!
//! ```text
//! [tool] demo/calculate {"expression":"6*7"}
//! [tool done] demo/calculate: 42
//! 6 times 7 is 42.
//! ```
//!
//! Tool lines always start on a line of their own, arguments are compact JSON, and a result is
//! shown as `switchboard call` shows it, on one line and cut at [`MAX_SUMMARY`] characters.
//! Other statuses are `[tool error]`, `[tool rejected]` and `[tool cancelled]`.

use std::collections::HashMap;
use std::io::Write;

use rmcp::model::CallToolResult;
use serde_json::Value;
use switchboard_core::{ToolCallRecord, ToolCallStatus};

/// The most characters of a tool's result shown.
pub const MAX_SUMMARY: usize = 300;
/// The most characters of a conversation title taken from the first message.
pub const MAX_TITLE: usize = 60;

/// How far a call has been shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shown {
    Recorded,
    Finished,
}

/// Prints a turn to `out` (stdout in the binary).
#[derive(Debug)]
pub struct Printer<W: Write> {
    out: W,
    at_line_start: bool,
    calls: HashMap<String, Shown>,
}

impl<W: Write> Printer<W> {
    pub fn new(out: W) -> Self {
        Self {
            out,
            at_line_start: true,
            calls: HashMap::new(),
        }
    }

    /// More text of the answer, shown at once.
    pub fn text(&mut self, delta: &str) {
        if delta.is_empty() {
            return;
        }
        self.write(delta);
        self.at_line_start = delta.ends_with('\n');
    }

    /// A call as it was just stored: its line when it is new, its result when it finished.
    pub fn call(&mut self, call: &ToolCallRecord) {
        let shown = self.calls.get(&call.id).copied();
        if shown.is_none() {
            self.line(&format!("[tool] {} {}", label(call), arguments(call)));
            self.calls.insert(call.id.clone(), Shown::Recorded);
        }
        if shown == Some(Shown::Finished) || !call.status.is_terminal() {
            return;
        }
        self.calls.insert(call.id.clone(), Shown::Finished);
        let line = match (call.status, call.approved) {
            (ToolCallStatus::Cancelled, Some(false)) => format!("[tool rejected] {}", label(call)),
            (status, _) => {
                let tag = match status {
                    ToolCallStatus::Done => "done",
                    ToolCallStatus::Error => "error",
                    _ => "cancelled",
                };
                match summary(call.response.as_ref()) {
                    text if text.is_empty() => format!("[tool {tag}] {}", label(call)),
                    text => format!("[tool {tag}] {}: {text}", label(call)),
                }
            }
        };
        self.line(&line);
    }

    /// Ends the turn's output with a newline, unless it already ends with one.
    pub fn end_turn(&mut self) {
        if !self.at_line_start {
            self.write("\n");
            self.at_line_start = true;
        }
        self.calls.clear();
    }

    fn line(&mut self, text: &str) {
        if !self.at_line_start {
            self.write("\n");
        }
        self.write(text);
        self.write("\n");
        self.at_line_start = true;
    }

    fn write(&mut self, text: &str) {
        // A closed stdout (`switchboard chat | head -1`) is no reason to stop the run, which
        // is being stored either way.
        let _ = self.out.write_all(text.as_bytes());
        let _ = self.out.flush();
    }
}

/// `server/tool`; the name the model used when the call matched no tool.
pub fn label(call: &ToolCallRecord) -> String {
    if call.server_name.is_empty() {
        call.display_name.clone()
    } else {
        format!("{}/{}", call.server_name, call.tool_name)
    }
}

/// The call's arguments as compact JSON.
pub fn arguments(call: &ToolCallRecord) -> String {
    Value::Object(call.arguments.clone()).to_string()
}

/// A stored response in one short line: the result as `switchboard call` prints it, or
/// `CODE: message` for a call that failed before or instead of reaching its server.
pub fn summary(response: Option<&Value>) -> String {
    let Some(response) = response else {
        return String::new();
    };
    let text = match (response.get("error"), response.get("content")) {
        (Some(error), None) => format!(
            "{}: {}",
            error.get("code").and_then(Value::as_str).unwrap_or("ERROR"),
            error.get("message").and_then(Value::as_str).unwrap_or("")
        ),
        _ => match serde_json::from_value::<CallToolResult>(response.clone()) {
            Ok(result) => crate::cli::call::render(&result),
            Err(_) => response.to_string(),
        },
    };
    one_line(&text, MAX_SUMMARY)
}

/// A conversation title from its first message: the first line, cut at [`MAX_TITLE`].
pub fn title(message: &str) -> String {
    let first = message.trim().lines().next().unwrap_or_default();
    one_line(first, MAX_TITLE)
}

/// `text` with its whitespace runs as single spaces, cut at `max` characters with `…`.
fn one_line(text: &str, max: usize) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if joined.chars().count() <= max {
        return joined;
    }
    let mut cut: String = joined.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use switchboard_core::ServerId;

    use super::*;

    fn call(status: ToolCallStatus, response: Option<Value>) -> ToolCallRecord {
        ToolCallRecord {
            id: "call_1".into(),
            server_id: ServerId("demo".into()),
            server_name: "demo".into(),
            tool_name: "calculate".into(),
            display_name: "mcp__demo__calculate".into(),
            arguments: json!({"expression": "6*7"}).as_object().cloned().unwrap(),
            status,
            response,
            is_error: None,
            round: 0,
            approved: None,
            question: None,
            pending_input: None,
            task: None,
            resolved_arguments: None,
            mapped_parameters: Default::default(),
        }
    }

    fn printed(steps: impl FnOnce(&mut Printer<&mut Vec<u8>>)) -> String {
        let mut out = Vec::new();
        steps(&mut Printer::new(&mut out));
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn a_call_and_its_result_each_get_a_line() {
        let result = json!({
            "content": [{"type": "text", "text": "42"}],
            "structuredContent": {"result": 42},
            "isError": false,
        });
        let text = printed(|p| {
            p.text("Let me ");
            p.text("compute.");
            p.call(&call(ToolCallStatus::Pending, None));
            p.call(&call(ToolCallStatus::Invoking, None));
            p.call(&call(ToolCallStatus::Done, Some(result.clone())));
            p.call(&call(ToolCallStatus::Done, Some(result)));
            p.text("It is 42.");
            p.end_turn();
        });
        assert_eq!(
            text,
            "Let me compute.\n\
             [tool] demo/calculate {\"expression\":\"6*7\"}\n\
             [tool done] demo/calculate: 42\n\
             It is 42.\n"
        );
    }

    #[test]
    fn errors_rejections_and_unknown_tools() {
        let mut rejected = call(ToolCallStatus::Cancelled, None);
        rejected.approved = Some(false);
        rejected.response = Some(json!({"error": {"code": "REJECTED", "message": "no"}}));
        let mut unknown = call(
            ToolCallStatus::Error,
            Some(json!({"error": {"code": "MCP_TOOL_NOT_FOUND", "message": "no such tool"}})),
        );
        unknown.id = "call_2".into();
        unknown.server_name = String::new();
        unknown.display_name = "mcp__nope__x".into();
        let text = printed(|p| {
            p.call(&rejected);
            p.call(&unknown);
            p.end_turn();
        });
        assert_eq!(
            text,
            "[tool] demo/calculate {\"expression\":\"6*7\"}\n\
             [tool rejected] demo/calculate\n\
             [tool] mcp__nope__x {\"expression\":\"6*7\"}\n\
             [tool error] mcp__nope__x: MCP_TOOL_NOT_FOUND: no such tool\n"
        );
    }

    #[test]
    fn summaries_are_one_short_line() {
        let long = "word\n".repeat(200);
        let result = json!({"content": [{"type": "text", "text": long}]});
        let text = summary(Some(&result));
        assert_eq!(text.chars().count(), MAX_SUMMARY);
        assert!(
            text.starts_with("word word") && text.ends_with('…'),
            "{text}"
        );
        assert_eq!(summary(None), "");
        let structured = json!({"content": [], "structuredContent": {"a": 1}});
        assert_eq!(summary(Some(&structured)), "{ \"a\": 1 }");
    }

    #[test]
    fn titles_come_from_the_first_line() {
        assert_eq!(title("  What is 6*7?\nthanks"), "What is 6*7?");
        let long = "x".repeat(100);
        assert_eq!(title(&long).chars().count(), MAX_TITLE);
    }
}
