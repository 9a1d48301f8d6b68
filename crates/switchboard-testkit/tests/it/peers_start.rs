//! Smoke tests of the launchers: every peer starts, answers, and leaves no process behind.

use std::process::Stdio;
use std::time::Duration;

use process_wrap::tokio::{ChildWrapper, CommandWrap, ProcessGroup};
use serde_json::{Value, json};
use switchboard_testkit::{
    EverythingHttp, HttpPeer, Misbehaving, Peers, PyGen, StdioCommand, process,
};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::net::TcpStream;
use tokio::process::{ChildStdin, ChildStdout};

const ANSWER_TIMEOUT: Duration = Duration::from_secs(20);

/// The status line of `GET path` on 127.0.0.1:port (read only up to its end, so streaming
/// endpoints such as `/sse` work too).
async fn status_line(port: u16, path: &str) -> String {
    let read = async {
        let mut stream = TcpStream::connect(("127.0.0.1", port))
            .await
            .expect("connect");
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\
             Accept: application/json, text/event-stream\r\nConnection: close\r\n\r\n"
        );
        stream
            .write_all(request.as_bytes())
            .await
            .expect("write request");
        let mut line = Vec::new();
        let mut byte = [0u8; 1];
        while !line.ends_with(b"\r\n") && stream.read(&mut byte).await.expect("read") == 1 {
            line.push(byte[0]);
        }
        String::from_utf8_lossy(&line).trim_end().to_owned()
    };
    tokio::time::timeout(ANSWER_TIMEOUT, read)
        .await
        .expect("no HTTP answer in time")
}

async fn answers_then_dies_completely(mut peer: HttpPeer) {
    let (port, url) = (peer.port(), peer.url());
    let path = url
        .rsplit_once(&port.to_string())
        .expect("port in url")
        .1
        .to_owned();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let status = status_line(port, &path).await;
    assert!(
        status.starts_with("HTTP/1.1 "),
        "{url} answered {status:?}; output:\n{}",
        peer.output()
    );

    let pid = peer.pid().expect("running");
    assert_eq!(
        process::pgid_of(pid),
        Some(pid),
        "the peer leads its own process group"
    );
    assert!(process::group_members(pid).contains(&pid));

    peer.kill().await.expect("kill");
    assert!(!process::alive(pid));
    assert!(process::group_members(pid).is_empty());
    assert!(peer.pid().is_none());
    assert!(
        TcpStream::connect(("127.0.0.1", port)).await.is_err(),
        "port {port} still open"
    );
}

#[tokio::test]
async fn everything_streamable_http_starts_and_dies() {
    let peer = Peers::locate()
        .everything_http(EverythingHttp::StreamableHttp)
        .await
        .expect("start");
    assert!(peer.url().ends_with("/mcp"));
    answers_then_dies_completely(peer).await;
}

#[tokio::test]
async fn everything_sse_starts_and_dies() {
    let peer = Peers::locate()
        .everything_http(EverythingHttp::Sse)
        .await
        .expect("start");
    assert!(peer.url().ends_with("/sse"));
    answers_then_dies_completely(peer).await;
}

#[tokio::test]
async fn python_v1_http_starts_and_dies() {
    let peer = Peers::locate().python_http(PyGen::V1).await.expect("start");
    answers_then_dies_completely(peer).await;
}

#[tokio::test]
async fn python_v2_http_starts_and_dies() {
    let peer = Peers::locate().python_http(PyGen::V2).await.expect("start");
    answers_then_dies_completely(peer).await;
}

#[tokio::test]
async fn the_tasks_http_peer_starts_and_dies() {
    let peer = Peers::locate().tasks_http().await.expect("start");
    assert!(peer.url().ends_with("/mcp"));
    answers_then_dies_completely(peer).await;
}

#[tokio::test]
async fn restart_keeps_the_port_and_replaces_the_process() {
    let peers = Peers::locate();
    for mut peer in [
        peers.python_http(PyGen::V2).await.expect("start py2"),
        peers
            .everything_http(EverythingHttp::StreamableHttp)
            .await
            .expect("start everything"),
    ] {
        let (port, url, before) = (peer.port(), peer.url(), peer.pid().expect("running"));
        peer.restart().await.expect("restart");
        assert_eq!((peer.port(), peer.url()), (port, url));
        let after = peer.pid().expect("running again");
        assert_ne!(before, after);
        assert!(!process::alive(before));
        assert!(status_line(port, "/mcp").await.starts_with("HTTP/1.1 "));
        drop(peer);
        let left = process::wait_until_gone(&[after], ANSWER_TIMEOUT).await;
        assert!(left.is_empty(), "dropping the peer left {left:?} alive");
    }
}

