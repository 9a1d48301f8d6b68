//! The command line's server JSON is camelCase, as the HTTP API's is, and the snake_case
//! names of earlier versions are still read; `servers add` warns when the program a stdio
//! server starts with is not on this machine, and adds it all the same.

use crate::common;

use common::{BIN, Switchboard};
use serde_json::{Value, json};

/// Every key of `value`, at every depth, that has an underscore (a snake_case name) outside
/// the maps whose keys are the user's own (`env`, `headers`).
fn snake_keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                if key.contains('_') {
                    out.push(key.clone());
                }
                if key != "env" && key != "headers" {
                    snake_keys(inner, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| snake_keys(item, out)),
        _ => {}
    }
}

/// A servers file of an earlier version, in its snake_case names.
const OLD_FILE: &str = r#"[
  {"id": "notes", "name": "notes", "transport": "stdio", "command": "notes-server",
   "env": {"NOTES_TOKEN": "t0k", "LOG_LEVEL": "info"}, "secret_env": ["NOTES_TOKEN"],
   "disabled_tools": ["delete_note"], "auto_approved_tools": ["read_note"], "enabled": true},
  {"id": "wiki", "name": "wiki", "transport": "streamable_http", "url": "https://wiki.example/mcp",
   "auth": {"type": "oauth", "client_id": "switchboard-wiki", "scopes": ["read"]}}
]"#;

#[test]
fn server_json_is_camel_case_and_old_snake_case_names_are_read() {
    let sb = Switchboard::new();
    std::fs::create_dir_all(sb.data_dir()).expect("mkdir");
    std::fs::write(sb.servers_file(), OLD_FILE).expect("write");
    let listed = sb.run(&["--json", "servers", "list"]).ok().json();
    let notes = listed
        .as_array()
        .and_then(|all| all.iter().find(|s| s["name"] == "notes"))
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(notes["secretEnv"], json!(["NOTES_TOKEN"]), "{notes}");
    assert_eq!(notes["disabledTools"], json!(["delete_note"]), "{notes}");
    assert_eq!(notes["autoApprovedTools"], json!(["read_note"]), "{notes}");
    assert!(notes["createdAt"].is_i64(), "{notes}");
    let wiki = listed
        .as_array()
        .and_then(|all| all.iter().find(|s| s["name"] == "wiki"))
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(wiki["auth"]["clientId"], "switchboard-wiki", "{wiki}");

    let added = sb
        .run(&["--json", "servers", "add", "local", "--command", BIN])
        .ok()
        .json();
    let mut snake = Vec::new();
    snake_keys(&listed, &mut snake);
    snake_keys(&added, &mut snake);
    assert_eq!(snake, Vec::<String>::new(), "{listed} {added}");
}

#[test]
fn adding_a_server_whose_program_is_missing_warns_and_adds_it() {
    let sb = Switchboard::new();
    // A PATH with neither Node.js nor uv on it.
    let empty = tempfile::tempdir().expect("temp dir");
    let path = empty.path().to_str().expect("utf-8");
    let add = |name: &str, command: &str| {
        sb.run_with_env(
            &["servers", "add", name, "--command", command, "--arg", "x"],
            &[("PATH", path)],
        )
        .ok()
    };

    let npx = add("files", "npx");
    assert!(
        npx.stderr
            .contains("warning: `npx` was not found on this machine; install Node.js"),
        "{npx:?}"
    );
    assert!(npx.stdout.contains("added server `files`"), "{npx:?}");
    let uvx = add("git", "uvx");
    assert!(uvx.stderr.contains("install uv"), "{uvx:?}");
    let other = add("mine", "my-mcp-server");
    assert!(
        other
            .stderr
            .contains("`my-mcp-server` was not found on PATH; install it, or give its full path"),
        "{other:?}"
    );
    let there = add("there", BIN);
    assert!(!there.stderr.contains("warning"), "{there:?}");
    let remote = sb
        .run_with_env(
            &["servers", "add", "remote", "--url", "https://h.example/mcp"],
            &[("PATH", path)],
        )
        .ok();
    assert!(!remote.stderr.contains("warning"), "{remote:?}");

    let listed = sb.run(&["--json", "servers", "list"]).ok().json();
    assert_eq!(
        listed.as_array().map(Vec::len),
        Some(5),
        "every server was added: {listed}"
    );
}
