//! Tool search over the catalog of real MCP servers' tools (`switchboard-testkit/data/catalog`):
//! quality on the labelled queries (recall@1 and recall@5, by language and by kind), search
//! latency over 1,000 tools (p50, p99), the time to build an index and the memory it takes.
//!
//! `cargo bench -p switchboard-agent --bench tool_search`
//!
//! Quality is measured on the catalog as it is (409 tools of 22 servers), lexically, and also
//! semantically when an embedding model is at hand ([`embedder`]). Latency and memory are
//! measured on 1,000 tools: the catalog's servers again under other names (`github-2`, ...)
//! until there are 1,000. Two latencies: the index alone ([`ToolIndex::search`]), and the
//! service a person's search goes through ([`ToolSearch::search`], which also reads the offer
//! to find its kept index). `TOOL_SEARCH_MISSES=1` prints every query whose tool was not first.
//! Without `--bench` (as `cargo test --benches` runs it) every step runs once, as a check.

// Bench code: a failed unwrap is a failed run.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;
use switchboard_agent::Offer;
use switchboard_agent::search::{ToolDoc, ToolIndex, ToolSearch};
use switchboard_core::{Embedder, OwnerId, ServerSpec, ToolInfo};
use switchboard_testkit::catalog::{self, CatalogServer, LabelledQuery, Lang, QueryKind};

/// The tools latency and memory are measured on.
const LATENCY_TOOLS: usize = 1_000;
/// Indexes built and kept at once to measure what one takes.
const KEPT_FOR_MEMORY: usize = 10;

fn main() {
    let full = std::env::args().any(|arg| arg == "--bench");
    let rounds = if full { 20 } else { 1 };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let servers = catalog::load().unwrap();
    let queries = catalog::queries().unwrap();

    let offer = offer_of(&servers, usize::MAX);
    println!(
        "catalog: {} tools of {} servers; {} queries ({} Chinese)",
        offer.tools().len(),
        servers.len(),
        queries.len(),
        queries.iter().filter(|q| q.lang == Lang::Zh).count()
    );
    tokens(&offer);
    let index = ToolIndex::new(docs_of(&offer));
    println!("\n## Quality, lexical\n");
    quality(&index, &queries, None);

    match runtime.block_on(embedder()) {
        Some(embedder) => {
            let texts: Vec<String> = index.docs().iter().map(ToolDoc::semantic_text).collect();
            let started = Instant::now();
            let vectors = runtime.block_on(embedder.embed(&texts)).unwrap();
            println!(
                "\n## Quality, lexical and semantic ({}; {} tools embedded in {:.1} s)\n",
                embedder.model(),
                texts.len(),
                started.elapsed().as_secs_f64()
            );
            let index = ToolIndex::new(docs_of(&offer)).with_vectors(vectors);
            let asked: Vec<String> = queries
                .iter()
                .map(|q| switchboard_agent::search::semantic_query(&q.query))
                .collect();
            let query_vectors = runtime.block_on(embedder.embed(&asked)).unwrap();
            quality(&index, &queries, Some(&query_vectors));
        }
        None => println!("\n(semantic: no embedding model; see `embedder` in this file)"),
    }

    let big = offer_of(&servers, LATENCY_TOOLS);
    println!("\n## Latency and memory over {} tools\n", big.tools().len());
    latency(&runtime, &big, &queries, rounds);
    memory(&big);
}

