//! Golden files: the tool lists of the reference servers the test suite runs against
//! (server-everything, the mcp 1.x and 2.x Python peers, our demo server), converted for every
//! dialect. Every entry is also checked against the provider's documented rules.
//!
//! After an intended change of output, regenerate with
//! `SWITCHBOARD_UPDATE_GOLDEN=1 cargo test -p switchboard-schema --test golden`.

use crate::provider_rules;

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use switchboard_schema::{ConvertOptions, Dialect, convert_tools, parse_tools};

const INPUTS: [&str; 4] = ["everything", "py1", "py2", "demo"];

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn parameters(dialect: Dialect, entry: &Value) -> &Value {
    match dialect {
        Dialect::OpenAi | Dialect::OpenAiStrict => &entry["function"]["parameters"],
        Dialect::Anthropic => &entry["input_schema"],
        Dialect::Gemini => &entry["parameters"],
        _ => &entry["parametersJsonSchema"],
    }
}

fn converted(input: &str, dialect: Dialect) -> Value {
    let path = golden_dir().join("input").join(format!("{input}.json"));
    let text = std::fs::read_to_string(&path).expect("golden input");
    let document: Value = serde_json::from_str(&text).expect("JSON");
    let parsed = parse_tools(&document).expect("tools");
    assert!(parsed.errors.is_empty(), "{input}: {:?}", parsed.errors);
    let tools = parsed.tools;
    let (converted, errors) = convert_tools(&tools, dialect, &ConvertOptions::default());
    assert!(errors.is_empty(), "{input} for {dialect}: {errors:?}");
    for tool in &converted {
        // A strict fallback is checked as plain OpenAI; a strict schema against strict rules.
        let rules = match dialect {
            Dialect::OpenAiStrict if !tool.strict => Dialect::OpenAi,
            other => other,
        };
        let empty = json!({"type": "object", "properties": {}});
        let schema = match parameters(dialect, &tool.entry) {
            Value::Null => &empty, // Gemini leaves out the parameters of a tool without any
            schema => schema,
        };
        if let Err(broken) = provider_rules::check(rules, &tool.name, schema) {
            panic!(
                "{input}/{} breaks the {dialect} rules: {broken:?}",
                tool.name
            );
        }
    }
    json!({
        "entries": converted.iter().map(|t| &t.entry).collect::<Vec<_>>(),
        "notStrict": converted
            .iter()
            .filter_map(|t| t.not_strict_reason.as_ref().map(|r| json!({"tool": t.name, "reason": r})))
            .collect::<Vec<_>>(),
    })
}

#[test]
fn reference_servers_tools_match_their_golden_files() {
    let update = std::env::var_os("SWITCHBOARD_UPDATE_GOLDEN").is_some();
    let mut stale = Vec::new();
    for input in INPUTS {
        for dialect in Dialect::ALL {
            let actual = converted(input, dialect);
            let path = golden_dir()
                .join("output")
                .join(format!("{input}.{}.json", dialect.as_str()));
            let rendered = serde_json::to_string_pretty(&actual).expect("render") + "\n";
            if update {
                std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
                std::fs::write(&path, rendered).expect("write golden");
                continue;
            }
            match std::fs::read_to_string(&path) {
                Ok(expected) if expected == rendered => {}
                _ => stale.push(path.display().to_string()),
            }
        }
    }
    assert!(
        stale.is_empty(),
        "output differs from (or lacks) golden files {stale:?}; if intended, rerun with \
         SWITCHBOARD_UPDATE_GOLDEN=1"
    );
}

#[test]
fn converting_is_deterministic() {
    for input in INPUTS {
        for dialect in Dialect::ALL {
            assert_eq!(converted(input, dialect), converted(input, dialect));
        }
    }
}
