//! `servers add | list | remove` and `import`, run as the real binary on temporary data
//! directories.

use crate::common;

use common::{Switchboard, fixture, run_raw};
use serde_json::{Value, json};
use switchboard_core::MASK;

fn names(list: &Value) -> Vec<&str> {
    list.as_array()
        .expect("array")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect()
}

fn server<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .expect("array")
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no server {name} in {list}"))
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

#[test]
fn add_list_remove() {
    let sb = Switchboard::new();
    let empty = sb.run(&["servers", "list"]).ok();
    assert!(empty.stdout.contains("no servers"), "{empty:?}");
    assert!(
        !sb.servers_file().exists(),
        "listing must not create the file"
    );

    let added = sb
        .run(&[
            "servers",
            "add",
            "files",
            "--command",
            "npx",
            "--arg",
            "-y",
            "--arg",
            "@modelcontextprotocol/server-filesystem",
            "--env",
            "DEBUG=1",
            "--cwd",
            "/srv",
        ])
        .ok();
    assert!(added.stdout.contains("added server `files`"), "{added:?}");
    sb.run(&[
        "servers",
        "add",
        "remote",
        "--url",
        "https://mcp.example.com/mcp",
        "--bearer",
        "s3cret",
        "--header",
        "X-Team=blue",
    ])
    .ok();
    sb.run(&[
        "servers",
        "add",
        "legacy",
        "--url",
        "https://mcp.example.com/sse",
        "--disabled",
    ])
    .ok();

    let table = sb.run(&["servers", "list"]).ok().stdout;
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[0].starts_with("NAME"), "{table}");
    assert!(
        lines[1].contains("files") && lines[1].contains("stdio"),
        "{table}"
    );
    assert!(
        lines[1].contains("npx -y @modelcontextprotocol/server-filesystem"),
        "{table}"
    );
    assert!(
        lines[2].contains("streamable_http") && lines[2].contains("yes"),
        "{table}"
    );
    assert!(
        lines[3].contains("sse") && lines[3].contains("no"),
        "{table}"
    );

    let list = sb.run(&["servers", "list", "--json"]).ok().json();
    assert_eq!(names(&list), ["files", "remote", "legacy"]);
    let files = server(&list, "files");
    assert_eq!(files["transport"], "stdio");
    assert_eq!(
        files["args"],
        json!(["-y", "@modelcontextprotocol/server-filesystem"])
    );
    assert_eq!(files["cwd"], "/srv");
    let remote = server(&list, "remote");
    assert_eq!(remote["transport"], "streamable_http");
    assert_eq!(remote["auth"]["type"], "bearer");
    assert_eq!(remote["auth"]["token"], MASK);
    assert_eq!(remote["headers"]["X-Team"], MASK);
    assert_eq!(server(&list, "legacy")["enabled"], false);
    // Secrets never reach the output, and are stored encrypted.
    let printed = list.to_string();
    assert!(
        !printed.contains("s3cret") && !printed.contains("blue"),
        "{printed}"
    );
    assert!(!contains(&sb.database_bytes(), b"s3cret"));
    assert!(!sb.servers_file().exists(), "nothing writes servers.json");

    let removed = sb.run(&["servers", "remove", "remote"]).ok();
    assert!(
        removed.stdout.contains("removed server `remote`"),
        "{removed:?}"
    );
    let list = sb.run(&["--json", "servers", "list"]).ok().json();
    assert_eq!(names(&list), ["files", "legacy"]);
}

#[test]
fn global_options_work_before_and_after_the_subcommand_and_from_the_environment() {
    let sb = Switchboard::new();
    sb.run(&[
        "servers",
        "add",
        "demo",
        "--command",
        "switchboard",
        "--arg",
        "demo-server",
    ])
    .ok();
    let data_dir = sb.data_dir();
    let data_dir = data_dir.to_str().expect("utf-8");
    let after = run_raw(&["servers", "list", "--json", "--data-dir", data_dir], &[]).ok();
    assert_eq!(names(&after.json()), ["demo"]);
    let from_env = run_raw(
        &["servers", "list", "--json"],
        &[("SWITCHBOARD_DATA_DIR", data_dir)],
    )
    .ok();
    assert_eq!(names(&from_env.json()), ["demo"]);
}

