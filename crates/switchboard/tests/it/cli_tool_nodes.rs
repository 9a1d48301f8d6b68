//! `switchboard tool-nodes list | add | run`, as the real binary on a temporary data
//! directory, with the built-in demo server (stdio) behind the nodes.

use crate::common;

use common::{BIN, Switchboard};
use serde_json::Value;

/// A data directory with the demo server added as `demo`.
fn with_demo() -> Switchboard {
    let sb = Switchboard::new();
    sb.run(&[
        "servers",
        "add",
        "demo",
        "--command",
        BIN,
        "--arg",
        "demo-server",
    ])
    .ok();
    sb
}

/// Everything a run printed (with `--json`, errors go to stdout as JSON).
fn said(run: &common::Run) -> String {
    format!("{}{}", run.stdout, run.stderr)
}

fn run_json(sb: &Switchboard, args: &[&str]) -> (bool, Value) {
    let mut full = vec!["--json"];
    full.extend_from_slice(args);
    let run = sb.run(&full);
    let json = run.json();
    (run.success, json)
}

#[test]
fn nodes_are_added_listed_and_run_with_their_mappings() {
    let sb = with_demo();
    let empty = sb.run(&["tool-nodes", "list"]).ok();
    assert!(empty.stdout.contains("no tool nodes"), "{empty:?}");

    let added = sb
        .run(&[
            "tool-nodes",
            "add",
            "--server",
            "demo",
            "--name",
            "greet",
            "--tool",
            "echo",
            "--map",
            "text=hello {{who}} from {{user.name}}",
            "--var",
            "who:string=world",
        ])
        .ok();
    assert!(
        added.stdout.contains("added tool node `greet`"),
        "{added:?}"
    );
    sb.run(&[
        "tool-nodes",
        "add",
        "--server",
        "demo",
        "--name",
        "sum",
        "--tool",
        "calculate",
        "--map",
        "expression=1 + 2",
    ])
    .ok();

    let listed = sb.run(&["tool-nodes", "list"]).ok();
    assert!(listed.stdout.contains("greet"), "{listed:?}");
    assert!(listed.stdout.contains("echo"), "{listed:?}");
    let (_, nodes) = run_json(&sb, &["tool-nodes", "list"]);
    let greet = &nodes[0];
    assert_eq!(greet["name"], "greet");
    assert_eq!(greet["serverId"], "demo");
    assert_eq!(
        greet["selectedTools"][0]["parameterMappings"]["text"],
        "hello {{who}} from {{user.name}}"
    );
    assert_eq!(greet["variables"][0]["default"], "world");

    // The declared default, then a supplied value; the mapping wins over an argument.
    let (ok, result) = run_json(&sb, &["tool-nodes", "run", "greet"]);
    assert!(ok, "{result}");
    assert_eq!(result["success"], true, "{result}");
    assert_eq!(result["content"][0]["text"], "hello world from local");
    let (ok, result) = run_json(
        &sb,
        &[
            "tool-nodes",
            "run",
            "greet",
            "--var",
            "who=octo",
            "--arg",
            "text=x",
        ],
    );
    assert!(ok, "{result}");
    assert_eq!(result["arguments"]["text"], "hello octo from local");
    assert_eq!(result["attempts"].as_array().map(Vec::len), Some(1));

    // A node is found by its id too; a literal mapping is sent as it is.
    let id = nodes[1]["id"].as_str().expect("id");
    let (ok, result) = run_json(&sb, &["tool-nodes", "run", id]);
    assert!(ok, "{result}");
    assert_eq!(result["content"][0]["text"], "3");
    assert_eq!(result["structuredContent"]["result"], 3);

    let missing = sb.run(&["--json", "tool-nodes", "run", "nope"]).failed();
    assert!(said(&missing).contains("NOT_FOUND"), "{missing:?}");
}

