//! How a task ended, as kept in the store: the tool's result, or the error that ended it.

use rmcp::model::CallToolResult;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use switchboard_core::ErrorCode;

/// A task's outcome: `{"result": …}` or `{"error": {"code", "message"}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TaskOutcome {
    /// The tool answered (perhaps with its own error, `isError`).
    Result(CallToolResult),
    /// The call failed, or the task was lost.
    Error { code: ErrorCode, message: String },
}

impl TaskOutcome {
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Self {
        TaskOutcome::Error {
            code,
            message: message.into(),
        }
    }

    /// As kept in the store.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// A kept outcome; `None` for one that cannot be read.
    pub fn from_value(value: &Value) -> Option<Self> {
        serde_json::from_value(value.clone()).ok()
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ContentBlock as Content;
    use serde_json::json;

    use super::*;

    #[test]
    fn an_outcome_is_kept_as_result_or_error() {
        let done = TaskOutcome::Result(CallToolResult::success(vec![Content::text("ok")]));
        let kept = done.to_value();
        assert_eq!(kept["result"]["content"][0]["text"], "ok");
        assert_eq!(TaskOutcome::from_value(&kept), Some(done));
        let failed = TaskOutcome::error(ErrorCode::McpTimeout, "too slow");
        assert_eq!(
            failed.to_value(),
            json!({"error": {"code": "MCP_TIMEOUT", "message": "too slow"}})
        );
    }
}
