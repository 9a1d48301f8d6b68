//! `switchboard node` as a child process: started on a free port of 127.0.0.1 (or a given
//! one, to restart it where it was), its address read from its one stderr line `switchboard
//! node is listening on URL`, killed with SIGKILL or ended with SIGTERM; and the `[nodes.NAME]`
//! section that points a host at it.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};

use super::certs::Certs;
use super::{BIN, Run};

const LISTENING: &str = "switchboard node is listening on ";

/// How to start a node.
#[derive(Clone)]
pub struct NodeLaunch {
    pub token: String,
    /// Serve TLS with the node certificate of these certs.
    pub tls: bool,
    /// Require client certificates signed by the test CA.
    pub mtls: bool,
    /// Extra arguments after `node`.
    pub extra: Vec<String>,
    certs: Option<Arc<Certs>>,
}

impl NodeLaunch {
    /// A plaintext node on loopback with this token.
    pub fn plaintext(token: &str) -> NodeLaunch {
        NodeLaunch {
            token: token.to_owned(),
            tls: false,
            mtls: false,
            extra: Vec::new(),
            certs: None,
        }
    }

    /// A TLS node with the node certificate of `certs`.
    pub fn tls(token: &str, certs: &Arc<Certs>) -> NodeLaunch {
        NodeLaunch {
            tls: true,
            certs: Some(Arc::clone(certs)),
            ..NodeLaunch::plaintext(token)
        }
    }

    /// A TLS node that requires a client certificate signed by the CA of `certs`.
    pub fn mtls(token: &str, certs: &Arc<Certs>) -> NodeLaunch {
        NodeLaunch {
            mtls: true,
            ..NodeLaunch::tls(token, certs)
        }
    }

    pub fn arg(mut self, arg: &str) -> NodeLaunch {
        self.extra.push(arg.to_owned());
        self
    }

    fn command(&self, data_dir: &Path, listen: &str) -> Command {
        let mut command = Command::new(BIN);
        command
            .arg("--data-dir")
            .arg(data_dir)
            .args(["node", "--listen", listen])
            .env("SWITCHBOARD_NODE_TOKEN", &self.token)
            .env_remove("SWITCHBOARD_DATA_DIR")
            .env_remove("DATABASE_URL")
            .env_remove("SWITCHBOARD_SECRET_KEY")
            .env_remove("RUST_LOG");
        if let Some(certs) = self.certs.as_ref().filter(|_| self.tls) {
            command
                .arg("--tls-cert")
                .arg(&certs.node_cert)
                .arg("--tls-key")
                .arg(&certs.node_key);
            if self.mtls {
                command.arg("--client-ca").arg(&certs.ca);
            }
        }
        command.args(&self.extra);
        command
    }

    /// Runs `switchboard node --listen LISTEN` to its end (for the refusals at start).
    pub fn run_to_exit(&self, listen: &str) -> Run {
        let dir = tempfile::tempdir().unwrap();
        let output = self
            .command(dir.path(), listen)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        Run {
            success: output.status.success(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }
}

/// A running node (or one that was killed and may be restarted on its port).
pub struct NodeProc {
    launch: NodeLaunch,
    child: Option<Child>,
    /// `http://127.0.0.1:PORT` or `https://…`, as the node printed it.
    pub url: String,
    pub port: u16,
    /// Everything the node wrote on stderr, across restarts.
    pub stderr: Arc<Mutex<String>>,
    data_dir: tempfile::TempDir,
}

impl NodeProc {
    /// Starts a node on a free port of 127.0.0.1.
    pub fn start(launch: NodeLaunch) -> NodeProc {
        let data_dir = tempfile::tempdir().unwrap();
        let stderr = Arc::new(Mutex::new(String::new()));
        let (child, url) = spawn(&launch, data_dir.path(), "127.0.0.1:0", &stderr);
        let port = port_of(&url);
        NodeProc {
            launch,
            child: Some(child),
            url,
            port,
            stderr,
            data_dir,
        }
    }

    /// The node's pid (panics when it is not running).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("the node runs").id()
    }

    /// The node's data directory (where its `switchboard.toml` would be read from).
    pub fn data_dir(&self) -> &Path {
        self.data_dir.path()
    }

    /// SIGKILL: the node ends at once, leaving its servers' processes to be found orphaned.
    pub fn kill(&mut self) {
        let mut child = self.child.take().expect("the node runs");
        signal(&child, nix::sys::signal::Signal::SIGKILL);
        child.wait().unwrap();
    }

    /// SIGTERM, then waits for the exit.
    pub fn terminate(&mut self) -> ExitStatus {
        let mut child = self.child.take().expect("the node runs");
        signal(&child, nix::sys::signal::Signal::SIGTERM);
        child.wait().unwrap()
    }

    /// Starts the node again on the port it had.
    pub fn restart(&mut self) {
        assert!(self.child.is_none(), "the node still runs");
        let listen = format!("127.0.0.1:{}", self.port);
        let (child, url) = spawn(&self.launch, self.data_dir.path(), &listen, &self.stderr);
        assert_eq!(port_of(&url), self.port, "{url}");
        self.child = Some(child);
        self.url = url;
    }

    /// The `[nodes.NAME]` section pointing at this node with its own token (written into
    /// `dir`) and, for a TLS node, the test CA.
    pub fn section(&self, name: &str, dir: &Path) -> NodeSection {
        NodeSection::new(name, &self.url, &self.launch.token, dir)
            .with_ca(self.launch.certs.as_ref().map(|c| c.ca.clone()))
    }
}

impl Drop for NodeProc {
    fn drop(&mut self) {
        // SIGTERM, so the node ends its servers' process groups too.
        if let Some(mut child) = self.child.take() {
            signal(&child, nix::sys::signal::Signal::SIGTERM);
            let _ = child.wait();
        }
    }
}

fn signal(child: &Child, signal: nix::sys::signal::Signal) {
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(child.id()).unwrap()),
        signal,
    )
    .unwrap();
}

