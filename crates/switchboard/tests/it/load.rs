//! Many conversations at once against `serve`: each turn a tool call through the
//! one stdio server every conversation shares, then the answer, the model streaming from the
//! scripted server. Every turn must complete with its own words (no cross-talk), with one
//! server process; the time to the first event of each turn is printed, with its percentiles.
//!
//! The suite runs it bounded (`LOAD_CONVERSATIONS`, default 200, × `LOAD_TURNS`, default 1);
//! the long run, with its figures in BENCHMARKS.md, is
//!
//! ```sh
//! LOAD_BIN=target/release/switchboard LOAD_CONVERSATIONS=200 LOAD_TURNS=10 \
//!     cargo test -p switchboard --test load -- --nocapture many
//! ```
//!
//! (`LOAD_BIN` runs that binary as `serve`; the test's own side stays a debug build.)

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::{Duration, Instant};

use common::BIN;
use common::Switchboard;
use common::node::descendants_running;
use common::rest::{add_provider, auto_approve, send};
use common::serve::{Served, serve, serve_program, terminate};
use futures::future::join_all;
use reqwest::Method;
use serde_json::{Value, json};
use switchboard_testkit::{ScriptedLlm, Turn};

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

/// The model: a question is answered with a call of the demo server's `echo` with the
/// question's words; the tool's result with "Echoed: " and the result.
fn model(request: &Value) -> Turn {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let last = messages.last().cloned().unwrap_or(Value::Null);
    if last["role"] == "tool" {
        Turn::text(format!("Echoed: {}", text_of(&last["content"])))
    } else {
        Turn::tool_call(
            "mcp__demo__echo",
            json!({"text": text_of(&last["content"])}),
        )
    }
}

/// A message's text, whether its content is a string or a list of parts.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    }
}

/// Sends `text` in `conversation` and reads the turn's events; the time to the first event,
/// and the answer.
async fn turn(served: &Served, conversation: &str, text: &str) -> (Duration, String) {
    let started = Instant::now();
    let mut request = reqwest::Client::new()
        .post(format!(
            "{}/api/conversations/{conversation}/messages",
            served.base
        ))
        .header("accept", "text/event-stream")
        .json(&json!({"content": text}));
    if let Some(token) = &served.token {
        request = request.bearer_auth(token);
    }
    let mut response = request.send().await.unwrap();
    assert_eq!(response.status(), 200, "{text}");
    let mut first = None;
    let mut seen = String::new();
    while let Some(chunk) = response.chunk().await.unwrap() {
        if first.is_none() {
            first = Some(started.elapsed());
        }
        seen.push_str(&String::from_utf8_lossy(&chunk));
        if seen.contains("event: run.failed") {
            panic!("{text}: the run failed: {seen}");
        }
        if let Some(at) = seen.find("event: message.completed") {
            let data = seen[at..].lines().find_map(|l| l.strip_prefix("data: "));
            if let Some(data) = data {
                let completed: Value = serde_json::from_str(data).unwrap();
                let content = completed["content"].as_str().unwrap().to_owned();
                return (first.unwrap(), content);
            }
        }
    }
    panic!("{text}: the stream ended before the answer: {seen}");
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[at]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_conversations_with_tool_calls_at_once_each_get_their_own_answers() {
    let conversations = setting("LOAD_CONVERSATIONS", 200);
    let turns = setting("LOAD_TURNS", 1);
    let llm = ScriptedLlm::responding(model).await;
    let sb = Switchboard::new();
    let many = (conversations * 4).max(1000).to_string();
    let program = std::env::var("LOAD_BIN").unwrap_or_else(|_| BIN.to_owned());
    let mut served = serve_program(
        &program,
        &sb,
        &[
            "--single-user",
            "--max-runs",
            &many,
            "--max-event-streams",
            &many,
            "--max-connections",
            &many,
            "--write-burst",
            "1000000",
            "--write-interval",
            "1ms",
        ],
        &[],
    );
    let provider = add_provider(&served, &llm).await;
    auto_approve(&served, "demo", "echo").await;
    let (status, assistant) = send(
        &served,
        Method::POST,
        "/api/assistants",
        Some(json!({"name": "Echoer", "providerId": provider["id"], "toolMode": "native"})),
    )
    .await;
    assert_eq!(status, 201, "{assistant}");
    let (status, _) = send(
        &served,
        Method::PUT,
        &format!(
            "/api/assistants/{}/mcp-servers",
            assistant["id"].as_str().unwrap()
        ),
        Some(json!({"serverIds": ["demo"]})),
    )
    .await;
    assert_eq!(status, 200);
    let mut ids = Vec::new();
    for n in 0..conversations {
        let (status, conversation) = send(
            &served,
            Method::POST,
            "/api/conversations",
            Some(json!({"title": format!("c{n}"), "assistantId": assistant["id"]})),
        )
        .await;
        assert_eq!(status, 201, "{conversation}");
        ids.push(conversation["id"].as_str().unwrap().to_owned());
    }

    let cpu_before = cpu_ms(served.child.id());
    let started = Instant::now();
    let runs = ids.iter().enumerate().map(|(n, id)| {
        let served = &served;
        async move {
            let mut firsts = Vec::new();
            for t in 0..turns {
                let words = format!("conversation {n} turn {t}");
                let (first, answer) = turn(served, id, &words).await;
                assert!(answer.contains(&words), "{words}: {answer}");
                firsts.push(first);
            }
            firsts
        }
    });
    let mut firsts: Vec<Duration> = join_all(runs).await.into_iter().flatten().collect();
    let elapsed = started.elapsed();
    firsts.sort();
    assert_eq!(firsts.len(), conversations * turns);
    eprintln!(
        "{} turns ({conversations} conversations x {turns}) with a tool call each in {elapsed:?}: \
         time to first event p50 {:?}, p99 {:?}, max {:?}",
        firsts.len(),
        percentile(&firsts, 0.5),
        percentile(&firsts, 0.99),
        firsts[firsts.len() - 1],
    );
    let servers = descendants_running(served.child.id(), "demo-server");
    assert_eq!(servers.len(), 1, "one server process for all: {servers:?}");
    let cpu = cpu_ms(served.child.id()) - cpu_before;
    eprintln!(
        "serve's CPU: {cpu} ms in all, {:.2} ms per turn; its RSS after the load: {} MB",
        cpu as f64 / firsts.len() as f64,
        rss_mb(served.child.id())
    );
    assert!(terminate(&mut served).success());
}

/// The CPU time `pid` has used, user and system, in ms (from clock ticks of 10 ms).
fn cpu_ms(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command, which is in parentheses and may hold spaces.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap();
    ticks * 10
}

/// The resident memory of `pid`, in MB.
fn rss_mb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .unwrap()
        / 1024
}