#[test]
fn failures_carry_error_codes() {
    let sb = Switchboard::new();
    sb.run(&["servers", "add", "demo", "--command", "x"]).ok();

    let duplicate = sb
        .run(&["servers", "add", "demo", "--command", "y"])
        .failed();
    assert!(
        duplicate.stderr.starts_with("error CONFLICT:"),
        "{duplicate:?}"
    );
    assert!(duplicate.stderr.contains("--replace"), "{duplicate:?}");
    sb.run(&["servers", "add", "demo", "--command", "y", "--replace"])
        .ok();
    let list = sb.run(&["servers", "list", "--json"]).ok().json();
    assert_eq!(server(&list, "demo")["command"], "y");

    let missing = sb.run(&["servers", "remove", "nope", "--json"]).failed();
    let error = missing.json();
    assert_eq!(error["code"], "MCP_SERVER_NOT_FOUND");
    assert!(error["message"].as_str().expect("message").contains("nope"));

    let bad_url = sb
        .run(&["servers", "add", "ftp", "--url", "ftp://h.example/mcp"])
        .failed();
    assert!(
        bad_url.stderr.starts_with("error VALIDATION_ERROR:"),
        "{bad_url:?}"
    );
    assert!(bad_url.stderr.contains("http"), "{bad_url:?}");

    let call = sb.run(&["call", "nope", "tool", "--args", "{}"]).failed();
    assert!(
        call.stderr.starts_with("error MCP_SERVER_NOT_FOUND:"),
        "{call:?}"
    );
    let bad_args = sb
        .run(&["call", "demo", "tool", "--args", "[1]", "--json"])
        .failed();
    assert_eq!(bad_args.json()["code"], "MCP_INVALID_PARAMS");
}

#[test]
fn a_corrupt_servers_file_is_reported_and_left_alone() {
    let sb = Switchboard::new();
    std::fs::create_dir_all(sb.data_dir()).expect("mkdir");
    std::fs::write(sb.servers_file(), "{ not json").expect("write");
    let list = sb.run(&["servers", "list"]).failed();
    assert!(list.stderr.contains("servers.json"), "{list:?}");
    let add = sb.run(&["servers", "add", "x", "--command", "y"]).failed();
    assert!(add.stderr.contains("left untouched"), "{add:?}");
    assert_eq!(
        std::fs::read_to_string(sb.servers_file()).expect("read"),
        "{ not json"
    );
}

#[test]
fn import_claude_desktop_skips_the_invalid_url_scheme() {
    let sb = Switchboard::new();
    let path = fixture("claude_desktop_config.json");
    let run = sb.run(&["import", path.to_str().expect("utf-8")]).ok();
    assert!(run.stdout.contains("added     filesystem"), "{run:?}");
    assert!(run.stdout.contains("skipped   ftp-mirror:"), "{run:?}");
    assert!(run.stdout.contains("ftp"), "{run:?}");
    assert!(
        run.stdout.contains("3 added, 0 replaced, 1 skipped"),
        "{run:?}"
    );

    let list = sb.run(&["servers", "list", "--json"]).ok().json();
    let mut got = names(&list);
    got.sort_unstable();
    assert_eq!(got, ["filesystem", "github", "linear"]);
    assert_eq!(server(&list, "linear")["transport"], "sse");
    let github = server(&list, "github");
    assert_eq!(github["env"]["GITHUB_PERSONAL_ACCESS_TOKEN"], MASK);
    assert_eq!(github["secretEnv"], json!(["GITHUB_PERSONAL_ACCESS_TOKEN"]));
    assert!(!contains(&sb.database_bytes(), b"ghp_example_secret"));
}

#[test]
fn import_cursor_reports_in_json() {
    let sb = Switchboard::new();
    let path = fixture("cursor_mcp.json");
    let report = sb
        .run(&["import", path.to_str().expect("utf-8"), "--json"])
        .ok()
        .json();
    assert_eq!(report["added"], json!(["context7", "time"]));
    assert_eq!(report["skipped"][0]["name"], "broken");
    assert_eq!(report["skipped"][0]["code"], "VALIDATION_ERROR");
    let list = sb.run(&["servers", "list", "--json"]).ok().json();
    assert_eq!(server(&list, "context7")["transport"], "streamable_http");
    assert_eq!(
        server(&list, "context7")["headers"]["CONTEXT7_API_KEY"],
        MASK
    );
}

