//! How tasks are followed.

use std::time::Duration;

use switchboard_store::TaskQuota;

/// How tasks are polled and bounded.
#[derive(Debug, Clone)]
pub struct TaskConfig {
    /// How long a claim on a task lasts; a holder that dies is replaced after it.
    pub lease: Duration,
    /// How often the store is asked for due tasks (an end or a cancel wakes it sooner).
    pub tick: Duration,
    /// How many due tasks one claim takes at most.
    pub batch: u32,
    /// How many polls run at once in this process.
    pub concurrency: usize,
    /// After this many failed polls in a row, the task ends with the last failure.
    pub max_failures: u32,
    /// How often a task running in this process renews its hold.
    pub renew: Duration,
    /// How long the outcome of an ended task is waited for.
    pub outcome_wait: Duration,
    /// How many live tasks one person may have, in all and on one server.
    pub quota: TaskQuota,
    /// How long an ended task (and its outcome) is kept for its caller to read.
    pub retention: Duration,
}

impl Default for TaskConfig {
    fn default() -> Self {
        Self {
            lease: Duration::from_secs(30),
            tick: Duration::from_secs(1),
            batch: 64,
            concurrency: 32,
            max_failures: 20,
            renew: Duration::from_secs(10),
            outcome_wait: Duration::from_secs(30),
            quota: TaskQuota {
                per_user: Some(20),
                per_server: Some(5),
            },
            retention: Duration::from_secs(24 * 60 * 60),
        }
    }
}
