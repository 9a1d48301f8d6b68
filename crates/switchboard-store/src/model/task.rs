//! A task: a tool call a server runs in the background (MCP tasks), kept so that whichever
//! process claims it next goes on polling it, after a restart or on another replica.

use serde_json::Value;
use switchboard_core::{OwnerId, ServerId};

use super::Timestamp;

/// Where a task is in its life (the MCP task statuses). `Working` and `InputRequired` are
/// live; the others are final.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "working" => TaskStatus::Working,
            "input_required" => TaskStatus::InputRequired,
            "completed" => TaskStatus::Completed,
            "failed" => TaskStatus::Failed,
            "cancelled" => TaskStatus::Cancelled,
            _ => return None,
        })
    }

    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// The status of a live task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveStatus {
    Working,
    InputRequired,
}

/// How a task ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskEnd {
    Completed,
    Failed,
    Cancelled,
}

impl From<LiveStatus> for TaskStatus {
    fn from(status: LiveStatus) -> Self {
        match status {
            LiveStatus::Working => TaskStatus::Working,
            LiveStatus::InputRequired => TaskStatus::InputRequired,
        }
    }
}

impl From<TaskEnd> for TaskStatus {
    fn from(end: TaskEnd) -> Self {
        match end {
            TaskEnd::Completed => TaskStatus::Completed,
            TaskEnd::Failed => TaskStatus::Failed,
            TaskEnd::Cancelled => TaskStatus::Cancelled,
        }
    }
}

/// Who runs the task: a server of the 2025-11-25 dialect, one of the 2026-07-28 tasks
/// extension, or Switchboard itself (a tool without task support run in the background).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskKind {
    Legacy,
    Extension,
    Local,
}

impl TaskKind {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskKind::Legacy => "legacy",
            TaskKind::Extension => "extension",
            TaskKind::Local => "local",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "legacy" => TaskKind::Legacy,
            "extension" => TaskKind::Extension,
            "local" => TaskKind::Local,
            _ => return None,
        })
    }
}

/// What started the task, which says where its outcome goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskOrigin {
    /// A tool call of a chat turn.
    Chat,
    /// `/api/mcp/tools/call`.
    Api,
    /// The REST proxy.
    Proxy,
    /// A tool node's execution.
    Node,
    /// A client of the MCP gateway.
    Gateway,
}

impl TaskOrigin {
    pub fn as_str(self) -> &'static str {
        match self {
            TaskOrigin::Chat => "chat",
            TaskOrigin::Api => "api",
            TaskOrigin::Proxy => "proxy",
            TaskOrigin::Node => "node",
            TaskOrigin::Gateway => "gateway",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Some(match text {
            "chat" => TaskOrigin::Chat,
            "api" => TaskOrigin::Api,
            "proxy" => TaskOrigin::Proxy,
            "node" => TaskOrigin::Node,
            "gateway" => TaskOrigin::Gateway,
            _ => return None,
        })
    }
}

/// A task to keep, as it was created.
#[derive(Debug, Clone, PartialEq)]
pub struct NewTask {
    pub server_id: ServerId,
    pub tool: String,
    pub origin: TaskOrigin,
    pub kind: TaskKind,
    /// The chat call it belongs to, for [`TaskOrigin::Chat`].
    pub conversation_id: Option<String>,
    pub message_id: Option<String>,
    pub call_id: Option<String>,
    /// The gateway view it was started through (its id), for [`TaskOrigin::Gateway`];
    /// `None` for `/mcp` without a view.
    pub view_id: Option<String>,
    /// The server's task id; `None` for a [`TaskKind::Local`] task.
    pub upstream_id: Option<String>,
    pub status: LiveStatus,
    pub status_message: Option<String>,
    pub poll_interval_ms: Option<u64>,
    pub ttl_ms: Option<u64>,
    /// When it is first polled.
    pub next_poll_at: Timestamp,
    /// The process that holds it from the start (one running it itself), and until when;
    /// `None`: whoever claims it first.
    pub holder: Option<(String, Timestamp)>,
}

/// What a task run by Switchboard learnt when the call turned out to be a task of its
/// server: from then on it is polled as one.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskUpstream {
    pub kind: TaskKind,
    pub upstream_id: String,
    pub status: LiveStatus,
    pub status_message: Option<String>,
    pub poll_interval_ms: Option<u64>,
    pub ttl_ms: Option<u64>,
    pub next_poll_at: Timestamp,
}

/// Which of a person's tasks [`TaskStore::list_tasks`](crate::TaskStore::list_tasks) reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskFilter {
    pub origin: TaskOrigin,
    /// The gateway view the tasks were started through; `None`: those started without one.
    pub view_id: Option<String>,
    /// Only the tasks after this one in the order of the list (created earlier, or at the
    /// same time with a smaller id): where the previous page ended.
    pub after: Option<TaskCursor>,
}

/// A place in a list of tasks: the last task of a page.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskCursor {
    pub created_at: Timestamp,
    pub id: String,
}

/// How many live tasks one person may have, in all and on one server; `None`: no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TaskQuota {
    pub per_user: Option<u32>,
    pub per_server: Option<u32>,
}

/// What one poll learnt of a live task.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskPoll {
    /// Still live; an end goes through [`TaskStore::finish_task`](crate::TaskStore::finish_task).
    pub status: LiveStatus,
    pub status_message: Option<String>,
    pub poll_interval_ms: Option<u64>,
    pub next_poll_at: Timestamp,
    /// Polls that failed in a row (0 after one that answered).
    pub failures: u32,
}

/// A kept task.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTask {
    /// Ours ("tsk_" and a UUID): the only id anyone outside Switchboard sees.
    pub id: String,
    pub owner: OwnerId,
    pub server_id: ServerId,
    pub tool: String,
    pub origin: TaskOrigin,
    pub kind: TaskKind,
    pub conversation_id: Option<String>,
    pub message_id: Option<String>,
    pub call_id: Option<String>,
    /// The gateway view it was started through, for [`TaskOrigin::Gateway`].
    pub view_id: Option<String>,
    pub upstream_id: Option<String>,
    pub status: TaskStatus,
    pub status_message: Option<String>,
    pub poll_interval_ms: Option<u64>,
    pub ttl_ms: Option<u64>,
    /// The tool's result, or the error that ended the task, once it ended.
    pub outcome: Option<Value>,
    /// Someone asked to cancel it; the poller tells the server.
    pub cancel_requested: bool,
    /// The process polling it, until `lease_until`.
    pub holder: Option<String>,
    pub lease_until: Option<Timestamp>,
    pub next_poll_at: Timestamp,
    pub failures: u32,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub finished_at: Option<Timestamp>,
}

impl StoredTask {
    pub fn is_live(&self) -> bool {
        !self.status.is_terminal()
    }
}
