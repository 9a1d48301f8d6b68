//! How a gateway view treats the calls of clients that accept tasks (the 2026-07-28 tasks
//! extension): a tool its server runs as a task is always passed on as one; any other tool
//! can be run as a task by Switchboard itself, so that a client behind a short proxy timeout
//! can still use a tool that takes minutes.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::ViewError;

/// The threshold of [`RunAsTask::Slow`] when the view gives none.
pub const DEFAULT_SLOW_AFTER_SECS: u32 = 30;
/// The largest threshold (a day).
pub const MAX_SLOW_AFTER_SECS: u32 = 86_400;

/// A view's task settings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ViewTasks {
    /// When a call of a tool its server does not run as a task becomes a task run by
    /// Switchboard, for a client that accepts tasks.
    #[serde(default)]
    pub run_as_task: RunAsTask,
    /// For `slow`: a call becomes a task when the tool's last call took at least this many
    /// seconds (1 to 86400; 30 when left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slow_after_secs: Option<u32>,
}

/// When Switchboard runs a call as its own task.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum RunAsTask {
    /// Never: the client waits for the call's result.
    #[default]
    Never,
    /// When the tool's last call took longer than `slowAfterSecs`.
    Slow,
    /// Always.
    Always,
}

impl ViewTasks {
    /// The threshold of [`RunAsTask::Slow`].
    pub fn slow_after(&self) -> Duration {
        Duration::from_secs(u64::from(
            self.slow_after_secs.unwrap_or(DEFAULT_SLOW_AFTER_SECS),
        ))
    }

    /// Whether a call of a tool whose last call took `last` (`None`: not known) runs as a task
    /// of Switchboard's.
    pub fn runs_as_task(&self, last: Option<Duration>) -> bool {
        match self.run_as_task {
            RunAsTask::Never => false,
            RunAsTask::Always => true,
            RunAsTask::Slow => last.is_some_and(|last| last >= self.slow_after()),
        }
    }

    pub(super) fn validate(&self) -> Result<(), ViewError> {
        match self.slow_after_secs {
            Some(secs) if !(1..=MAX_SLOW_AFTER_SECS).contains(&secs) => {
                Err(ViewError::SlowAfterOutOfRange { secs })
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_call_runs_as_a_task_by_the_setting_and_the_last_duration() {
        let secs = |s| Some(Duration::from_secs(s));
        let never = ViewTasks::default();
        assert!(!never.runs_as_task(secs(3600)));
        let always = ViewTasks {
            run_as_task: RunAsTask::Always,
            slow_after_secs: None,
        };
        assert!(always.runs_as_task(None));
        let slow = ViewTasks {
            run_as_task: RunAsTask::Slow,
            slow_after_secs: Some(5),
        };
        assert!(!slow.runs_as_task(None), "a tool never called is not slow");
        assert!(!slow.runs_as_task(secs(4)));
        assert!(slow.runs_as_task(secs(5)));
        let default_slow = ViewTasks {
            slow_after_secs: None,
            ..slow
        };
        assert!(!default_slow.runs_as_task(secs(29)));
        assert!(default_slow.runs_as_task(secs(30)));
    }

    #[test]
    fn the_settings_are_camel_case_and_checked() {
        let tasks: ViewTasks =
            serde_json::from_value(json!({"runAsTask": "slow", "slowAfterSecs": 10})).unwrap();
        assert_eq!(tasks.run_as_task, RunAsTask::Slow);
        assert_eq!(
            serde_json::to_value(tasks).unwrap(),
            json!({"runAsTask": "slow", "slowAfterSecs": 10})
        );
        assert_eq!(
            serde_json::from_value::<ViewTasks>(json!({})).unwrap(),
            ViewTasks::default()
        );
        assert!(serde_json::from_value::<ViewTasks>(json!({"runAsTask": "sometimes"})).is_err());
        for secs in [0, MAX_SLOW_AFTER_SECS + 1] {
            let tasks = ViewTasks {
                run_as_task: RunAsTask::Slow,
                slow_after_secs: Some(secs),
            };
            assert_eq!(
                tasks.validate(),
                Err(ViewError::SlowAfterOutOfRange { secs })
            );
        }
    }
}
