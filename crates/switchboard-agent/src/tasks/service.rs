//! [`Tasks`]: where tool calls become tasks, and what their callers ask of them.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use futures::future::BoxFuture;
use rmcp::model::CallToolResult;
use switchboard_core::{OwnerId, ServerSpec};
use switchboard_mcp::TaskState;
use switchboard_store::{
    LiveStatus, NewTask, Store, StoreError, StoredTask, TaskEnd, TaskKind, TaskOrigin, Timestamp,
};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use super::TaskConfig;
use super::poll::{live_status, next_poll};
use crate::events::{AgentEvent, EventBus, TaskUpdate};
use crate::tool_call::{ToolCallError, ToolCallRequest, ToolCalls};

/// Told of every task's end, once it is stored (a chat's call is finished and its turn
/// resumed). Called by the process that ended the task.
pub trait TaskEnded: Send + Sync {
    fn ended<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, ()>;

    /// Told of a live task's new status or status message, once stored (a chat's call shows
    /// it). Nothing by default.
    fn changed<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, ()> {
        let _ = task;
        Box::pin(async {})
    }
}

/// What a task belongs to: the chat call it runs for, or the gateway view it was started
/// through.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskLink {
    pub conversation_id: Option<String>,
    pub message_id: Option<String>,
    pub call_id: Option<String>,
    /// The gateway view's id, for a task of a gateway client (`None`: `/mcp` without one).
    pub view_id: Option<String>,
}

