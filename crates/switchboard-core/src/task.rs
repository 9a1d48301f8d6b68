//! Long-running tools (MCP tasks): which tools a server runs as tasks, and whether a server's
//! tools are started as tasks at all.
//!
//! Two dialects of MCP say it differently: the 2025-11-25 revision marks each tool
//! (`execution.taskSupport`), and the 2026-07-28 extension `io.modelcontextprotocol/tasks`
//! leaves it to the server per call, so every tool of a server declaring the extension may
//! become a task ([`TaskSupport::Optional`]). [`ToolTasks`] is what both say, in one shape.
//!
//! ```
//! use switchboard_core::task::{TaskSupport, TasksPolicy, ToolTasks};
//!
//! let required = ToolTasks { support: TaskSupport::Required };
//! assert!(TasksPolicy::Auto.starts_task(Some(&required), false));
//! assert!(!TasksPolicy::Never.starts_task(Some(&required), true));
//! let optional = ToolTasks { support: TaskSupport::Optional };
//! assert!(!TasksPolicy::Auto.starts_task(Some(&optional), false));
//! assert!(TasksPolicy::Auto.starts_task(Some(&optional), true));
//! assert!(TasksPolicy::Always.starts_task(Some(&optional), false));
//! ```

use serde::{Deserialize, Serialize};

/// How a server runs one of its tools as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ToolTasks {
    pub support: TaskSupport,
}

/// Whether a tool may, must or must not run as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum TaskSupport {
    /// Never a task: the server runs tasks, but not this tool.
    Forbidden,
    /// A plain call or a task, as the caller asks (or, on the extension, as the server
    /// decides once the caller said it takes tasks).
    Optional,
    /// Only as a task: a plain call is refused by the server.
    Required,
}

/// Whether a server's tools are started as tasks (a server's `tasks` setting; absent:
/// [`TasksPolicy::Auto`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub enum TasksPolicy {
    /// Tools that run only as tasks are; a tool that may is started as a task when the
    /// caller asked for one.
    #[default]
    Auto,
    /// Every tool that may run as a task is started as one.
    Always,
    /// No tool is started as a task; one that runs only as a task cannot be called.
    Never,
}

impl TasksPolicy {
    /// The setting as stored and written (`auto`, `always`, `never`).
    pub fn as_str(self) -> &'static str {
        match self {
            TasksPolicy::Auto => "auto",
            TasksPolicy::Always => "always",
            TasksPolicy::Never => "never",
        }
    }

    /// The setting of its written form; `None` for any other text.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "auto" => Some(TasksPolicy::Auto),
            "always" => Some(TasksPolicy::Always),
            "never" => Some(TasksPolicy::Never),
            _ => None,
        }
    }

    /// Whether a call of a tool with `tasks` (`None`: its server runs no tasks) is started
    /// as a task, the caller having asked for one (`asked`) or not.
    pub fn starts_task(self, tasks: Option<&ToolTasks>, asked: bool) -> bool {
        let Some(tasks) = tasks else { return false };
        match (self, tasks.support) {
            (_, TaskSupport::Forbidden) | (TasksPolicy::Never, _) => false,
            (_, TaskSupport::Required) | (TasksPolicy::Always, _) => true,
            (TasksPolicy::Auto, TaskSupport::Optional) => asked,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_written_forms_round_trip() {
        for policy in [TasksPolicy::Auto, TasksPolicy::Always, TasksPolicy::Never] {
            assert_eq!(TasksPolicy::parse(policy.as_str()), Some(policy));
            let json = serde_json::to_value(policy).unwrap();
            assert_eq!(json, serde_json::json!(policy.as_str()));
        }
        assert_eq!(TasksPolicy::parse("sometimes"), None);
        let tasks: ToolTasks =
            serde_json::from_value(serde_json::json!({"support": "required"})).unwrap();
        assert_eq!(tasks.support, TaskSupport::Required);
    }

    #[test]
    fn who_starts_a_task() {
        let of = |support| ToolTasks { support };
        let table = [
            // (policy, support, asked) -> task
            (TasksPolicy::Auto, TaskSupport::Required, false, true),
            (TasksPolicy::Auto, TaskSupport::Optional, false, false),
            (TasksPolicy::Auto, TaskSupport::Optional, true, true),
            (TasksPolicy::Auto, TaskSupport::Forbidden, true, false),
            (TasksPolicy::Always, TaskSupport::Optional, false, true),
            (TasksPolicy::Always, TaskSupport::Forbidden, true, false),
            (TasksPolicy::Never, TaskSupport::Required, true, false),
            (TasksPolicy::Never, TaskSupport::Optional, true, false),
        ];
        for (policy, support, asked, task) in table {
            assert_eq!(
                policy.starts_task(Some(&of(support)), asked),
                task,
                "{policy:?} {support:?} asked={asked}"
            );
        }
        assert!(!TasksPolicy::Always.starts_task(None, true));
    }
}