/// A stdio server in its own process group, driven line by line.
struct StdioPeer {
    child: Box<dyn ChildWrapper>,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl StdioPeer {
    fn spawn(command: &StdioCommand) -> Self {
        let mut wrap = CommandWrap::from(command.to_tokio());
        wrap.command_mut()
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        wrap.wrap(ProcessGroup::leader());
        let mut child = wrap
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {command}: {e}"));
        let stdin = child.stdin().take().expect("stdin");
        let stdout = BufReader::new(child.stdout().take().expect("stdout")).lines();
        Self {
            child,
            stdin,
            stdout,
        }
    }

    fn pid(&self) -> u32 {
        self.child.id().expect("pid")
    }

    async fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.stdin
            .write_all(line.as_bytes())
            .await
            .expect("write to peer");
    }

    /// The next stdout line, raw.
    async fn line(&mut self) -> String {
        tokio::time::timeout(ANSWER_TIMEOUT, self.stdout.next_line())
            .await
            .expect("no line in time")
            .expect("read stdout")
            .expect("stdout closed")
    }

    /// Skips non-JSON lines and other messages until the response to request `id`.
    async fn response(&mut self, id: u64) -> Value {
        loop {
            if let Ok(message) = serde_json::from_str::<Value>(&self.line().await)
                && message["id"] == json!(id)
                && message.get("method").is_none()
            {
                return message;
            }
        }
    }

    async fn initialize(&mut self) -> Value {
        self.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "peers_start", "version": "0"},
            }}),
        )
        .await;
        let response = self.response(1).await;
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        response
    }

    fn kill_group(mut self) {
        self.child.start_kill().expect("kill the process group");
    }
}

#[tokio::test]
async fn stdio_peers_answer_initialize() {
    let peers = Peers::locate();
    for command in [
        peers.everything_stdio(),
        peers.python_stdio(PyGen::V1),
        peers.python_stdio(PyGen::V2),
        peers.misbehaving(Misbehaving::NoiseThenOk),
    ] {
        let mut peer = StdioPeer::spawn(&command);
        let response = peer.initialize().await;
        assert!(
            response["result"]["serverInfo"]["name"].is_string(),
            "{command}: {response}"
        );
        let pid = peer.pid();
        peer.kill_group();
        assert!(
            process::wait_until_gone(&[pid], ANSWER_TIMEOUT)
                .await
                .is_empty()
        );
    }
}

#[tokio::test]
async fn killing_the_group_ends_the_grandchild() {
    let peers = Peers::locate();
    for generation in [PyGen::V1, PyGen::V2] {
        let mut peer = StdioPeer::spawn(&peers.python_stdio(generation));
        peer.initialize().await;
        peer.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "spawn_child", "arguments": {}}}))
            .await;
        let response = peer.response(2).await;
        let text = response["result"]["content"][0]["text"]
            .as_str()
            .expect("text result");
        let grandchild: u32 = text.parse().expect("a pid");
        let server = peer.pid();
        assert!(process::alive(grandchild));
        assert_eq!(process::pgid_of(grandchild), Some(server));
        assert!(process::descendants(server).contains(&grandchild));

        peer.kill_group();
        let left = process::wait_until_gone(&[server, grandchild], ANSWER_TIMEOUT).await;
        assert!(left.is_empty(), "{generation:?}: still alive: {left:?}");
    }
}

#[tokio::test]
async fn misbehaving_peers_misbehave() {
    let peers = Peers::locate();

    let output = peers
        .misbehaving(Misbehaving::ExitAtOnce)
        .to_tokio()
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run exit_at_once");
    assert_eq!(output.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&output.stderr).contains("exit_at_once"));

    let mut garbage = StdioPeer::spawn(&peers.misbehaving(Misbehaving::GarbageOnly));
    garbage
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .await;
    let line = garbage.line().await;
    assert!(serde_json::from_str::<Value>(&line).is_err(), "{line}");
    garbage.kill_group();
}