/// The task service: built once per process and shared.
#[derive(Clone)]
pub struct Tasks {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) calls: Arc<ToolCalls>,
    pub(super) store: Arc<dyn Store>,
    pub(super) bus: EventBus,
    /// This process's name in the tasks it holds.
    pub(super) holder: String,
    pub(super) config: RwLock<TaskConfig>,
    /// The local tasks running in this process, by id, each with what cancels it.
    pub(super) running: Mutex<HashMap<String, CancellationToken>>,
    /// The tasks being polled in this process now: a claim that returns one again (its
    /// poll outlasting a tick) leaves it to the poll going on.
    pub(super) polling: Mutex<HashSet<String>>,
    /// Wakes the watcher before its next tick (a task was created, cancelled or ended).
    pub(super) wake: Notify,
    pub(super) ended: RwLock<Vec<Arc<dyn TaskEnded>>>,
    /// Who answers the questions of the tasks' servers.
    pub(super) askers: RwLock<Vec<Arc<dyn super::TaskAsker>>>,
    /// The tasks whose questions are being asked here, each with what ends its questions.
    pub(super) asking: Mutex<HashMap<String, CancellationToken>>,
    /// The keys of extension tasks' questions answered here (see `input`).
    pub(super) asked: Mutex<super::input::AskedKeys>,
    /// Local tasks and polls, waited for on shutdown.
    pub(super) tracker: TaskTracker,
    pub(super) stop: CancellationToken,
    /// Whether the watcher runs (from [`Tasks::start`] to [`Tasks::shutdown`]).
    pub(super) following: AtomicBool,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("holder", &self.inner.holder)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    /// The service over `calls`, keeping tasks in `store` as `holder` and announcing them
    /// on `bus`. Nothing is polled until [`Tasks::start`].
    pub fn new(
        calls: Arc<ToolCalls>,
        store: Arc<dyn Store>,
        bus: EventBus,
        holder: String,
        config: TaskConfig,
    ) -> Self {
        Self {
            inner: Arc::new(Inner {
                calls,
                store,
                bus,
                holder,
                config: RwLock::new(config),
                running: Mutex::new(HashMap::new()),
                polling: Mutex::new(HashSet::new()),
                wake: Notify::new(),
                ended: RwLock::new(Vec::new()),
                askers: RwLock::new(Vec::new()),
                asking: Mutex::new(HashMap::new()),
                asked: Mutex::new(HashMap::new()),
                tracker: TaskTracker::new(),
                stop: CancellationToken::new(),
                following: AtomicBool::new(false),
            }),
        }
    }

    /// Starts following the store's live tasks (on the current Tokio runtime).
    pub fn start(&self) {
        if self.inner.following.swap(true, Ordering::SeqCst) {
            return;
        }
        let tasks = self.clone();
        self.inner.tracker.spawn(async move { tasks.watch().await });
    }

    /// Whether tasks are followed here ([`Tasks::start`]): a caller that leaves a task to be
    /// followed (a chat's turn that does not wait for it) may, one that has nobody to follow
    /// it must wait for it itself.
    pub fn is_following(&self) -> bool {
        self.inner.following.load(Ordering::SeqCst) && !self.inner.stop.is_cancelled()
    }

    /// Stops following tasks and cancels the local ones, waiting for them to end (a local
    /// task cancelled by a shutdown is left live, to end as interrupted wherever it is
    /// found next).
    pub async fn shutdown(&self) {
        self.inner.stop.cancel();
        self.inner.tracker.close();
        self.inner.tracker.wait().await;
        // Let go of what this process held, so the next one takes it up at once rather
        // than after the lease (a background call here ends interrupted there).
        if let Err(error) = self
            .inner
            .store
            .renew_task_holds(&self.inner.holder, std::time::Duration::ZERO)
            .await
        {
            tracing::debug!(%error, "the tasks held here could not be let go");
        }
    }

    /// Replaces the settings (a reload).
    pub fn set_config(&self, config: TaskConfig) {
        *self
            .inner
            .config
            .write()
            .unwrap_or_else(PoisonError::into_inner) = config;
    }

    pub(super) fn config(&self) -> TaskConfig {
        self.inner
            .config
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Tells `ended` of every task's end from now on.
    pub fn on_end(&self, ended: Arc<dyn TaskEnded>) {
        self.inner
            .ended
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .push(ended);
    }

    /// Runs `req` as a task of `origin`, without waiting for it: kept at once (within the
    /// caller's quota) and answered with the kept task, while the call runs in this
    /// process. A call its server answers with a task of its own becomes that task.
    pub async fn run_in_background(
        &self,
        req: ToolCallRequest,
        origin: TaskOrigin,
    ) -> Result<StoredTask, ToolCallError> {
        Ok(self
            .run_in_background_for(req, origin, TaskLink::default())
            .await?)
    }

    /// As [`Tasks::run_in_background`], the task belonging to `link`; only keeping it can
    /// fail.
    pub async fn run_in_background_for(
        &self,
        mut req: ToolCallRequest,
        origin: TaskOrigin,
        link: TaskLink,
    ) -> Result<StoredTask, StoreError> {
        req.prefer_task = true;
        let config = self.config();
        let held_until = Timestamp::now().plus(config.renew + config.lease);
        let new = NewTask {
            server_id: req.spec.id.clone(),
            tool: req.tool.clone(),
            origin,
            kind: TaskKind::Local,
            conversation_id: link.conversation_id,
            message_id: link.message_id,
            call_id: link.call_id,
            view_id: link.view_id,
            upstream_id: None,
            status: LiveStatus::Working,
            status_message: None,
            poll_interval_ms: None,
            ttl_ms: None,
            next_poll_at: Timestamp::now().plus(config.renew),
            holder: Some((self.inner.holder.clone(), held_until)),
        };
        let task = self
            .inner
            .store
            .create_task(&req.owner, &new, config.quota)
            .await?;
        self.announce(&task);
        self.spawn_local(req, task.clone());
        Ok(task)
    }

    /// Keeps the server's task `state`, which a call of `tool` on `spec` was answered with,
    /// as a task of `origin` for `link`, and follows it from now on. Refused past the
    /// owner's quota (the caller cancels the server's task then).
    pub async fn adopt(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        state: &TaskState,
        origin: TaskOrigin,
        link: TaskLink,
    ) -> Result<StoredTask, StoreError> {
        let config = self.config();
        let new = NewTask {
            server_id: spec.id.clone(),
            tool: tool.to_owned(),
            origin,
            kind: kind_of(state.dialect),
            conversation_id: link.conversation_id,
            message_id: link.message_id,
            call_id: link.call_id,
            view_id: link.view_id,
            upstream_id: Some(state.upstream_id.clone()),
            status: live_status(state.status),
            status_message: state.status_message.clone(),
            poll_interval_ms: state.poll_interval.map(millis),
            ttl_ms: state.ttl.map(millis),
            next_poll_at: next_poll(state.poll_interval, 0),
            // Followed by this process while it lives: a stdio server's task is known only
            // to the copy of the server this process runs.
            holder: Some((
                self.inner.holder.clone(),
                Timestamp::now().plus(config.lease),
            )),
        };
        let task = self
            .inner
            .store
            .create_task(owner, &new, config.quota)
            .await?;
        self.announce(&task);
        Ok(task)
    }

    /// Keeps a call its server answered at once with `result` as a task that has ended so,
    /// for a caller that asked for a task and must be answered with one. The call was
    /// audited when it was made.
    pub async fn keep_answered(
        &self,
        owner: &OwnerId,
        spec: &ServerSpec,
        tool: &str,
        result: CallToolResult,
        origin: TaskOrigin,
        link: TaskLink,
    ) -> Result<StoredTask, StoreError> {
        let config = self.config();
        let holder = &self.inner.holder;
        let held_until = Timestamp::now().plus(config.renew + config.lease);
        let new = NewTask {
            server_id: spec.id.clone(),
            tool: tool.to_owned(),
            origin,
            kind: TaskKind::Local,
            conversation_id: link.conversation_id,
            message_id: link.message_id,
            call_id: link.call_id,
            view_id: link.view_id,
            upstream_id: None,
            status: LiveStatus::Working,
            status_message: None,
            poll_interval_ms: None,
            ttl_ms: None,
            next_poll_at: held_until,
            holder: Some((holder.clone(), held_until)),
        };
        let store = &self.inner.store;
        let task = store.create_task(owner, &new, config.quota).await?;
        let outcome = super::TaskOutcome::Result(result).to_value();
        store
            .finish_task(&task.id, holder, TaskEnd::Completed, Some(&outcome))
            .await?;
        let task = store.task(owner, &task.id).await?;
        self.ended(&task).await;
        Ok(task)
    }

    /// `owner`'s task `id` as it is now (another owner's is not found).
    pub async fn task(&self, owner: &OwnerId, id: &str) -> Result<StoredTask, StoreError> {
        self.inner.store.task(owner, id).await
    }

    /// Asks for `owner`'s task `id` to be cancelled: a local task here is cancelled at
    /// once, as is a question its server asks here; any other is told to its server by its
    /// poller. The task as it is now; one that has ended is left as it is.
    pub async fn cancel(&self, owner: &OwnerId, id: &str) -> Result<StoredTask, StoreError> {
        let task = self.inner.store.request_task_cancel(owner, id).await?;
        if task.is_live() {
            for tokens in [&self.inner.running, &self.inner.asking] {
                if let Some(token) = tokens
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .get(id)
                {
                    token.cancel();
                }
            }
            self.inner.wake.notify_one();
        }
        Ok(task)
    }

    /// Announces `task` as it is now to its owner.
    pub(super) fn announce(&self, task: &StoredTask) {
        self.inner.bus.publish(
            &task.owner,
            AgentEvent::TaskUpdated(Box::new(TaskUpdate::of(task))),
        );
    }

    /// Announces `task`'s new status or message and tells everyone following it.
    pub(super) async fn changed(&self, task: &StoredTask) {
        self.announce(task);
        for hook in self.hooks() {
            hook.changed(task).await;
        }
    }

    fn hooks(&self) -> Vec<Arc<dyn TaskEnded>> {
        self.inner
            .ended
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Announces `task`'s end and tells everyone waiting on it.
    pub(super) async fn ended(&self, task: &StoredTask) {
        self.announce(task);
        for hook in self.hooks() {
            hook.ended(task).await;
        }
    }
}

/// A duration as whole milliseconds.
pub(super) fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// The stored kind of a server's task of `dialect`.
pub(super) fn kind_of(dialect: switchboard_mcp::TaskDialect) -> TaskKind {
    match dialect {
        switchboard_mcp::TaskDialect::Legacy => TaskKind::Legacy,
        switchboard_mcp::TaskDialect::Extension => TaskKind::Extension,
    }
}
