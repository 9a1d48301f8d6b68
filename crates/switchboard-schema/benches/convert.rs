//! Conversion time per tool: the golden corpus (the tool lists of the reference servers the
//! test suite runs against) and the pathological schema (forty definitions that refer to each
//! other in many branches, about 23 KB). Goals: under 50 µs for a typical tool, under 5 ms
//! for the pathological one.
//!
//! `cargo bench -p switchboard-schema --bench convert`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use switchboard_schema::{
    ConvertOptions, Dialect, ResolveOptions, ToolInput, convert_tool, parse_tools,
};

const CORPUS: [&str; 4] = [
    include_str!("../tests/golden/input/everything.json"),
    include_str!("../tests/golden/input/py1.json"),
    include_str!("../tests/golden/input/py2.json"),
    include_str!("../tests/golden/input/demo.json"),
];
const PATHOLOGICAL: &str = include_str!("../tests/fixtures/pathological.json");

fn corpus() -> Vec<ToolInput> {
    CORPUS
        .iter()
        .flat_map(|text| {
            let document = serde_json::from_str(text).expect("golden input is JSON");
            parse_tools(&document)
                .expect("golden input has tools")
                .tools
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let tools = corpus();
    let options = ConvertOptions::default();
    let mut group = c.benchmark_group("corpus_per_tool");
    group.measurement_time(Duration::from_secs(4));
    for dialect in Dialect::ALL {
        group.bench_function(dialect.as_str(), |b| {
            // One iteration converts every tool; criterion's time divided by the count below
            // is the time per tool (printed once for BENCHMARKS.md).
            b.iter(|| {
                for tool in &tools {
                    let _ = black_box(convert_tool(black_box(tool), dialect, &options));
                }
            });
        });
    }
    group.finish();
    println!("corpus: {} tools per iteration", tools.len());

    let document = serde_json::from_str(PATHOLOGICAL).expect("fixture is JSON");
    let pathological = parse_tools(&document).expect("fixture is a tool").tools;
    let mut group = c.benchmark_group("pathological");
    group.measurement_time(Duration::from_secs(4));
    for (label, depth) in [("depth_3", 3), ("depth_10", 10)] {
        let options = ConvertOptions {
            resolve: ResolveOptions {
                max_depth: depth,
                ..ResolveOptions::default()
            },
        };
        group.bench_function(label, |b| {
            b.iter(|| {
                black_box(convert_tool(
                    &pathological[0],
                    Dialect::OpenAiStrict,
                    &options,
                ))
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