/// One person with a thousand servers: the list is whole, a search finds what it should, and
/// listing it again and again does not grow the process.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_servers_of_one_person_are_listed_and_searched_in_bounded_memory() {
    let sb = Switchboard::new();
    let mut served = serve(
        &sb,
        &[
            "--single-user",
            "--max-servers",
            "1000",
            "--write-burst",
            "1000000",
            "--write-interval",
            "1ms",
        ],
    );
    let pid = served.child.id();
    let servers: serde_json::Map<String, Value> = (1..1000)
        .map(|n| (format!("s{n}"), json!({"url": "http://127.0.0.1:9/mcp"})))
        .collect();
    let text = json!({"mcpServers": servers}).to_string();
    let (status, imported) = send(
        &served,
        Method::POST,
        "/api/import/mcp-servers",
        Some(json!({"text": text})),
    )
    .await;
    assert_eq!(status, 200, "{imported}");
    assert_eq!(imported["imported"].as_array().unwrap().len(), 999);
    let after_import = rss_mb(pid);

    for _ in 0..20 {
        let (status, listed) = send(&served, Method::GET, "/api/mcp-servers", None).await;
        assert_eq!(status, 200);
        assert_eq!(listed.as_array().unwrap().len(), 1000);
    }
    let (status, found) = send(&served, Method::GET, "/api/mcp-servers?q=S42", None).await;
    assert_eq!(status, 200, "{found}");
    let mut ids: Vec<&str> = found
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    let mut expected = vec!["s42".to_owned()];
    expected.extend((420..430).map(|n| format!("s{n}")));
    expected.sort_unstable();
    assert_eq!(ids, expected);
    let (_, none) = send(&served, Method::GET, "/api/mcp-servers?q=s42+demo", None).await;
    assert_eq!(none, json!([]));

    let after_lists = rss_mb(pid);
    eprintln!(
        "RSS with 1,000 servers: {after_import} MB after the import, {after_lists} MB after 20 listings"
    );
    // Each listing's memory is given back: a generous bound, far below 20 copies.
    assert!(
        after_lists < after_import + 64,
        "{after_import} MB -> {after_lists} MB"
    );
    assert!(terminate(&mut served).success());
}
