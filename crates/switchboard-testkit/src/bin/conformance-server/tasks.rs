//! The task fixtures of the suite's `tasks-*` scenarios (the 2026-07-28 extension
//! `io.modelcontextprotocol/tasks`, SEP-2663), on rmcp's [`TaskManager`], one for the whole
//! process: a task started on one session is polled, answered and cancelled from any other
//! (the suite's scenarios open several, and a Streamable HTTP client may reconnect).
//!
//! The server decides per call: a tool that may run as a task runs as one when the request
//! declares the extension (in `_meta`, or at `initialize`), and plainly otherwise; a tool
//! that runs only as a task refuses a request that does not declare it (-32021 naming the
//! extension).
//!
//! | tool | as a task | without the extension |
//! |---|---|---|
//! | `greet{name}` | never | `Hello, {name}!` |
//! | `slow_compute{seconds,label?}` | sleeps, then answers; `cancelled` when cancelled | sleeps, then answers |
//! | `failing_job` | a tool error (`isError`, so `completed`) after ~1 s | refused, -32021 |
//! | `protocol_error_job` | `failed` with a JSON-RPC error | that error |
//! | `confirm_delete{filename}` | asks one `elicitation/create` (`inputRequests`) | refused, -32021 |
//! | `multi_input` | asks two at once, answerable one at a time | refused, -32021 |
//! | `test_tool_with_task` | asks `user_name` by an input-required result, then a task greeting that name | refused, -32021 |

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ContentBlock,
    CreateTaskResult, InputRequest, InputRequiredResult, ProtocolVersion,
};
use rmcp::service::RequestContext;
use rmcp::task_manager::{TaskContext, TaskExit, TaskManager, TaskOptions};
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value, json};

use crate::asks::elicit;
use crate::catalog::typed;

/// How long `failing_job` and `protocol_error_job` work before they fail.
const JOB_TIME: Duration = Duration::from_secs(1);
/// The suggested poll interval, in milliseconds.
const POLL_MS: u64 = 500;

/// The fixtures of [`crate::catalog::tools`].
pub fn tools() -> Vec<Value> {
    let object = |properties: Value, required: &[&str]| json!({"type": "object", "properties": properties, "required": required});
    vec![
        json!({
            "name": "greet",
            "description": "Greets by name, at once (never a task)",
            "inputSchema": object(json!({"name": {"type": "string"}}), &["name"]),
        }),
        json!({
            "name": "slow_compute",
            "description": "Works for `seconds`, as a task when the client takes tasks",
            "inputSchema": object(
                json!({"seconds": {"type": "number"}, "label": {"type": "string"}}),
                &["seconds"],
            ),
        }),
        json!({
            "name": "failing_job",
            "description": "Runs only as a task, which ends in a tool error after a second",
            "inputSchema": object(json!({}), &[]),
        }),
        json!({
            "name": "protocol_error_job",
            "description": "Fails with a JSON-RPC error (a task that fails, when the client takes tasks)",
            "inputSchema": object(json!({}), &[]),
        }),
        json!({
            "name": "confirm_delete",
            "description": "Runs only as a task, which asks for a confirmation before it answers",
            "inputSchema": object(json!({"filename": {"type": "string"}}), &["filename"]),
        }),
        json!({
            "name": "multi_input",
            "description": "Runs only as a task, which asks two questions at once",
            "inputSchema": object(json!({}), &[]),
        }),
        json!({
            "name": "test_tool_with_task",
            "description": "Asks for a name by an input-required result, then greets it from a task",
            "inputSchema": object(json!({}), &[]),
        }),
    ]
}

/// The tasks this process runs, for every session.
#[derive(Clone, Default)]
pub struct Tasks {
    manager: TaskManager,
}

