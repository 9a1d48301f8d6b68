//! How long each tool's last call took, for the views that run slow tools as tasks
//! (`tasks.runAsTask: slow`). Kept in this process only: a restarted gateway learns again
//! from the next call of each tool.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures::future::BoxFuture;
use switchboard_agent::tasks::TaskEnded;
use switchboard_core::ServerId;
use switchboard_store::{StoredTask, TaskKind, TaskOrigin, TaskStatus};

/// The most tools remembered; past it, one is forgotten for each new one.
const MAX_TOOLS: usize = 10_000;

/// The last duration of each (server, tool) called through the gateway.
#[derive(Debug, Default)]
pub(crate) struct Durations {
    last: Mutex<HashMap<(ServerId, String), Duration>>,
}

impl Durations {
    /// Remembers that a call of `tool` of `server` took `took`.
    pub(crate) fn record(&self, server: &ServerId, tool: &str, took: Duration) {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let key = (server.clone(), tool.to_owned());
        if last.len() >= MAX_TOOLS
            && !last.contains_key(&key)
            && let Some(forgotten) = last.keys().next().cloned()
        {
            last.remove(&forgotten);
        }
        last.insert(key, took);
    }

    /// How long the last call of `tool` of `server` took, if one was seen.
    pub(crate) fn last(&self, server: &ServerId, tool: &str) -> Option<Duration> {
        self.last
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&(server.clone(), tool.to_owned()))
            .copied()
    }
}

/// Learns from the gateway's own tasks: a call run as a task of Switchboard's is timed too,
/// so a tool that became fast again is called directly again.
pub(crate) struct LearnFromTasks(pub(crate) Arc<Durations>);

impl TaskEnded for LearnFromTasks {
    fn ended<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, ()> {
        Box::pin(async move {
            let ours = task.origin == TaskOrigin::Gateway && task.kind == TaskKind::Local;
            if let (true, TaskStatus::Completed, Some(finished)) =
                (ours, task.status, task.finished_at)
            {
                let took = u64::try_from(finished.0 - task.created_at.0).unwrap_or(0);
                self.0
                    .record(&task.server_id, &task.tool, Duration::from_millis(took));
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_duration_of_each_tool_is_kept() {
        let durations = Durations::default();
        let server = ServerId("s1".into());
        assert_eq!(durations.last(&server, "slow"), None);
        durations.record(&server, "slow", Duration::from_secs(40));
        durations.record(&server, "slow", Duration::from_secs(50));
        durations.record(&server, "fast", Duration::from_millis(5));
        assert_eq!(
            durations.last(&server, "slow"),
            Some(Duration::from_secs(50))
        );
        assert_eq!(durations.last(&ServerId("s2".into()), "slow"), None);
    }

    #[tokio::test]
    async fn a_completed_task_of_ours_is_timed() {
        let durations = Arc::new(Durations::default());
        let hook = LearnFromTasks(Arc::clone(&durations));
        let mut task = StoredTask {
            id: "tsk_1".into(),
            owner: switchboard_core::OwnerId("u1".into()),
            server_id: ServerId("s1".into()),
            tool: "slow".into(),
            origin: TaskOrigin::Gateway,
            kind: TaskKind::Local,
            conversation_id: None,
            message_id: None,
            call_id: None,
            view_id: None,
            upstream_id: None,
            status: TaskStatus::Completed,
            status_message: None,
            poll_interval_ms: None,
            ttl_ms: None,
            outcome: None,
            cancel_requested: false,
            holder: None,
            lease_until: None,
            next_poll_at: switchboard_store::Timestamp(0),
            failures: 0,
            created_at: switchboard_store::Timestamp(1_000),
            updated_at: switchboard_store::Timestamp(3_000),
            finished_at: Some(switchboard_store::Timestamp(3_000)),
        };
        hook.ended(&task).await;
        assert_eq!(
            durations.last(&task.server_id, "slow"),
            Some(Duration::from_secs(2))
        );
        // Neither another origin's task nor one that did not complete says how long a call
        // takes.
        task.finished_at = Some(switchboard_store::Timestamp(60_000));
        task.origin = TaskOrigin::Api;
        hook.ended(&task).await;
        task.origin = TaskOrigin::Gateway;
        task.status = TaskStatus::Cancelled;
        hook.ended(&task).await;
        assert_eq!(
            durations.last(&task.server_id, "slow"),
            Some(Duration::from_secs(2))
        );
    }

    #[test]
    fn past_the_limit_one_tool_is_forgotten_for_each_new_one() {
        let durations = Durations::default();
        let server = ServerId("s1".into());
        for i in 0..=MAX_TOOLS {
            durations.record(&server, &format!("t{i}"), Duration::from_secs(1));
        }
        let kept = durations.last.lock().unwrap().len();
        assert_eq!(kept, MAX_TOOLS);
        assert!(durations.last(&server, &format!("t{MAX_TOOLS}")).is_some());
    }
}
