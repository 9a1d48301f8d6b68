//! The command line on the store: the one-time import of an old `servers.json`, secrets masked
//! on display and encrypted at rest, the secret key, conflicts and where the database is.

use crate::common;

use common::{BIN, Switchboard};
use serde_json::{Value, json};
use switchboard_core::MASK;

/// Base64 of 32 zero bytes: a well-formed key that is not the one in the key file.
const WRONG_KEY: &str = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

fn names(list: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = list
        .as_array()
        .expect("array")
        .iter()
        .map(|s| s["name"].as_str().expect("name"))
        .collect();
    names.sort_unstable();
    names
}

fn server<'a>(list: &'a Value, name: &str) -> &'a Value {
    list.as_array()
        .expect("array")
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no server {name} in {list}"))
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

/// A servers file as earlier versions wrote it: a pretty JSON array of specs.
fn old_servers_file() -> String {
    let servers = json!([
        {
            "id": "demo",
            "name": "demo",
            "transport": "stdio",
            "command": BIN,
            "args": ["demo-server"],
            "env": {"GITHUB_TOKEN": "ghp_legacy_secret_1", "DEBUG": "1"},
            "auth": {"type": "none"},
            "timeout": 30.0,
            "enabled": true
        },
        {
            "id": "remote",
            "name": "remote",
            "transport": "streamable_http",
            "url": "https://mcp.example.com/mcp",
            "headers": {"X-Team": "blue"},
            "auth": {"type": "bearer", "token": "legacy-bearer-secret-2"},
            "enabled": true
        },
        {
            "id": "legacy",
            "name": "legacy",
            "transport": "sse",
            "url": "https://mcp.example.com/sse",
            "auth": {"type": "none"},
            "enabled": false
        }
    ]);
    let mut text = serde_json::to_string_pretty(&servers).expect("json");
    text.push('\n');
    text
}

#[test]
fn an_old_servers_file_is_imported_once_and_left_untouched() {
    let sb = Switchboard::new();
    std::fs::create_dir_all(sb.data_dir()).expect("mkdir");
    std::fs::write(sb.servers_file(), old_servers_file()).expect("write");
    let original = std::fs::read(sb.servers_file()).expect("read");

    let first = sb.run(&["servers", "list", "--json"]).ok();
    let path = sb.servers_file();
    assert!(
        first.stderr.contains(&format!(
            "imported 3 servers from {}; the file is no longer read",
            path.display()
        )),
        "{first:?}"
    );
    let list = first.json();
    assert_eq!(names(&list), ["demo", "legacy", "remote"]);
    let demo = server(&list, "demo");
    assert_eq!(demo["env"]["DEBUG"], "1");
    assert_eq!(
        demo["env"]["GITHUB_TOKEN"], MASK,
        "credentials become secret"
    );
    assert_eq!(demo["timeout"], 30.0);
    assert_eq!(server(&list, "remote")["auth"]["token"], MASK);
    assert_eq!(server(&list, "legacy")["enabled"], false);
    assert!(
        !first.stdout.contains("legacy-bearer-secret-2"),
        "{first:?}"
    );
    let stored = sb.database_bytes();
    assert!(!contains(&stored, "ghp_legacy_secret_1"));
    assert!(!contains(&stored, "legacy-bearer-secret-2"));

    // The imported server connects with its secrets.
    let called = sb
        .run(&[
            "call",
            "demo",
            "calculate",
            "--args",
            r#"{"expression": "6*7"}"#,
        ])
        .ok();
    assert_eq!(called.stdout, "42\n");
    assert!(!called.stderr.contains("imported"), "{called:?}");

    // Later runs do not import again: a removed server stays removed.
    let removed = sb.run(&["servers", "remove", "remote"]).ok();
    assert!(!removed.stderr.contains("imported"), "{removed:?}");
    let again = sb.run(&["servers", "list", "--json"]).ok();
    assert!(again.stderr.is_empty(), "{again:?}");
    assert_eq!(names(&again.json()), ["demo", "legacy"]);

    assert_eq!(
        std::fs::read(sb.servers_file()).expect("read"),
        original,
        "servers.json must never be modified"
    );

    // After the import the file is not read again: breaking it changes nothing.
    std::fs::write(sb.servers_file(), "{ not json").expect("write");
    let after = sb.run(&["servers", "list", "--json"]).ok();
    assert_eq!(names(&after.json()), ["demo", "legacy"]);
}

