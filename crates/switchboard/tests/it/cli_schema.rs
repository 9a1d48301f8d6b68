//! `switchboard schema convert`: each provider's `tools` entries on stdout, per-tool failures
//! and strictness on stderr, a non-zero exit when any tool failed.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

fn convert(dialect: &str, input: &Value, extra: &[&str]) -> (Output, Value) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_switchboard"))
        .args(["schema", "convert", "--dialect", dialect])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.to_string().as_bytes())
        .expect("write");
    let output = child.wait_with_output().expect("run");
    let printed = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output, printed)
}

fn tools() -> Value {
    json!({"tools": [
        {"name": "get weather", "description": "Weather for a city",
         "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}},
        {"name": "broken", "inputSchema": {"type": "object", "properties": {"x": {"$ref": "#/$defs/Gone"}}}},
        {"name": "", "inputSchema": {}},
        {"name": "tree", "inputSchema": {
            "$defs": {"Node": {"type": "object", "properties": {"value": {"type": "string"}, "child": {"$ref": "#/$defs/Node"}}}},
            "properties": {"root": {"$ref": "#/$defs/Node"}}}}
    ]})
}

#[test]
fn every_dialect_prints_its_providers_entries() {
    for (dialect, key) in [
        ("openai", "function"),
        ("openai-strict", "function"),
        ("anthropic", "input_schema"),
        ("gemini", "parameters"),
        ("gemini-json", "parametersJsonSchema"),
    ] {
        let (output, printed) = convert(dialect, &tools(), &[]);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{dialect}: a failed tool fails the run"
        );
        let entries = printed.as_array().expect("a JSON array");
        assert_eq!(
            entries.len(),
            2,
            "{dialect}: the good tools are still printed"
        );
        assert!(
            entries.iter().all(|e| e.get(key).is_some()),
            "{dialect}: {entries:?}"
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("broken"), "{dialect}: {stderr}");
        assert!(
            stderr.contains("tools[2]"),
            "the nameless entry is reported alone: {stderr}"
        );
    }
}

#[test]
fn names_are_made_valid_and_strictness_is_explained() {
    let input = json!({"name": "get weather", "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}});
    let (output, printed) = convert("openai-strict", &input, &[]);
    assert!(output.status.success());
    let function = &printed[0]["function"];
    assert_eq!(function["name"], "get_weather");
    assert_eq!(function["strict"], true);
    assert_eq!(function["parameters"]["additionalProperties"], false);
}

#[test]
fn depth_is_configurable() {
    let input = json!({
        "$defs": {"Node": {"type": "object", "properties": {"value": {"type": "string"}, "child": {"$ref": "#/$defs/Node"}}}},
        "properties": {"root": {"$ref": "#/$defs/Node"}}
    });
    let (output, printed) = convert("anthropic", &input, &["--depth", "0"]);
    assert!(output.status.success());
    let root = &printed[0]["input_schema"]["properties"]["root"];
    assert_eq!(root["type"], "object");
    assert!(
        root.get("properties").is_none(),
        "depth 0 prunes the first reference: {root}"
    );
}
