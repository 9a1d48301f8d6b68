//! Tool calls that run for minutes or hours: MCP tasks, kept in the store and followed to
//! their end by whichever process holds them, so that a restart (or another replica taking
//! over) loses none.
//!
//! A call becomes a task two ways:
//! - its server runs it as one ([`Tasks::adopt`]): the server's task is kept and polled here;
//! - its caller asked not to wait ([`Tasks::run_in_background`]): the call runs in this
//!   process (a *local* task), and becomes a task of its server if the server answers it
//!   with one.
//!
//! The [`watcher`] claims the live tasks due for a poll, one holder per task across
//! processes (a lease in the store), polls their servers as often as they ask, records what
//! it learns, ends them, announces each change (`task.updated`) and hands each end to
//! whoever waits on it ([`TaskEnded`]). A local task whose process went away ends as
//! interrupted: it cannot be run again, since its arguments are never stored.

mod config;
mod input;
mod local;
mod outcome;
mod poll;
mod service;
mod watcher;

pub use config::TaskConfig;
pub use input::TaskAsker;
pub use outcome::TaskOutcome;
pub use service::{TaskEnded, TaskLink, Tasks};