impl Tasks {
    /// Runs `request` if it names a fixture of this module; `None` otherwise.
    pub async fn call(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CallToolResponse, ErrorData>> {
        let caps = context.client_capabilities().unwrap_or_default();
        let declared = caps.supports_tasks();
        let arguments = request.arguments.clone().unwrap_or_default();
        let outcome = match request.name.as_ref() {
            "greet" => Ok(text(format!("Hello, {}!", string(&arguments, "name"))).into()),
            "slow_compute" => {
                let seconds = seconds(&arguments);
                let label = string(&arguments, "label");
                if declared {
                    Ok(self.spawn(move |task| slow_compute(task, seconds, label)))
                } else {
                    tokio::time::sleep(seconds).await;
                    Ok(text(computed(seconds, &label)).into())
                }
            }
            "protocol_error_job" if !declared => Err(job_crashed()),
            "protocol_error_job" => Ok(self.spawn(|_| async {
                tokio::time::sleep(JOB_TIME).await;
                Err(TaskExit::Error(job_crashed()))
            })),
            "failing_job" | "confirm_delete" | "multi_input" | "test_tool_with_task"
                if !declared =>
            {
                Err(needs_tasks())
            }
            "failing_job" => Ok(self.spawn(|_| async {
                tokio::time::sleep(JOB_TIME).await;
                Ok(CallToolResult::error(vec![ContentBlock::text(
                    "the job failed, as it always does",
                )]))
            })),
            "confirm_delete" => {
                let filename = string(&arguments, "filename");
                Ok(self.spawn(move |task| confirm_delete(task, filename)))
            }
            "multi_input" => Ok(self.spawn(multi_input)),
            "test_tool_with_task" => self.with_task(request, context, &caps).await,
            _ => return None,
        };
        Some(outcome)
    }

    pub fn get(&self, task_id: &str) -> Result<rmcp::model::GetTaskResult, ErrorData> {
        self.manager
            .get_task(task_id)
            .map(rmcp::model::GetTaskResult::new)
    }

    pub fn update(
        &self,
        task_id: &str,
        responses: rmcp::model::InputResponses,
    ) -> Result<(), ErrorData> {
        self.manager.update_task(task_id, responses)
    }

    pub fn cancel(&self, task_id: &str) -> Result<(), ErrorData> {
        self.manager.cancel_task(task_id)
    }

    /// Runs `work` as a task; the answer to the call is the task.
    fn spawn<F, Fut>(&self, work: F) -> CallToolResponse
    where
        F: FnOnce(TaskContext) -> Fut,
        Fut: Future<Output = Result<CallToolResult, TaskExit>> + Send + 'static,
    {
        let options = TaskOptions::new().with_poll_interval_ms(POLL_MS);
        let task = self
            .manager
            .spawn(options, |context| Box::pin(work(context)));
        CallToolResponse::Task(CreateTaskResult::new(task))
    }

    /// `test_tool_with_task`: the name asked first (an input-required result on 2026-07-28,
    /// an elicitation on the session before), then a task greeting it.
    async fn with_task(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        caps: &ClientCapabilities,
    ) -> Result<CallToolResponse, ErrorData> {
        if caps.elicitation.is_none() {
            return Ok(text("the client did not declare the elicitation capability").into());
        }
        let modern = context
            .protocol_version()
            .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28);
        let answer = if modern {
            match request
                .input_responses
                .as_ref()
                .and_then(|responses| responses.get("user_name"))
            {
                Some(answer) => answer.clone(),
                None => {
                    let asked: InputRequest = typed(ask_name())?;
                    let requests = [("user_name".to_owned(), asked)].into_iter().collect();
                    return Ok(InputRequiredResult::from_input_requests(requests).into());
                }
            }
        } else {
            let params = typed(ask_name()["params"].clone())?;
            let answer = context
                .peer
                .create_elicitation(params)
                .await
                .map_err(|error| {
                    ErrorData::internal_error(format!("the client did not answer: {error}"), None)
                })?;
            serde_json::to_value(answer)
                .map_err(|error| ErrorData::internal_error(error.to_string(), None))?
        };
        let name = answer
            .pointer("/content/name")
            .and_then(Value::as_str)
            .unwrap_or("stranger")
            .to_owned();
        Ok(self.spawn(move |_| async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            Ok(text(format!("Hello, {name}! (from a task)")))
        }))
    }
}

async fn slow_compute(
    task: TaskContext,
    seconds: Duration,
    label: String,
) -> Result<CallToolResult, TaskExit> {
    task.set_status_message(format!("computing {label}"));
    tokio::select! {
        () = tokio::time::sleep(seconds) => Ok(text(computed(seconds, &label))),
        () = task.cancelled() => Err(TaskExit::Cancelled),
    }
}

async fn confirm_delete(task: TaskContext, filename: String) -> Result<CallToolResult, TaskExit> {
    let asked = elicit(
        &format!("Delete {filename}?"),
        json!({"confirm": {"type": "boolean"}}),
        &["confirm"],
    );
    let answer = task.request_input("confirm", typed(asked)?).await?;
    let confirmed =
        answer["action"] == "accept" && answer.pointer("/content/confirm") == Some(&json!(true));
    Ok(text(if confirmed {
        format!("Deleted {filename}")
    } else {
        format!("Kept {filename}")
    }))
}

async fn multi_input(task: TaskContext) -> Result<CallToolResult, TaskExit> {
    let name = elicit(
        "What is your name?",
        json!({"name": {"type": "string"}}),
        &["name"],
    );
    let confirm = elicit(
        "Go ahead?",
        json!({"confirm": {"type": "boolean"}}),
        &["confirm"],
    );
    let (name, confirm) = (typed(name)?, typed(confirm)?);
    let (name, confirm) = tokio::join!(
        task.request_input("name", name),
        task.request_input("confirm", confirm),
    );
    let (name, confirm) = (name?, confirm?);
    Ok(text(format!(
        "name: {}; confirm: {}",
        name.pointer("/content/name").unwrap_or(&Value::Null),
        confirm.pointer("/content/confirm").unwrap_or(&Value::Null),
    )))
}

fn ask_name() -> Value {
    elicit(
        "What is your name?",
        json!({"name": {"type": "string"}}),
        &["name"],
    )
}

fn computed(seconds: Duration, label: &str) -> String {
    let seconds = seconds.as_secs_f64();
    if label.is_empty() {
        format!("computed in {seconds}s")
    } else {
        format!("computed {label} in {seconds}s")
    }
}

fn text(text: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(text.into())])
}

fn string(arguments: &Map<String, Value>, name: &str) -> String {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// `seconds` as a wait, at most an hour (none when it is not a number).
fn seconds(arguments: &Map<String, Value>) -> Duration {
    let seconds = arguments
        .get("seconds")
        .and_then(Value::as_f64)
        .unwrap_or(0.0);
    Duration::try_from_secs_f64(seconds.clamp(0.0, 3600.0)).unwrap_or_default()
}

fn job_crashed() -> ErrorData {
    ErrorData::internal_error("protocol_error_job crashed, as it always does", None)
}

/// -32021: the tool runs only as a task, and the request did not declare the extension.
fn needs_tasks() -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode(-32021),
        "this tool runs only as a task: declare the io.modelcontextprotocol/tasks extension",
        Some(
            json!({"requiredCapabilities": {"extensions": {rmcp::model::TASKS_EXTENSION_ID: {}}}}),
        ),
    )
}
