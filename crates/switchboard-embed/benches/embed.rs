//! The in-process embedding model's figures (BENCHMARKS.md "Embeddings"): how long loading
//! takes, the memory the loaded model holds, and how long 1,000 short tool texts take to
//! embed.
//!
//! ```sh
//! cargo bench -p switchboard-embed --bench embed
//! ```
//!
//! The model is all-MiniLM-L6-v2 from the test peers (`scripts/test.sh --install-only`), or the
//! directory `SWITCHBOARD_EMBEDDING_MODEL_DIR` names. Times are wall-clock on this machine,
//! with the default threads (one per core); each pass over the 1,000 texts is timed on its own
//! after one warm-up pass, and the median of five is reported.

// A benchmark's binary: it prints, and a failure is a panic with the reason.
#![allow(clippy::unwrap_used, clippy::print_stdout)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

use switchboard_embed::LocalModel;

const TEXTS: usize = 1000;
const RUNS: usize = 5;

fn main() {
    let dir = model_dir();
    let before = memory("VmRSS");
    let started = Instant::now();
    let model = LocalModel::load(&dir).unwrap();
    let load = started.elapsed();
    let loaded = memory("VmRSS");
    println!("model        {} ({} dims)", dir.display(), model.dims());
    println!("load         {:.0} ms", ms(load));
    println!(
        "memory       {:.0} MiB resident after loading ({:.0} MiB before)",
        mib(loaded),
        mib(before)
    );

    let texts = tool_texts();
    let words: usize = texts.iter().map(|t| t.split_whitespace().count()).sum();
    println!(
        "texts        {} tool texts, {:.1} words each on average",
        texts.len(),
        words as f64 / texts.len() as f64
    );
    model.embed_blocking(&texts).unwrap();
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let started = Instant::now();
            let vectors = model.embed_blocking(&texts).unwrap();
            assert_eq!(vectors.len(), texts.len());
            started.elapsed()
        })
        .collect();
    times.sort();
    let median = times[RUNS / 2];
    println!(
        "embed 1,000  median {:.0} ms (min {:.0}, max {:.0}) = {:.2} ms a text, {:.0} texts/s",
        ms(median),
        ms(times[0]),
        ms(times[RUNS - 1]),
        ms(median) / TEXTS as f64,
        TEXTS as f64 / median.as_secs_f64()
    );
    println!(
        "memory       {:.0} MiB resident at most (VmHWM), {:.0} MiB now",
        mib(memory("VmHWM")),
        mib(memory("VmRSS"))
    );
}

fn model_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("SWITCHBOARD_EMBEDDING_MODEL_DIR") {
        return PathBuf::from(dir);
    }
    let peers = match std::env::var_os("SWITCHBOARD_PEERS") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.peers"),
    };
    peers.join("embedding/all-MiniLM-L6-v2")
}

/// 1,000 distinct texts shaped like a tool's indexed text: its exported name, then its
/// description and parameters.
fn tool_texts() -> Vec<String> {
    const SERVERS: [&str; 10] = [
        "github",
        "gitlab",
        "jira",
        "slack",
        "postgres",
        "filesystem",
        "playwright",
        "notion",
        "linear",
        "sentry",
    ];
    const VERBS: [(&str, &str); 10] = [
        ("create", "Create a new"),
        ("get", "Get the details of a"),
        ("list", "List every"),
        ("update", "Update an existing"),
        ("delete", "Delete a"),
        ("search", "Search for a"),
        ("close", "Close an open"),
        ("assign", "Assign a person to a"),
        ("comment_on", "Add a comment to a"),
        ("export", "Export a"),
    ];
    const THINGS: [&str; 10] = [
        "issue",
        "pull_request",
        "branch",
        "file",
        "page",
        "table",
        "message",
        "project",
        "release",
        "user",
    ];
    let mut texts = Vec::with_capacity(TEXTS);
    for server in SERVERS {
        for (verb, phrase) in VERBS {
            for thing in THINGS {
                let words = thing.replace('_', " ");
                texts.push(format!(
                    "mcp__{server}__{verb}_{thing} {server}: {phrase} {words} in {server}. \
                     Parameters: {thing}_id (the {words}'s id), owner, fields to set."
                ));
            }
        }
    }
    texts
}

/// A `/proc/self/status` figure (`VmRSS`, `VmHWM`) in bytes.
fn memory(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| {
            let value = line.strip_prefix(field)?.strip_prefix(':')?;
            value
                .trim()
                .trim_end_matches(" kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kb| kb * 1024)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