#[test]
fn an_empty_data_dir_imports_nothing_and_creates_no_servers_file() {
    let sb = Switchboard::new();
    let run = sb.run(&["servers", "list"]).ok();
    assert!(run.stderr.is_empty(), "{run:?}");
    assert!(!sb.servers_file().exists());
    assert!(sb.database().exists());
}

#[test]
fn secrets_are_masked_on_display_and_encrypted_at_rest() {
    let sb = Switchboard::new();
    let added = sb
        .run(&[
            "servers",
            "add",
            "local",
            "--command",
            "some-server",
            "--secret-env",
            "TOKEN=hunter2",
            "--env",
            "DEBUG=1",
            "--json",
        ])
        .ok();
    assert!(!added.stdout.contains("hunter2"), "{added:?}");
    assert_eq!(added.json()["server"]["env"]["TOKEN"], MASK);
    sb.run(&[
        "servers",
        "add",
        "remote",
        "--url",
        "https://mcp.example.com/mcp",
        "--header",
        "X-Key=abc",
        "--bearer",
        "bearer-secret-7f3k",
    ])
    .ok();

    let json = sb.run(&["servers", "list", "--json"]).ok();
    for secret in ["hunter2", "abc", "bearer-secret-7f3k"] {
        assert!(!json.stdout.contains(secret), "{secret} shown: {json:?}");
    }
    let list = json.json();
    let local = server(&list, "local");
    assert_eq!(local["env"], json!({"DEBUG": "1", "TOKEN": MASK}));
    assert_eq!(local["secretEnv"], json!(["TOKEN"]));
    assert_eq!(server(&list, "remote")["headers"]["X-Key"], MASK);
    let table = sb.run(&["servers", "list"]).ok();
    assert!(!table.stdout.contains("hunter2"), "{table:?}");

    let stored = sb.database_bytes();
    assert!(!contains(&stored, "hunter2"), "hunter2 stored in clear");
    assert!(!contains(&stored, "bearer-secret-7f3k"));
}

/// `servers test` hands the process its secret env value in clear, not the mask.
#[cfg(unix)]
#[test]
fn servers_connect_with_their_secrets_in_clear() {
    let sb = Switchboard::new();
    let out = sb.data_dir().join("seen-token");
    let out = out.to_str().expect("utf-8");
    let script = r#"printf %s "$TOKEN" > "$OUT"; exec "$DEMO" demo-server"#;
    sb.run(&[
        "servers",
        "add",
        "spy",
        "--command",
        "/bin/sh",
        "--arg",
        "-c",
        "--arg",
        script,
        "--secret-env",
        "TOKEN=hunter2",
        "--env",
        &format!("OUT={out}"),
        "--env",
        &format!("DEMO={BIN}"),
    ])
    .ok();
    let tested = sb.run(&["servers", "test", "spy"]).ok();
    assert!(tested.stdout.contains("switchboard-demo"), "{tested:?}");
    assert_eq!(std::fs::read_to_string(out).expect("seen-token"), "hunter2");
}

