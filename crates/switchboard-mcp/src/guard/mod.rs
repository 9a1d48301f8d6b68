//! The guard: a small process between Switchboard and one stdio server, so that nothing the
//! server started outlives the process that started it.
//!
//! A process group alone leaves two holes. When Switchboard is killed with `SIGKILL`, nobody
//! ends the group; and a grandchild that calls `setsid` has left the group. The guard closes
//! both: the kernel signals it when its parent dies (`PR_SET_PDEATHSIG`), and it is a child
//! subreaper (`PR_SET_CHILD_SUBREAPER`), so every orphan below it, in the group or not, is
//! handed to it rather than to init. When the server exits or the parent dies, the guard
//! kills every process below it ([`tree`]) and exits with the server's status (`128 + N` for
//! a server ended by signal `N`).
//!
//! `SIGTERM`, `SIGINT` and `SIGHUP` are passed on to the server, which may exit as it likes,
//! as it could before there was a guard; its exit ends the rest.
//!
//! The parent's death arrives as `SIGUSR1`, not as one of those: the kernel sends the death
//! signal when the *thread* that started the guard ends, which in a multi-threaded parent need
//! not be the parent's end. So the signal only prompts a look at `getppid()`.
//!
//! The guard is synchronous and single-threaded, waiting for signals with `sigwait`; [`run`]
//! must be called before the process starts any other thread (a thread that does not block
//! the signals would be handed them). The server gets exactly the arguments, environment,
//! working directory and stdio the guard was given: the signals the guard blocks are
//! unblocked for it, and neither the death signal nor the subreaper setting is inherited.

pub(crate) mod tree;

use std::ffi::OsString;
use std::io::Write as _;

use nix::errno::Errno;
use nix::sys::prctl;
use nix::sys::signal::{SigSet, Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::{Pid, getppid};
use process_wrap::std::{CommandWrap, ResetSigmask};

/// The signal that tells the guard its parent (or the thread that started it) has ended.
const PARENT_GONE: Signal = Signal::SIGUSR1;

/// The signals passed on to the server.
const PASSED_ON: [Signal; 3] = [Signal::SIGTERM, Signal::SIGINT, Signal::SIGHUP];

/// The status of a guard that could not start its server, as a shell's for a command it
/// cannot run.
const NOT_STARTED: u8 = 127;

/// What the guard runs, and for whom.
#[derive(Debug, Clone)]
pub struct Guarded {
    /// The process that started the guard; when it ends, so does the server.
    pub parent: u32,
    /// The server's program, looked up in `PATH` as a command's is.
    pub program: OsString,
    pub args: Vec<OsString>,
}

/// Why the guard could not do its work.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GuardError {
    #[error("cannot block signals: {0}")]
    Signals(#[source] Errno),
    #[error("cannot ask for the parent's death signal or become a subreaper: {0}")]
    Prctl(#[source] Errno),
    #[error("could not start `{program}`: {source}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot wait for signals: {0}")]
    Wait(#[source] Errno),
}

/// Runs `guarded` to its end and returns the status to exit with. Call it before any other
/// thread starts. Failures are written to stderr, where Switchboard reads the server's.
pub fn run(guarded: &Guarded) -> u8 {
    match guard(guarded) {
        Ok(status) => status,
        Err(error) => {
            let _ = writeln!(std::io::stderr(), "switchboard guard: {error}");
            NOT_STARTED
        }
    }
}

fn guard(guarded: &Guarded) -> Result<u8, GuardError> {
    let mut signals = SigSet::empty();
    for signal in PASSED_ON.into_iter().chain([PARENT_GONE, Signal::SIGCHLD]) {
        signals.add(signal);
    }
    signals.thread_block().map_err(GuardError::Signals)?;
    prctl::set_pdeathsig(PARENT_GONE).map_err(GuardError::Prctl)?;
    // The parent may have died before the death signal was asked for.
    if parent_gone(guarded.parent) {
        return Ok(signalled(Signal::SIGTERM));
    }
    prctl::set_child_subreaper(true).map_err(GuardError::Prctl)?;
    let mut command = CommandWrap::with_new(&guarded.program, |command| {
        command.args(&guarded.args);
    });
    // A child inherits the signal mask; the server gets the signals the guard waits for.
    command.wrap(ResetSigmask);
    let server = command.spawn().map_err(|source| GuardError::Spawn {
        program: guarded.program.to_string_lossy().into_owned(),
        source,
    })?;
    let status = watch(&signals, server.id(), guarded.parent);
    let left = tree::kill_descendants(std::process::id(), tree::KILL_WAIT, reap_all);
    if !left.is_empty() {
        let _ = writeln!(
            std::io::stderr(),
            "switchboard guard: could not end processes {left:?}"
        );
    }
    status
}

/// Waits until the server exits or the parent is gone; returns the status to exit with.
fn watch(signals: &SigSet, server: u32, parent: u32) -> Result<u8, GuardError> {
    // A pid is below `pid_max` (at most 2^22), so it fits.
    let server_pid = Pid::from_raw(server as i32);
    loop {
        match signals.wait().map_err(GuardError::Wait)? {
            Signal::SIGCHLD => {
                if let Some(status) = reap(Some(server_pid)) {
                    return Ok(status);
                }
            }
            signal if signal == PARENT_GONE => {
                if parent_gone(parent) {
                    return Ok(signalled(Signal::SIGTERM));
                }
            }
            signal => {
                // ESRCH: the server has just exited, which SIGCHLD will say.
                let _ = kill(server_pid, signal);
            }
        }
    }
}

/// Reaps every child that has ended (orphans handed to the guard included); the server's
/// status if it was among them.
fn reap(server: Option<Pid>) -> Option<u8> {
    let mut status = None;
    loop {
        match waitpid(None, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::Exited(pid, code)) if Some(pid) == server => {
                status = Some(u8::try_from(code).unwrap_or(1));
            }
            Ok(WaitStatus::Signaled(pid, signal, _)) if Some(pid) == server => {
                status = Some(signalled(signal));
            }
            Ok(WaitStatus::StillAlive) | Err(Errno::ECHILD) => return status,
            Err(Errno::EINTR) | Ok(_) => {}
            Err(_) => return status,
        }
    }
}

fn reap_all() {
    let _ = reap(None);
}

fn parent_gone(parent: u32) -> bool {
    i32::try_from(parent).map_or(true, |parent| getppid() != Pid::from_raw(parent))
}

/// The status of a process ended by `signal`, as a shell reports it.
fn signalled(signal: Signal) -> u8 {
    128u8.saturating_add(u8::try_from(signal as i32).unwrap_or(0))
}