/// What the catalog's definitions cost a request, every tool offered and deferred (no tool
/// pinned: `search_tools` alone), in both providers' formats (estimated, as `auto` does).
fn tokens(offer: &Offer) {
    use switchboard_agent::exposure::{DeferBudget, Exposure, cost};
    use switchboard_store::ToolExposure;
    let deferred = Exposure {
        kind: ToolExposure::Deferred,
        ..Exposure::default()
    };
    println!("\n## Tokens per request\n");
    println!("| format | every tool | deferred | fewer |");
    println!("|---|---:|---:|---:|");
    for (name, wire) in [
        ("OpenAI", switchboard_llm::WireFormat::OpenAi),
        ("Anthropic", switchboard_llm::WireFormat::Anthropic),
    ] {
        let cost = cost(offer, &deferred, DeferBudget::default(), wire);
        println!(
            "| {name} | {} | {} | {:.1} % |",
            cost.tokens,
            cost.deferred_tokens,
            100.0 * (1.0 - cost.deferred_tokens as f64 / cost.tokens.max(1) as f64)
        );
    }
}

/// The embedding model for the semantic half: the in-process model of the directory
/// `SWITCHBOARD_EMBEDDING_MODEL_DIR` names (the test peers' copy of all-MiniLM-L6-v2 is
/// `.peers/embedding/all-MiniLM-L6-v2`, unpacked by scripts/test.sh).
async fn embedder() -> Option<Arc<dyn Embedder>> {
    let dir = std::env::var_os("SWITCHBOARD_EMBEDDING_MODEL_DIR")?;
    match switchboard_embed::LocalModel::open(dir.into()).await {
        Ok(model) => Some(Arc::new(model)),
        Err(error) => {
            println!("\n(the embedding model could not be loaded: {error})");
            None
        }
    }
}

/// An offer of the catalog's servers, replicated under other names (`github-2`, ...) until
/// it holds `limit` tools (all of them once when `limit` is larger than the catalog).
fn offer_of(servers: &[CatalogServer], limit: usize) -> Offer {
    let mut tools = Vec::new();
    'rounds: for round in 1.. {
        for server in servers {
            let name = match round {
                1 => server.server.clone(),
                _ => format!("{}-{round}", server.server),
            };
            let spec = Arc::new(ServerSpec::stdio(name, "catalog_server.py", [""; 0]));
            for tool in &server.tools {
                if tools.len() == limit {
                    break 'rounds;
                }
                tools.push((Arc::clone(&spec), tool_info(&spec, tool)));
            }
        }
        if limit == usize::MAX {
            break;
        }
    }
    Offer::from_tools(tools, Vec::new())
}

fn tool_info(spec: &ServerSpec, tool: &Value) -> ToolInfo {
    let mut tool = tool.clone();
    tool["serverId"] = Value::String(spec.id.0.clone());
    serde_json::from_value(tool).unwrap()
}

fn docs_of(offer: &Offer) -> Vec<ToolDoc> {
    offer.tools().iter().map(ToolDoc::of).collect()
}

/// Hits at 1 and at 5, per group of queries.
#[derive(Default)]
struct Tally {
    asked: usize,
    at_1: usize,
    at_5: usize,
}

impl Tally {
    fn line(&self, group: &str) -> String {
        let share = |hits: usize| hits as f64 / self.asked.max(1) as f64;
        format!(
            "| {group} | {} | {:.3} | {:.3} |",
            self.asked,
            share(self.at_1),
            share(self.at_5)
        )
    }
}

