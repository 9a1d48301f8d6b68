//! Whether the program a stdio server starts with is on this machine, asked before anyone
//! starts it: the catalogue says which entries cannot run here (no `npx`, no `uvx`) before
//! Set up is clicked, and `servers add` warns about a command it will not find.
//!
//! The program is looked up as the start will look it up ([`switchboard_mcp::find_program`],
//! execvp's rules): in the server's own `PATH` when its `env` sets one, else in the `PATH`
//! this application was given, which is the one its stdio servers inherit. Installing Node.js
//! while `serve` runs is seen within a minute: answers are kept that long, so a catalogue
//! page costs a handful of `stat` calls at most once a minute, however often it is loaded.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use switchboard_core::catalogue::{Entry, Launch};
use switchboard_core::{MissingProgram, ServerSpec, TransportKind};

/// How long an answer is kept.
const FRESH_FOR: Duration = Duration::from_secs(60);

/// The most answers kept; past it the oldest are forgotten (a command line typed by hand
/// may name any program, and each is asked about once).
const MAX_KEPT: usize = 256;

/// Where a program is looked for: its name, the `PATH`, the working directory.
type Lookup = (String, Option<OsString>, Option<PathBuf>);

/// Answers whether programs can be found, each answer kept for a minute.
#[derive(Debug)]
pub struct Launchers {
    /// The `PATH` stdio servers inherit (`None`: execvp's default, `/bin:/usr/bin`).
    path: Option<OsString>,
    found: Mutex<HashMap<Lookup, (Instant, bool)>>,
}

impl Launchers {
    pub fn new(path: Option<OsString>) -> Self {
        Self {
            path,
            found: Mutex::new(HashMap::new()),
        }
    }

    /// The program `spec` starts with, when it would not be found: `None` for an HTTP
    /// server, a server on a node (whose `PATH` is the node's) and a program that is there.
    pub fn missing(&self, spec: &ServerSpec) -> Option<MissingProgram> {
        if spec.transport != TransportKind::Stdio || spec.node.is_some() {
            return None;
        }
        let command = spec.command.as_deref()?;
        self.missing_program(command, spec.env.get("PATH"), spec.cwd.clone())
    }

    /// The launcher a catalogue entry starts its server with, when it is missing here.
    pub fn missing_for_entry(&self, entry: &Entry) -> Option<MissingProgram> {
        match &entry.launch {
            Launch::Process(process) => {
                self.missing_program(&process.command, process.env.get("PATH"), None)
            }
            Launch::Remote(_) => None,
        }
    }

    fn missing_program(
        &self,
        command: &str,
        own_path: Option<&String>,
        cwd: Option<PathBuf>,
    ) -> Option<MissingProgram> {
        let path = own_path.map(OsString::from).or_else(|| self.path.clone());
        let lookup = (command.to_owned(), path, cwd);
        let now = Instant::now();
        if let Some(found) = self.kept(&lookup, now) {
            return (!found).then(|| MissingProgram::new(command));
        }
        let found =
            switchboard_mcp::find_program(command, lookup.1.as_deref(), lookup.2.as_deref())
                .is_ok();
        self.keep(lookup, now, found);
        (!found).then(|| MissingProgram::new(command))
    }

    fn kept(&self, lookup: &Lookup, now: Instant) -> Option<bool> {
        let found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        found
            .get(lookup)
            .filter(|(at, _)| now.duration_since(*at) < FRESH_FOR)
            .map(|(_, found)| *found)
    }

    fn keep(&self, lookup: Lookup, now: Instant, answer: bool) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        if found.len() >= MAX_KEPT {
            found.retain(|_, (at, _)| now.duration_since(*at) < FRESH_FOR);
        }
        if found.len() < MAX_KEPT {
            found.insert(lookup, (now, answer));
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use switchboard_core::Launcher;
    use switchboard_core::catalogue::Catalogue;

    use super::*;

    fn folder_with(programs: &[&str]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("temp dir");
        for program in programs {
            let file = dir.path().join(program);
            std::fs::write(&file, "#!/bin/sh\n").expect("write");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        dir
    }

    #[test]
    fn a_missing_launcher_is_named_with_what_provides_it() {
        let dir = folder_with(&["uvx"]);
        let launchers = Launchers::new(Some(dir.path().as_os_str().to_owned()));
        let catalogue = Catalogue::embedded().expect("catalogue");
        let npx = catalogue
            .entries()
            .iter()
            .find(|e| matches!(&e.launch, Launch::Process(p) if p.command == "npx"))
            .expect("an npx entry");
        let uvx = catalogue
            .entries()
            .iter()
            .find(|e| matches!(&e.launch, Launch::Process(p) if p.command == "uvx"))
            .expect("a uvx entry");
        let missing = launchers.missing_for_entry(npx).expect("npx is missing");
        assert_eq!(missing.launcher(), Launcher::Node);
        assert_eq!(launchers.missing_for_entry(uvx), None);
        let remote = catalogue
            .entries()
            .iter()
            .find(|e| matches!(e.launch, Launch::Remote(_)))
            .expect("a remote entry");
        assert_eq!(launchers.missing_for_entry(remote), None);
    }

    #[test]
    fn a_server_is_looked_up_in_its_own_path_and_only_on_this_machine() {
        let dir = folder_with(&["my-server"]);
        let launchers = Launchers::new(Some(OsString::from("/nowhere")));
        let spec = ServerSpec::stdio("s", "my-server", Vec::<String>::new());
        assert_eq!(
            launchers.missing(&spec),
            Some(MissingProgram::new("my-server"))
        );
        let own = spec
            .clone()
            .with_env("PATH", dir.path().to_str().expect("utf-8"));
        assert_eq!(launchers.missing(&own), None);
        let mut on_node = spec.clone();
        on_node.node = Some("build-box".into());
        assert_eq!(launchers.missing(&on_node), None);
        let http = ServerSpec::http("h", "https://h.example/mcp", None);
        assert_eq!(launchers.missing(&http), None);
    }

    #[test]
    fn answers_are_kept_for_a_while() {
        let dir = folder_with(&[]);
        let launchers = Launchers::new(Some(dir.path().as_os_str().to_owned()));
        let spec = ServerSpec::stdio("s", "late", Vec::<String>::new());
        assert!(launchers.missing(&spec).is_some());
        // Installed after the first answer: the kept answer stands until it is a minute old.
        let file = dir.path().join("late");
        std::fs::write(&file, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert!(launchers.missing(&spec).is_some());
        let fresh = Launchers::new(Some(dir.path().as_os_str().to_owned()));
        assert!(fresh.missing(&spec).is_none());
    }
}