#[test]
fn add_checks_mappings_against_the_live_tools_and_variables() {
    let sb = with_demo();
    let add = |extra: &[&str]| {
        let mut args = vec![
            "--json",
            "tool-nodes",
            "add",
            "--server",
            "demo",
            "--name",
            "n",
            "--tool",
            "echo",
        ];
        args.extend_from_slice(extra);
        sb.run(&args)
    };
    let unknown = add(&["--map", "txt=hi"]).failed();
    assert!(said(&unknown).contains("VALIDATION_ERROR"), "{unknown:?}");
    assert!(
        said(&unknown).contains("selectedTools[0].parameterMappings.txt"),
        "{unknown:?}"
    );
    let undeclared = add(&["--map", "text={{token}}"]).failed();
    assert!(said(&undeclared).contains("{{token}}"), "{undeclared:?}");
    assert!(
        said(&undeclared).contains("selectedTools[0].parameterMappings.text"),
        "{undeclared:?}"
    );
    let no_tool = sb
        .run(&[
            "tool-nodes",
            "add",
            "--server",
            "demo",
            "--name",
            "n",
            "--tool",
            "nope",
        ])
        .failed();
    assert!(said(&no_tool).contains("nope"), "{no_tool:?}");
    let no_server = sb
        .run(&[
            "tool-nodes",
            "add",
            "--server",
            "ghost",
            "--name",
            "n",
            "--tool",
            "echo",
        ])
        .failed();
    assert!(said(&no_server).contains("ghost"), "{no_server:?}");
    // Nothing was stored by the refusals.
    let (_, nodes) = run_json(&sb, &["tool-nodes", "list"]);
    assert_eq!(nodes, serde_json::json!([]));
}

#[test]
fn a_missing_variable_fails_the_run_and_a_timeout_is_reported_with_its_attempts() {
    let sb = with_demo();
    sb.run(&[
        "tool-nodes",
        "add",
        "--server",
        "demo",
        "--name",
        "needs",
        "--tool",
        "echo",
        "--map",
        "text={{who}}",
        "--var",
        "who:string",
    ])
    .ok();
    let failed = sb.run(&["--json", "tool-nodes", "run", "needs"]).failed();
    assert!(said(&failed).contains("MCP_INVALID_PARAMS"), "{failed:?}");
    assert!(said(&failed).contains("who"), "{failed:?}");

    sb.run(&[
        "tool-nodes",
        "add",
        "--server",
        "demo",
        "--name",
        "slow",
        "--tool",
        "echo",
        "--map",
        "text=late",
        "--map",
        "delay_ms=60000",
        "--timeout-ms",
        "100",
    ])
    .ok();
    let run = sb.run(&["--json", "tool-nodes", "run", "slow"]).failed();
    let result = run.json();
    assert_eq!(result["success"], false, "{result}");
    assert_eq!(result["error"]["code"], "MCP_TIMEOUT", "{result}");
    assert_eq!(result["attempts"][0]["error"], "MCP_TIMEOUT", "{result}");
    assert_eq!(result["attempts"].as_array().map(Vec::len), Some(1));
}

/// The call's audit record is written before `tool-nodes run` exits (the writer works in the
/// background; the command waits for it).
#[tokio::test]
async fn a_run_leaves_its_audit_record_in_the_store() {
    use switchboard_core::OwnerId;
    use switchboard_store::{AuditOutcome, StoreConfig};

    let sb = with_demo();
    sb.run(&[
        "tool-nodes",
        "add",
        "--server",
        "demo",
        "--name",
        "sum",
        "--tool",
        "calculate",
        "--map",
        "expression=1 + 2",
    ])
    .ok();
    let (ok, result) = run_json(&sb, &["tool-nodes", "run", "sum"]);
    assert!(ok, "{result}");

    let store = switchboard_store::open(&StoreConfig::in_dir(sb.data_dir()))
        .await
        .expect("open the store");
    let records = store
        .tool_call_audit(&OwnerId::local(), 10)
        .await
        .expect("audit");
    store.close().await;
    assert_eq!(records.len(), 1, "{records:#?}");
    assert_eq!(records[0].tool, "calculate");
    assert_eq!(records[0].outcome, AuditOutcome::Ok);
    assert_eq!(records[0].attempts, 1);
}
