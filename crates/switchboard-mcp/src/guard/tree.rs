//! The processes below a given one, read from `/proc`, and ending them all.
//!
//! Both ends of a stdio server use this: the [guard](super) ends whatever its server left
//! behind, and the side that started the server ends what lies below it (a grandchild that
//! called `setsid` is outside the server's process group) before it ends the group. Ending
//! the processes below a process before the process itself matters: once a process is gone,
//! its orphans are handed to the nearest subreaper or to init, and no walk finds them again.
//!
//! Zombies count as gone: they no longer run, and their parent reaps them.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

/// How long a kill may take to show, at most, before the walk gives up on the stragglers.
pub(crate) const KILL_WAIT: Duration = Duration::from_secs(5);

/// What a walk needs of one `/proc/<pid>/stat` line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    pid: u32,
    ppid: u32,
    running: bool,
}

/// Parses one `/proc/<pid>/stat` line. The command name sits in parentheses and may itself
/// hold spaces and parentheses, so the fields are read after its *last* `)`.
fn parse_stat(line: &str) -> Option<Stat> {
    let (head, tail) = line.rsplit_once(')')?;
    let pid = head.split_once('(')?.0.trim().parse().ok()?;
    let mut fields = tail.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some(Stat {
        pid,
        ppid,
        // Z: a zombie; X (x on old kernels): dead.
        running: !matches!(state, 'Z' | 'X' | 'x'),
    })
}

fn stat(pid: u32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every running process in `/proc` (one that ends during the scan is skipped).
fn running_processes() -> Vec<Stat> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(stat)
        .filter(|stat| stat.running)
        .collect()
}

/// The processes of `processes` below `root` (children, their children, ...), not `root`.
fn below(root: u32, processes: &[Stat]) -> Vec<u32> {
    let mut children: HashMap<u32, Vec<u32>> = HashMap::new();
    for process in processes {
        children.entry(process.ppid).or_default().push(process.pid);
    }
    let mut found = Vec::new();
    let mut queue = vec![root];
    while let Some(parent) = queue.pop() {
        for &child in children.get(&parent).into_iter().flatten() {
            if child != root && !found.contains(&child) {
                found.push(child);
                queue.push(child);
            }
        }
    }
    found
}

/// The running processes below `root`, not including it.
pub(crate) fn descendants(root: u32) -> Vec<u32> {
    below(root, &running_processes())
}

/// Whether `pid` is a running child of this process. A pid this process no longer holds
/// (its child exited and was reaped) may have been given to some other process since.
pub(crate) fn is_running_child(pid: u32) -> bool {
    stat(pid).is_some_and(|stat| stat.running && stat.ppid == std::process::id())
}

/// Sends `SIGKILL` to every process below `root`, again until none runs, for at most
/// `within`; `settle` runs between rounds (the guard reaps its children there). Returns the
/// processes still running at the end: those that may not be signalled (a setuid program),
/// or that had not died when the time was up.
pub(crate) fn kill_descendants(root: u32, within: Duration, mut settle: impl FnMut()) -> Vec<u32> {
    let deadline = Instant::now() + within;
    loop {
        let mut refused = Vec::new();
        let mut signalled = false;
        for pid in descendants(root) {
            let Ok(raw) = i32::try_from(pid) else {
                continue;
            };
            match kill(Pid::from_raw(raw), Signal::SIGKILL) {
                Ok(()) => signalled = true,
                // Ended between the walk and the kill.
                Err(Errno::ESRCH) => {}
                Err(_) => refused.push(pid),
            }
        }
        if !signalled {
            return refused;
        }
        if Instant::now() >= deadline {
            return descendants(root);
        }
        settle();
        // A killed process still shows as running until it has been scheduled to die.
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running(pid: u32, ppid: u32) -> Stat {
        Stat {
            pid,
            ppid,
            running: true,
        }
    }

    #[test]
    fn stat_survives_odd_command_names_and_knows_zombies() {
        let line = "4242 (we ird) (name)) S 17 4242 4242 0 -1 4194560 0 0";
        assert_eq!(parse_stat(line), Some(running(4242, 17)));
        let zombie = "77 (sleep) Z 4242 77 77 0 -1";
        assert_eq!(
            parse_stat(zombie),
            Some(Stat {
                pid: 77,
                ppid: 4242,
                running: false
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn the_walk_follows_every_branch_and_nothing_else() {
        let processes = [
            running(1, 0),
            running(10, 1),
            running(11, 10),
            running(12, 10),
            running(13, 12),
            running(20, 1),
            running(21, 20),
        ];
        let mut found = below(10, &processes);
        found.sort_unstable();
        assert_eq!(found, vec![11, 12, 13]);
        assert!(below(13, &processes).is_empty());
        assert!(below(99, &processes).is_empty());
    }

    #[test]
    fn a_child_and_its_child_are_found_and_killed() {
        // `sh` waits for `sleep`, so the tree is two deep.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 1000; true"])
            .spawn()
            .expect("spawn sh");
        let deadline = Instant::now() + KILL_WAIT;
        while descendants(child.id()).is_empty() && Instant::now() < deadline {
            std::thread::yield_now();
        }
        let found = descendants(std::process::id());
        assert!(found.contains(&child.id()), "{found:?}");
        assert!(is_running_child(child.id()));
        let sleeper = descendants(child.id());
        assert_eq!(sleeper.len(), 1, "{sleeper:?}");

        let left = kill_descendants(child.id(), KILL_WAIT, || {});
        assert!(left.is_empty(), "{left:?}");
        assert!(stat(sleeper[0]).is_none_or(|stat| !stat.running));
        // `sh` saw its child die and ends on its own.
        child.wait().expect("wait for sh");
        assert!(!is_running_child(child.id()));
    }
}
