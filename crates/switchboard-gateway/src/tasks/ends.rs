//! Tasks' ends as they happen in this process, for the `tasks/result` requests waiting on
//! them: the task service tells each end ([`TaskEnded`]) and every waiter hears it, so a
//! waiter sleeps until its task ends instead of reading the store again and again.
//!
//! A task ended by another process sharing the store (a replica) is not heard here: a
//! waiter also reads its task again now and then ([`Ends::RECHECK`]).

use std::time::Duration;

use futures::future::BoxFuture;
use switchboard_agent::tasks::TaskEnded;
use switchboard_store::StoredTask;
use tokio::sync::broadcast;

/// How many ends a slow waiter may fall behind before it reads its task again.
const BACKLOG: usize = 256;

/// The ids of the tasks that end, as they end.
#[derive(Debug)]
pub(crate) struct Ends {
    sender: broadcast::Sender<String>,
}

impl Default for Ends {
    fn default() -> Self {
        let (sender, _) = broadcast::channel(BACKLOG);
        Self { sender }
    }
}

impl Ends {
    /// How long a waiter sleeps at most before reading its task again.
    pub(crate) const RECHECK: Duration = Duration::from_secs(10);

    /// Hears every end from now on: subscribe before reading the task, so an end between
    /// the read and the wait is not missed.
    pub(crate) fn listen(&self) -> Listener {
        Listener(self.sender.subscribe())
    }
}

/// One waiter's ear.
pub(crate) struct Listener(broadcast::Receiver<String>);

impl Listener {
    /// Returns once task `id` may have ended: it was heard to, or ends were missed.
    pub(crate) async fn ended(&mut self, id: &str) {
        loop {
            match self.0.recv().await {
                Ok(ended) if ended == id => return,
                Ok(_) => {}
                Err(broadcast::error::RecvError::Lagged(_)) => return,
                // The gateway is going away; the caller's bound ends the wait.
                Err(broadcast::error::RecvError::Closed) => std::future::pending().await,
            }
        }
    }
}

impl TaskEnded for Ends {
    fn ended<'a>(&'a self, task: &'a StoredTask) -> BoxFuture<'a, ()> {
        // Nobody listening is not an error.
        let _ = self.sender.send(task.id.clone());
        Box::pin(async {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_waiter_hears_its_task_end_and_no_other() {
        let ends = Ends::default();
        let mut listener = ends.listen();
        ends.sender.send("other".into()).unwrap();
        let waiting = tokio::spawn(async move { listener.ended("mine").await });
        ends.sender.send("mine".into()).unwrap();
        waiting.await.unwrap();
    }

    #[tokio::test]
    async fn a_waiter_that_fell_behind_returns_to_read_again() {
        let ends = Ends::default();
        let mut listener = ends.listen();
        for i in 0..=BACKLOG {
            ends.sender.send(format!("t{i}")).unwrap();
        }
        listener.ended("never").await;
    }
}