fn quality(index: &ToolIndex, queries: &[LabelledQuery], vectors: Option<&[Vec<f32>]>) {
    let show_misses = std::env::var_os("TOOL_SEARCH_MISSES").is_some();
    let mut groups: BTreeMap<String, Tally> = BTreeMap::new();
    for (position, query) in queries.iter().enumerate() {
        let query_vector = vectors.map(|v| v[position].as_slice());
        let found: Vec<(&str, &str)> = index
            .search(&query.query, 5, query_vector)
            .iter()
            .map(|hit| {
                let doc = &index.docs()[hit.index];
                (doc.server.as_str(), doc.tool.as_str())
            })
            .collect();
        let wanted = (query.expected.server.as_str(), query.expected.tool.as_str());
        let rank = found.iter().position(|hit| *hit == wanted);
        let lang = match query.lang {
            Lang::En => "English",
            Lang::Zh => "Chinese",
        };
        let kind = match query.kind {
            QueryKind::Direct => "direct",
            QueryKind::Paraphrased => "paraphrased",
            QueryKind::Implicit => "implicit",
        };
        for group in [
            "all".to_owned(),
            lang.to_owned(),
            kind.to_owned(),
            format!("{lang} {kind}"),
        ] {
            let tally = groups.entry(group).or_default();
            tally.asked += 1;
            tally.at_1 += usize::from(rank == Some(0));
            tally.at_5 += usize::from(rank.is_some());
        }
        if show_misses && rank != Some(0) {
            println!("miss {:?} wanted {wanted:?} got {found:?}", query.query);
        }
    }
    println!("| queries | n | recall@1 | recall@5 |\n|---|---:|---:|---:|");
    let order = [
        "all",
        "English",
        "Chinese",
        "direct",
        "paraphrased",
        "implicit",
    ];
    for group in order {
        println!("{}", groups[group].line(group));
    }
    for (group, tally) in &groups {
        if !order.contains(&group.as_str()) {
            println!("{}", tally.line(group));
        }
    }
}

fn percentile(sorted: &[Duration], share: f64) -> Duration {
    let at = ((sorted.len() as f64 * share).ceil() as usize).clamp(1, sorted.len());
    sorted[at - 1]
}

fn micros(duration: Duration) -> String {
    format!("{:.1} µs", duration.as_secs_f64() * 1e6)
}

fn latency(
    runtime: &tokio::runtime::Runtime,
    offer: &Offer,
    queries: &[LabelledQuery],
    rounds: usize,
) {
    let started = Instant::now();
    let index = ToolIndex::new(docs_of(offer));
    let built = started.elapsed();
    let (terms, postings) = index.size();
    println!(
        "index built in {:.2} ms ({terms} terms, {postings} postings)",
        built.as_secs_f64() * 1e3
    );

    let search = ToolSearch::new(None);
    let owner = OwnerId("bench".into());
    runtime.block_on(search.index(&owner, offer));
    let mut alone = Vec::new();
    let mut service = Vec::new();
    for _ in 0..rounds {
        for query in queries {
            let started = Instant::now();
            std::hint::black_box(index.search(&query.query, 5, None));
            alone.push(started.elapsed());
            let started = Instant::now();
            std::hint::black_box(runtime.block_on(search.search(&owner, offer, &query.query, 5)));
            service.push(started.elapsed());
        }
    }
    println!("\n| search (top 5) | n | p50 | p99 | max |\n|---|---:|---:|---:|---:|");
    for (name, mut times) in [("index alone", alone), ("ToolSearch (service)", service)] {
        times.sort();
        println!(
            "| {name} | {} | {} | {} | {} |",
            times.len(),
            micros(percentile(&times, 0.5)),
            micros(percentile(&times, 0.99)),
            micros(times[times.len() - 1])
        );
    }
}

/// What one index of the offer takes: the growth of the process's resident memory while
/// [`KEPT_FOR_MEMORY`] indexes are built and kept, divided among them (the documents'
/// text included; an upper bound, as the allocator may keep what building freed).
fn memory(offer: &Offer) {
    let before = resident_kib();
    let kept: Vec<ToolIndex> = (0..KEPT_FOR_MEMORY)
        .map(|_| ToolIndex::new(docs_of(offer)))
        .collect();
    let after = resident_kib();
    std::hint::black_box(&kept);
    match (before, after) {
        (Some(before), Some(after)) => println!(
            "\nmemory: about {:.1} MiB per index of {} tools (resident growth over {KEPT_FOR_MEMORY} kept indexes)",
            after.saturating_sub(before) as f64 / KEPT_FOR_MEMORY as f64 / 1024.0,
            offer.tools().len()
        ),
        _ => println!("\nmemory: /proc/self/status unreadable"),
    }
}

fn resident_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