fn port_of(url: &str) -> u16 {
    url.rsplit_once(':')
        .unwrap()
        .1
        .trim_end_matches('/')
        .parse()
        .unwrap()
}

/// Spawns the node and reads its stderr up to the listening line; the rest of stderr keeps
/// being drained into `log`.
fn spawn(
    launch: &NodeLaunch,
    data_dir: &Path,
    listen: &str,
    log: &Arc<Mutex<String>>,
) -> (Child, String) {
    let mut child = launch
        .command(data_dir, listen)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    let url = loop {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap() == 0 {
            let _ = child.wait();
            panic!(
                "the node ended before listening: {}{line}",
                log.lock().unwrap()
            );
        }
        log.lock().unwrap().push_str(&line);
        if let Some(url) = line.trim().strip_prefix(LISTENING) {
            break url.to_owned();
        }
    };
    let log = Arc::clone(log);
    std::thread::spawn(move || {
        for line in stderr.lines() {
            let Ok(line) = line else { break };
            let mut log = log.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    (child, url)
}

/// One `[nodes.NAME]` section of a host's settings file.
#[derive(Clone, Debug)]
pub struct NodeSection {
    pub name: String,
    pub url: String,
    pub token_file: PathBuf,
    pub ca: Option<PathBuf>,
    pub client: Option<(PathBuf, PathBuf)>,
}

impl NodeSection {
    /// A section for `url` whose token is written to a file in `dir`.
    pub fn new(name: &str, url: &str, token: &str, dir: &Path) -> NodeSection {
        let token_file = dir.join(format!("{name}.token"));
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(&token_file, format!("{token}\n")).unwrap();
        NodeSection {
            name: name.to_owned(),
            url: url.to_owned(),
            token_file,
            ca: None,
            client: None,
        }
    }

    pub fn with_ca(mut self, ca: Option<PathBuf>) -> NodeSection {
        self.ca = ca;
        self
    }

    pub fn with_url(mut self, url: &str) -> NodeSection {
        self.url = url.to_owned();
        self
    }

    pub fn with_client(mut self, certs: &Certs) -> NodeSection {
        self.client = Some((certs.client_cert.clone(), certs.client_key.clone()));
        self
    }

    /// The TOML text of the section.
    pub fn toml(&self) -> String {
        let quoted = |path: &Path| toml_string(&path.to_string_lossy());
        let mut text = format!(
            "[nodes.{}]\nurl = {}\ntoken_file = {}\n",
            self.name,
            toml_string(&self.url),
            quoted(&self.token_file)
        );
        if let Some(ca) = &self.ca {
            text.push_str(&format!("ca = {}\n", quoted(ca)));
        }
        if let Some((cert, key)) = &self.client {
            text.push_str(&format!(
                "client_cert = {}\nclient_key = {}\n",
                quoted(cert),
                quoted(key)
            ));
        }
        text
    }
}

fn toml_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// Writes `<data dir>/switchboard.toml` with these node sections (and `extra` TOML before
/// them), so `serve` and the CLI commands of that data directory know the nodes.
pub fn write_settings(data_dir: &Path, extra: &str, nodes: &[NodeSection]) {
    std::fs::create_dir_all(data_dir).unwrap();
    let mut text = extra.to_owned();
    for node in nodes {
        text.push('\n');
        text.push_str(&node.toml());
    }
    std::fs::write(data_dir.join("switchboard.toml"), text).unwrap();
}

/// The live processes below `pid` whose command line contains `needle`; not the guards that
/// run stdio servers (`switchboard guard ... -- PROGRAM ARGS`), whose command lines hold their
/// servers'.
pub fn descendants_running(pid: u32, needle: &str) -> Vec<u32> {
    switchboard_testkit::process::descendants(pid)
        .into_iter()
        .filter(|&child| {
            let args = arguments(child);
            args.get(1).map(String::as_str) != Some("guard")
                && args.iter().any(|arg| arg.contains(needle))
        })
        .collect()
}

/// The command line of `pid`, one argument an item (empty once it is gone).
fn arguments(pid: u32) -> Vec<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .map(|cmdline| {
            cmdline
                .split(|byte| *byte == 0)
                .filter(|arg| !arg.is_empty())
                .map(|arg| String::from_utf8_lossy(arg).into_owned())
                .collect()
        })
        .unwrap_or_default()
}