#[test]
fn import_vs_code_files_with_comments() {
    let sb = Switchboard::new();
    let path = fixture("vscode_mcp.json");
    let report = sb
        .run(&["--json", "import", path.to_str().expect("utf-8")])
        .ok()
        .json();
    assert_eq!(report["format"], "VS Code mcp.json");
    assert_eq!(report["added"], json!(["events", "fetch", "github"]));
    assert_eq!(report["skipped"][0]["name"], "socket");
    assert_eq!(report["skipped"][0]["code"], "UNSUPPORTED_TRANSPORT");

    let settings = fixture("vscode_settings.json");
    let report = sb
        .run(&["--json", "import", settings.to_str().expect("utf-8")])
        .ok()
        .json();
    assert_eq!(report["format"], "VS Code settings.json");
    assert_eq!(report["added"], json!(["memory", "remote"]));

    let list = sb.run(&["servers", "list", "--json"]).ok().json();
    assert_eq!(server(&list, "github")["transport"], "streamable_http");
    assert_eq!(server(&list, "events")["transport"], "sse");
    assert_eq!(server(&list, "fetch")["command"], "uvx");
    assert_eq!(server(&list, "memory")["transport"], "stdio");
}

#[test]
fn importing_again_skips_existing_names_unless_replacing() {
    let sb = Switchboard::new();
    let path = fixture("vscode_settings.json");
    let path = path.to_str().expect("utf-8");
    sb.run(&["import", path]).ok();
    sb.run(&["servers", "add", "memory", "--command", "mine", "--replace"])
        .ok();

    let again = sb.run(&["import", path, "--json"]).ok().json();
    assert_eq!(again["added"], json!([]));
    let skipped: Vec<&str> = again["skipped"]
        .as_array()
        .expect("array")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    assert_eq!(skipped, ["memory", "remote"]);
    assert_eq!(again["skipped"][0]["code"], "CONFLICT");
    let list = sb.run(&["servers", "list", "--json"]).ok().json();
    assert_eq!(server(&list, "memory")["command"], "mine");

    let replaced = sb.run(&["import", path, "--replace", "--json"]).ok().json();
    assert_eq!(replaced["replaced"], json!(["memory", "remote"]));
    let list = sb.run(&["servers", "list", "--json"]).ok().json();
    assert_eq!(server(&list, "memory")["command"], "npx");
}

