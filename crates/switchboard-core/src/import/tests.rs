//! Each supported file shape, and every way an entry can be wrong, on inline examples.

use crate::{Auth, ErrorCode, SpecError, TransportKind};

use super::{EntryError, Format, Imported, parse};

fn imported(text: &str) -> Imported {
    parse(text).unwrap_or_else(|e| panic!("{e:?}"))
}

fn outcome<'a>(imported: &'a Imported, name: &str) -> &'a Result<crate::ServerSpec, EntryError> {
    &imported
        .entries
        .iter()
        .find(|e| e.name == name)
        .unwrap_or_else(|| panic!("no entry {name}"))
        .outcome
}

#[test]
fn claude_desktop_stdio_and_remote_entries() {
    let imported = imported(
        r#"{"mcpServers": {
            "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"],
                      "env": {"DEBUG": "1"}},
            "remote": {"url": "https://mcp.example.com/mcp", "headers": {"X-Team": "blue"}},
            "legacy": {"url": "https://mcp.example.com/sse"},
            "typed": {"type": "sse", "url": "https://mcp.example.com/mcp"}
        }, "globalShortcut": "Ctrl+Space"}"#,
    );
    assert_eq!(imported.format, Format::McpServers);
    assert_eq!(imported.entries.len(), 4);

    let files = outcome(&imported, "files").as_ref().unwrap();
    assert_eq!(files.transport, TransportKind::Stdio);
    assert_eq!(files.command.as_deref(), Some("npx"));
    assert_eq!(files.args.len(), 3);
    assert_eq!(files.env.get("DEBUG").map(String::as_str), Some("1"));
    assert!(files.secret_env.is_empty());
    assert!(files.enabled);

    let remote = outcome(&imported, "remote").as_ref().unwrap();
    assert_eq!(remote.transport, TransportKind::StreamableHttp);
    assert_eq!(
        remote.headers.get("X-Team").map(String::as_str),
        Some("blue")
    );
    assert_eq!(remote.auth, Auth::None);
    let legacy = outcome(&imported, "legacy").as_ref().unwrap();
    assert_eq!(legacy.transport, TransportKind::Sse);
    let typed = outcome(&imported, "typed").as_ref().unwrap();
    assert_eq!(typed.transport, TransportKind::Sse);
}

#[test]
fn vs_code_mcp_json_with_comments() {
    let imported = imported(
        r#"{
            // Workspace servers
            "inputs": [{"type": "promptString", "id": "token", "password": true}],
            "servers": {
                "github": {"type": "http", "url": "https://api.githubcopilot.com/mcp/",
                           "headers": {"Authorization": "Bearer ${input:token}"}},
                "events": {"type": "sse", "url": "http://localhost:3001/sse"},
                "local": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"],
                          "cwd": "/srv"}, // trailing comma next
            },
        }"#,
    );
    assert_eq!(imported.format, Format::VsCode);
    let github = outcome(&imported, "github").as_ref().unwrap();
    assert_eq!(github.transport, TransportKind::StreamableHttp);
    assert_eq!(
        github.headers.get("Authorization").map(String::as_str),
        Some("Bearer ${input:token}")
    );
    let events = outcome(&imported, "events").as_ref().unwrap();
    assert_eq!(events.transport, TransportKind::Sse);
    let local = outcome(&imported, "local").as_ref().unwrap();
    assert_eq!(local.transport, TransportKind::Stdio);
    assert_eq!(local.cwd.as_deref(), Some(std::path::Path::new("/srv")));
}

#[test]
fn vs_code_settings_json() {
    let imported = imported(
        r#"{"editor.fontSize": 14,
            "mcp": {"servers": {"time": {"command": "uvx", "args": ["mcp-server-time"]}}}}"#,
    );
    assert_eq!(imported.format, Format::VsCodeSettings);
    assert!(outcome(&imported, "time").is_ok());
}

#[test]
fn bad_entries_are_explained_one_by_one() {
    let imported = imported(
        r#"{"mcpServers": {
            "ftp": {"url": "ftp://files.example.com/mcp"},
            "both": {"command": "x", "url": "https://h.example/mcp"},
            "neither": {"args": ["x"]},
            "weird": {"type": "websocket", "url": "wss://h.example"},
            "number-args": {"command": "x", "args": [1]},
            "not-object": "npx server",
            "no-command": {"type": "stdio", "args": ["x"]},
            "ok": {"command": "server"}
        }}"#,
    );
    let error = |name| outcome(&imported, name).as_ref().unwrap_err();
    assert!(matches!(
        error("ftp"),
        EntryError::Invalid(SpecError::UnsupportedScheme { .. })
    ));
    assert!(error("ftp").to_string().contains("ftp"));
    assert!(matches!(error("both"), EntryError::BothTargets));
    assert!(matches!(error("neither"), EntryError::NoTarget));
    assert!(matches!(error("weird"), EntryError::UnsupportedType(t) if t == "websocket"));
    assert_eq!(error("weird").code(), ErrorCode::UnsupportedTransport);
    assert!(matches!(error("number-args"), EntryError::WrongType { field, .. } if field == "args"));
    assert!(matches!(error("not-object"), EntryError::NotAnObject));
    assert!(matches!(
        error("no-command"),
        EntryError::Invalid(SpecError::Missing { .. })
    ));
    assert_eq!(error("ftp").code(), ErrorCode::ValidationError);
    assert!(outcome(&imported, "ok").is_ok());
}

#[test]
fn disabled_entries_stay_disabled() {
    let imported = imported(r#"{"mcpServers": {"off": {"command": "x", "disabled": true}}}"#);
    assert!(!outcome(&imported, "off").as_ref().unwrap().enabled);
}

#[test]
fn files_without_a_server_list_are_refused() {
    assert!(matches!(
        parse("{\"other\": {}}"),
        Err(super::ParseError::NoServers)
    ));
    assert!(matches!(
        parse("{\"servers\": []}"),
        Err(super::ParseError::NoServers)
    ));
    assert!(matches!(parse("not json"), Err(super::ParseError::Json(_))));
}

#[test]
fn env_variables_that_look_like_credentials_are_marked_secret() {
    let imported = imported(
        r#"{"mcpServers": {"gh": {"command": "docker",
            "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_x", "api_key": "k", "LOG_LEVEL": "info"}}}}"#,
    );
    let gh = outcome(&imported, "gh").as_ref().unwrap();
    let secret: Vec<&str> = gh.secret_env.iter().map(String::as_str).collect();
    assert_eq!(secret, ["GITHUB_PERSONAL_ACCESS_TOKEN", "api_key"]);
    assert_eq!(gh.env.len(), 3);
}
