//! What `/proc` says about processes: who is alive, who descends from whom, who shares a
//! process group, and which TCP ports a process listens on.
//!
//! Tests use this to prove that ending a connection leaves no process behind (the design's
//! "no orphan processes, ever"), and the launchers use [`listening_ports`] to learn the port a
//! server bound when it was told to pick any. Linux only, like the rest of the testkit.
//!
//! Zombies count as dead: a killed process whose parent has not reaped it yet has stopped
//! running, and in tests its parent is often not ours to reap.

use std::collections::{BTreeSet, HashMap};
use std::fs;
use std::time::Duration;

/// The fields of `/proc/<pid>/stat` that the helpers here need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stat {
    pid: u32,
    state: char,
    ppid: u32,
    pgrp: u32,
}

impl Stat {
    fn running(&self) -> bool {
        // Z: zombie, X: dead (never normally visible).
        !matches!(self.state, 'Z' | 'X')
    }
}

/// Parses one `/proc/<pid>/stat` line. The command name sits in parentheses and may itself
/// contain spaces and parentheses, so the fixed fields are read after its *last* `)`.
fn parse_stat(line: &str) -> Option<Stat> {
    let (head, tail) = line.rsplit_once(')')?;
    let pid = head.split_once('(')?.0.trim().parse().ok()?;
    let mut fields = tail.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    Some(Stat {
        pid,
        state,
        ppid,
        pgrp,
    })
}

fn stat(pid: u32) -> Option<Stat> {
    parse_stat(&fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// Every process visible in `/proc` (processes that vanish mid-scan are skipped).
fn all_processes() -> Vec<Stat> {
    let Ok(entries) = fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(stat)
        .collect()
}

/// Whether `pid` exists and is not a zombie.
pub fn alive(pid: u32) -> bool {
    stat(pid).is_some_and(|s| s.running())
}

/// The live direct children of `pid`.
pub fn children_of(pid: u32) -> Vec<u32> {
    let mut children: Vec<u32> = all_processes()
        .into_iter()
        .filter(|s| s.ppid == pid && s.running())
        .map(|s| s.pid)
        .collect();
    children.sort_unstable();
    children
}

/// The live direct children of the current (test) process.
pub fn children_of_current() -> Vec<u32> {
    children_of(std::process::id())
}

/// Every live process below `pid` in the process tree (children, grandchildren, ...), not
/// including `pid` itself. A process whose parent died has been re-parented (to init or a
/// subreaper) and is no longer found here: to follow a group of processes through a kill,
/// use [`group_members`] or remember the pids beforehand and ask [`alive`].
pub fn descendants(pid: u32) -> Vec<u32> {
    let mut by_parent: HashMap<u32, Vec<u32>> = HashMap::new();
    for s in all_processes().into_iter().filter(Stat::running) {
        by_parent.entry(s.ppid).or_default().push(s.pid);
    }
    let mut found = BTreeSet::new();
    let mut queue = vec![pid];
    while let Some(parent) = queue.pop() {
        for &child in by_parent
            .get(&parent)
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            if child != pid && found.insert(child) {
                queue.push(child);
            }
        }
    }
    found.into_iter().collect()
}

/// The live members of process group `pgid`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    let mut members: Vec<u32> = all_processes()
        .into_iter()
        .filter(|s| s.pgrp == pgid && s.running())
        .map(|s| s.pid)
        .collect();
    members.sort_unstable();
    members
}

/// The process group of `pid`, if it exists.
pub fn pgid_of(pid: u32) -> Option<u32> {
    stat(pid).map(|s| s.pgrp)
}

/// Polls `/proc` until none of `pids` is alive, for at most `within`. Returns the ones still
/// alive at the end (empty on success). Signals are delivered asynchronously, so a process
/// sent `SIGKILL` may take a moment to be gone; this is the bounded wait for that.
pub async fn wait_until_gone(pids: &[u32], within: Duration) -> Vec<u32> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let left: Vec<u32> = pids.iter().copied().filter(|&p| alive(p)).collect();
        if left.is_empty() || tokio::time::Instant::now() >= deadline {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Polls `/proc` until process group `pgid` has no live member, for at most `within`.
/// Returns the members still alive at the end (empty on success).
pub async fn wait_until_group_gone(pgid: u32, within: Duration) -> Vec<u32> {
    let deadline = tokio::time::Instant::now() + within;
    loop {
        let left = group_members(pgid);
        if left.is_empty() || tokio::time::Instant::now() >= deadline {
            return left;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The TCP ports (IPv4 and IPv6) on which `pid` holds a listening socket, sorted.
///
/// Reads the socket inodes in `/proc/<pid>/fd` and looks them up in the process's own
/// `/proc/<pid>/net/tcp{,6}`. Works for any process of the same user.
pub fn listening_ports(pid: u32) -> Vec<u16> {
    let Ok(fds) = fs::read_dir(format!("/proc/{pid}/fd")) else {
        return Vec::new();
    };
    let inodes: BTreeSet<u64> = fds
        .filter_map(Result::ok)
        .filter_map(|fd| fs::read_link(fd.path()).ok())
        .filter_map(|target| {
            let target = target.to_str()?;
            target
                .strip_prefix("socket:[")?
                .strip_suffix(']')?
                .parse()
                .ok()
        })
        .collect();
    let mut ports = BTreeSet::new();
    for table in ["tcp", "tcp6"] {
        let Ok(text) = fs::read_to_string(format!("/proc/{pid}/net/{table}")) else {
            continue;
        };
        ports.extend(
            text.lines()
                .skip(1)
                .filter_map(parse_tcp_listener)
                .filter(|(_, inode)| inodes.contains(inode))
                .map(|(port, _)| port),
        );
    }
    ports.into_iter().collect()
}

/// `(local port, inode)` of one `/proc/net/tcp{,6}` row, if that row is a listening socket.
fn parse_tcp_listener(row: &str) -> Option<(u16, u64)> {
    const LISTEN: &str = "0A";
    let fields: Vec<&str> = row.split_whitespace().collect();
    let local = fields.get(1)?;
    if *fields.get(3)? != LISTEN {
        return None;
    }
    let port = u16::from_str_radix(local.rsplit_once(':')?.1, 16).ok()?;
    let inode = fields.get(9)?.parse().ok()?;
    Some((port, inode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_survives_odd_command_names() {
        let line = "4242 (we ird) (name)) S 17 4242 4242 0 -1 4194560 0 0";
        assert_eq!(
            parse_stat(line),
            Some(Stat {
                pid: 4242,
                state: 'S',
                ppid: 17,
                pgrp: 4242
            })
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn tcp_rows_yield_listeners_only() {
        let listen = "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 123456 1 0000000000000000 100 0 0 10 0";
        let established = "   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 654321 1 0000000000000000 20 4 30 10 -1";
        assert_eq!(parse_tcp_listener(listen), Some((8080, 123_456)));
        assert_eq!(parse_tcp_listener(established), None);
    }

    #[test]
    fn the_current_process_is_alive_and_sees_its_own_listener() {
        let me = std::process::id();
        assert!(alive(me));
        assert_eq!(
            pgid_of(me).map(|g| group_members(g).contains(&me)),
            Some(true)
        );
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("local addr").port();
        assert!(listening_ports(me).contains(&port));
    }

    #[test]
    fn children_and_descendants_are_found() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn sleep");
        assert!(children_of_current().contains(&child.id()));
        assert!(descendants(std::process::id()).contains(&child.id()));
        child.kill().expect("kill");
        child.wait().expect("wait");
        assert!(!alive(child.id()));
    }
}