#[test]
fn import_of_a_file_without_servers_fails() {
    let sb = Switchboard::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("other.json");
    std::fs::write(&path, r#"{"something": "else"}"#).expect("write");
    let run = sb.run(&["import", path.to_str().expect("utf-8")]).failed();
    assert!(run.stderr.contains("mcpServers"), "{run:?}");
    let missing = sb
        .run(&["import", "/nonexistent/file.json", "--json"])
        .failed();
    assert_eq!(missing.json()["code"], "NOT_FOUND");
}

#[test]
fn a_preset_from_the_catalogue_is_added_with_its_settings() {
    let sb = Switchboard::new();
    let added = sb
        .run(&[
            "--json",
            "servers",
            "add",
            "--preset",
            "filesystem",
            "--setting",
            "root=/srv/notes",
        ])
        .ok()
        .json();
    assert_eq!(added["action"], "added", "{added}");
    assert_eq!(added["presetType"], "reference", "{added}");
    let list = sb.run(&["servers", "list", "--json"]).ok().json();
    let files = server(&list, "filesystem");
    assert_eq!(files["command"], "npx");
    assert_eq!(files["args"][2], "/srv/notes");

    // A ModelScope entry under another name: its key is sealed and listed masked.
    sb.run(&[
        "servers",
        "add",
        "search",
        "--preset",
        "modelscope-search",
        "--setting",
        "api_key=ms-cli-secret",
    ])
    .ok();
    let list = sb.run(&["servers", "list", "--json"]).ok();
    assert!(!list.stdout.contains("ms-cli-secret"), "{list:?}");
    assert_eq!(server(&list.json(), "search")["auth"]["token"], MASK);

    // A required setting left out is named; nothing is added.
    let failed = sb.run(&["servers", "add", "--preset", "git"]).failed();
    assert!(
        failed.stderr.contains("\"repository\" is required"),
        "{failed:?}"
    );
    assert_eq!(
        names(&sb.run(&["servers", "list", "--json"]).ok().json()).len(),
        2
    );
}

/// `servers add --node`: a node the settings declare is stored and listed; another name is
/// refused, naming the configured ones; `servers test` goes to the node (here a closed port,
/// so it fails MCP_UNREACHABLE naming the node).
#[test]
fn servers_on_a_node() {
    let sb = Switchboard::new();
    std::fs::create_dir_all(sb.data_dir()).expect("data dir");
    std::fs::write(
        sb.data_dir().join("switchboard.toml"),
        "[nodes.build-box]\nurl = \"http://127.0.0.1:1\"\ntoken = \"node-s3cret\"\n",
    )
    .expect("settings file");
    let refused = sb
        .run(&["servers", "add", "x", "--command", "cat", "--node", "nope"])
        .failed();
    assert!(
        refused.stderr.contains("node `nope` is not configured")
            && refused.stderr.contains("build-box"),
        "{refused:?}"
    );
    let added = sb
        .run(&[
            "servers",
            "add",
            "far",
            "--command",
            "cat",
            "--node",
            "build-box",
        ])
        .ok();
    assert!(added.stdout.contains("on node `build-box`"), "{added:?}");
    sb.run(&["servers", "add", "near", "--command", "cat"]).ok();
    let table = sb.run(&["servers", "list"]).ok();
    assert!(table.stdout.contains("NODE"), "{table:?}");
    assert!(table.stdout.contains("build-box"), "{table:?}");
    let listed = sb.run(&["--json", "servers", "list"]).ok().json();
    assert_eq!(server(&listed, "far")["node"], "build-box", "{listed}");
    assert!(server(&listed, "near").get("node").is_none(), "{listed}");

    let test = sb.run(&["servers", "test", "far"]).failed();
    assert!(test.stderr.contains("MCP_UNREACHABLE"), "{test:?}");
    assert!(test.stderr.contains("build-box"), "{test:?}");
    assert!(!test.stderr.contains("node-s3cret"), "{test:?}");
}

/// `tools approve SERVER TOOL` lets a tool run without asking, `--off` makes it ask again; the
/// server's listing says so.
#[test]
fn a_tool_is_approved_and_unapproved_from_the_command_line() {
    let sb = Switchboard::new();
    sb.run(&[
        "servers",
        "add",
        "demo",
        "--command",
        common::BIN,
        "--arg",
        "demo-server",
    ])
    .ok();
    let approved = sb
        .run(&["--json", "tools", "approve", "demo", "echo"])
        .ok()
        .json();
    assert_eq!(approved["autoApproved"], true, "{approved}");
    let listed = sb.run(&["--json", "servers", "list"]).ok().json();
    let tools = &server(&listed, "demo")["autoApprovedTools"];
    assert!(
        tools.as_array().is_some_and(|t| t.contains(&json!("echo"))),
        "{listed}"
    );
    let off = sb
        .run(&["--json", "tools", "approve", "demo", "echo", "--off"])
        .ok()
        .json();
    assert_eq!(off["autoApproved"], false, "{off}");
    let text = sb.run(&["tools", "approve", "demo", "echo"]).ok();
    assert!(text.stdout.contains("runs without asking"), "{text:?}");
    let missing = sb.run(&["tools", "approve", "nope", "echo"]).failed();
    assert!(missing.stderr.contains("nope"), "{missing:?}");
}

/// `tools search QUERY` finds tools by what they do and by name, best first, as
/// `GET /api/tools/search` does.
#[test]
fn tools_are_searched_from_the_command_line() {
    let sb = Switchboard::new();
    sb.run(&[
        "servers",
        "add",
        "demo",
        "--command",
        common::BIN,
        "--arg",
        "demo-server",
    ])
    .ok();
    let found = sb
        .run(&[
            "--json",
            "tools",
            "search",
            "evaluate an arithmetic expression",
        ])
        .ok()
        .json();
    assert_eq!(found["results"][0]["tool"], "calculate", "{found}");
    assert_eq!(
        found["results"][0]["name"], "mcp__demo__calculate",
        "{found}"
    );
    let named = sb
        .run(&["--json", "tools", "search", "echo", "--limit", "1"])
        .ok()
        .json();
    assert_eq!(named["results"].as_array().unwrap().len(), 1, "{named}");
    assert_eq!(named["results"][0]["tool"], "echo", "{named}");
    let text = sb.run(&["tools", "search", "echo"]).ok();
    assert!(text.stdout.contains("mcp__demo__echo"), "{text:?}");
    let none = sb.run(&["tools", "search", "zzzz qqqq"]).ok();
    assert!(none.stdout.contains("no tool matches"), "{none:?}");
}