#[test]
fn a_wrong_secret_key_is_refused_and_changes_nothing() {
    let sb = Switchboard::new();
    sb.run(&[
        "servers",
        "add",
        "local",
        "--command",
        "some-server",
        "--secret-env",
        "TOKEN=hunter2",
    ])
    .ok();
    let key_file = sb.data_dir().join("secret.key");
    let key = std::fs::read_to_string(&key_file).expect("the key file is created");
    let before = sb.run(&["servers", "list", "--json"]).ok().stdout;

    let wrong = [("SWITCHBOARD_SECRET_KEY", WRONG_KEY)];
    let listed = sb.run_with_env(&["servers", "list"], &wrong).failed();
    assert!(
        listed.stderr.contains("secret key") && listed.stderr.contains("SWITCHBOARD_SECRET_KEY"),
        "{listed:?}"
    );
    assert!(listed.stdout.is_empty(), "{listed:?}");
    let added = sb
        .run_with_env(
            &["servers", "add", "never-stored-9q", "--command", "x"],
            &wrong,
        )
        .failed();
    assert!(added.stderr.contains("secret key"), "{added:?}");
    assert!(!contains(&sb.database_bytes(), "never-stored-9q"));

    // The rows are compared rather than the file's bytes: a process that merely opens the
    // database may fold the write-ahead log into it on exit, which changes the bytes but not
    // one row.
    assert_eq!(std::fs::read_to_string(&key_file).expect("key"), key);
    let after = sb.run(&["servers", "list", "--json"]).ok().stdout;
    assert_eq!(after, before);

    // The right key, given in the environment, opens it.
    let right = sb
        .run_with_env(
            &["servers", "list", "--json"],
            &[("SWITCHBOARD_SECRET_KEY", key.trim())],
        )
        .ok();
    assert_eq!(right.stdout, before);
}

#[test]
fn the_secret_key_is_not_taken_from_the_command_line() {
    let sb = Switchboard::new();
    let run = sb
        .run(&["servers", "list", "--secret-key", WRONG_KEY])
        .failed();
    assert!(run.stderr.contains("SWITCHBOARD_SECRET_KEY"), "{run:?}");
    assert!(!sb.data_dir().exists(), "nothing was opened");
    let help = sb.run(&["--help"]).ok();
    assert!(!help.stdout.contains("secret-key"), "{help:?}");
}

#[test]
fn a_duplicate_server_is_a_conflict() {
    let sb = Switchboard::new();
    sb.run(&["servers", "add", "demo", "--command", "first"])
        .ok();

    let same_name = sb
        .run(&["servers", "add", "demo", "--command", "second"])
        .failed();
    assert!(
        same_name.stderr.starts_with("error CONFLICT:"),
        "{same_name:?}"
    );
    let json = sb
        .run(&["servers", "add", "demo", "--command", "second", "--json"])
        .failed()
        .json();
    assert_eq!(json["code"], "CONFLICT");

    // "Demo" is another name with the same id.
    let same_id = sb
        .run(&["servers", "add", "Demo", "--command", "third", "--replace"])
        .failed();
    assert!(
        same_id.stderr.starts_with("error CONFLICT:") && same_id.stderr.contains("another name"),
        "{same_id:?}"
    );

    let list = sb.run(&["servers", "list", "--json"]).ok().json();
    assert_eq!(names(&list), ["demo"]);
    assert_eq!(server(&list, "demo")["command"], "first");
}

#[test]
fn the_database_url_comes_from_the_flag_or_the_environment() {
    let sb = Switchboard::new();
    let dir = tempfile::tempdir().expect("temp dir");
    let other = dir.path().join("other.db");
    let url = format!("sqlite:{}", other.display());
    sb.run_with_env(
        &["servers", "add", "elsewhere", "--command", "x"],
        &[("DATABASE_URL", &url)],
    )
    .ok();
    assert!(other.exists());
    assert!(!sb.database().exists(), "the default database is not used");
    let list = sb
        .run(&["servers", "list", "--json", "--database-url", &url])
        .ok()
        .json();
    assert_eq!(names(&list), ["elsewhere"]);

    let bad = sb
        .run_with_env(
            &["servers", "list", "--json"],
            &[("DATABASE_URL", "mysql://user:pw@host/db")],
        )
        .failed();
    let error = bad.json();
    assert_eq!(error["code"], "VALIDATION_ERROR");
    assert!(
        !error["message"].as_str().unwrap_or_default().contains("pw"),
        "{bad:?}"
    );
}
