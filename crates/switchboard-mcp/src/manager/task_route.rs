//! Whether one tool call runs as a task, and how, on a live connection: the one place that
//! reads a server's `tasks` setting ([`TasksPolicy`]) against how the server runs the tool.
//!
//! | the tool (as its server runs it) | caller waits for the result | caller starts a task |
//! |---|---|---|
//! | 2025-11-25, `required` | a task, followed to its end | a task (`never`: refused) |
//! | 2025-11-25, `optional` | a plain call | a task under `always`, or `auto` when asked |
//! | the extension | a plain call | declared under `always`, or `auto` when asked: the server decides |
//! | no tasks, `forbidden` | a plain call | a plain call |
//!
//! A server of the extension refuses a plain call of a tool it runs only as a task (-32021
//! naming the extension): the call is sent again declaring it (unless the setting is
//! `never`), and the task followed to its end, or handed back to a caller starting one.

use std::time::Instant;

use rmcp::model::JsonObject;
use switchboard_core::{ServerSpec, TaskSupport, TasksPolicy, ToolTasks};

use super::ConnectionManager;
use super::entry::{Entry, Live};
use crate::connection::{CallOptions, wants_the_extension};
use crate::error::McpError;
use crate::tasks::{Started, TaskDialect};

/// What the caller of a tool call wants back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Wanted {
    /// The tool's result: a task is followed to its end in process.
    Result,
    /// A task left running, where the tool runs as one (or the result, where it does not).
    Start,
}

/// One tool call, as its caller asked for it.
pub(super) struct Call<'a> {
    pub(super) tool: &'a str,
    pub(super) arguments: Option<JsonObject>,
    pub(super) options: &'a CallOptions,
    pub(super) wanted: Wanted,
}

impl ConnectionManager {
    /// Makes `call` on `live` as `spec`'s `tasks` setting and the server say (see the module).
    pub(super) async fn call_on(
        &self,
        entry: &Entry,
        live: &Live,
        spec: &ServerSpec,
        call: Call<'_>,
    ) -> Result<Started, McpError> {
        let Call {
            tool,
            arguments,
            options,
            wanted,
        } = call;
        let limits = self.limits(spec, options.timeout);
        let deadline = Instant::now() + limits.ceiling;
        let policy = spec.tasks.unwrap_or_default();
        let dialect = live.conn.task_dialect();
        let support = self.task_support(entry, live, spec, tool).await;
        let tasks_off = || McpError::TasksOff {
            server: spec.name.clone(),
            tool: tool.to_owned(),
        };
        if support == Some(TaskSupport::Required) && policy == TasksPolicy::Never {
            return Err(tasks_off());
        }
        let as_task = match wanted {
            Wanted::Start => {
                let tasks = support.map(|support| ToolTasks { support });
                policy.starts_task(tasks.as_ref(), options.prefer_task)
            }
            Wanted::Result => support == Some(TaskSupport::Required),
        };
        let started = match dialect {
            Some(dialect) if as_task => {
                live.conn
                    .start_task(dialect, tool, arguments, options, limits)
                    .await?
            }
            _ => {
                let plain = live
                    .conn
                    .call_tool(tool, arguments.clone(), options, limits)
                    .await;
                match plain {
                    Err(error)
                        if dialect == Some(TaskDialect::Extension)
                            && wants_the_extension(&error) =>
                    {
                        if policy == TasksPolicy::Never {
                            return Err(tasks_off());
                        }
                        live.conn
                            .start_task(TaskDialect::Extension, tool, arguments, options, limits)
                            .await?
                    }
                    plain => Started::Done(plain?),
                }
            }
        };
        match (started, wanted) {
            (Started::Task(task), Wanted::Result) => live
                .conn
                .follow_to_end(tool, task, options, limits, deadline)
                .await
                .map(Started::Done),
            (Started::Task(task), Wanted::Start) => {
                if !task.status.is_terminal() {
                    entry.pin_task(live.instance, &task.upstream_id);
                }
                Ok(Started::Task(task))
            }
            (done @ Started::Done(_), _) => Ok(done),
        }
    }
}
