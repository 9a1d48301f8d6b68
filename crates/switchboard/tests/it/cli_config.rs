//! The layered settings through the real binary: `config show` says, for every section,
//! which layer won (default < switchboard.toml < SWITCHBOARD_* < flag); unknown keys and
//! missing files are refused; credentials are never printed; and a value from the file is
//! what `serve` really runs with.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::Switchboard;
use common::serve::{serve, serve_with_env, terminate};
use serde_json::Value;

/// Writes `<data-dir>/switchboard.toml`, the file read when no `--config` is given.
fn write_default_file(sb: &Switchboard, text: &str) -> std::path::PathBuf {
    std::fs::create_dir_all(sb.data_dir()).unwrap();
    let path = sb.data_dir().join("switchboard.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `config show --json` as (key -> (value, origin)).
fn shown(run: &common::Run) -> std::collections::HashMap<String, (String, String)> {
    run.json()
        .as_array()
        .unwrap()
        .iter()
        .map(|row: &Value| {
            (
                row["key"].as_str().unwrap().to_owned(),
                (
                    row["value"].as_str().unwrap().to_owned(),
                    row["origin"].as_str().unwrap().to_owned(),
                ),
            )
        })
        .collect()
}

#[test]
fn each_layer_overrides_the_one_below_in_every_section() {
    let sb = Switchboard::new();
    let file = write_default_file(
        &sb,
        r#"
        [server]
        shutdown_grace = "2s"
        allowed_hosts = ["from-file.example"]
        max_body_bytes = 2000
        [manager]
        connect_timeout = "5s"
        call_timeout = "6s"
        tool_cache_ttl = "7s"
        [manager.retry]
        max_retries = 5
        [agent]
        max_result_chars = 10
        max_rounds = 11
        [quotas]
        max_servers = 12
        max_runs = 13
        write_interval = "1s"
        "#,
    );
    let file_origin = format!("file {}", file.display());
    let run = sb
        .run_with_env(
            &[
                "config",
                "show",
                "--json",
                "--max-body-bytes",
                "3000",
                "--tool-cache-ttl",
                "9s",
                "--max-rounds",
                "15",
                "--write-interval",
                "3s",
            ],
            &[
                (
                    "SWITCHBOARD_ALLOWED_HOSTS",
                    "from-env.example,other.example",
                ),
                ("SWITCHBOARD_MAX_BODY_BYTES", "2500"),
                ("SWITCHBOARD_CALL_TIMEOUT", "8s"),
                ("SWITCHBOARD_TOOL_CACHE_TTL", "8s"),
                ("SWITCHBOARD_MAX_RESULT_CHARS", "14"),
                ("SWITCHBOARD_MAX_RUNS", "16"),
                ("SWITCHBOARD_WRITE_INTERVAL", "2s"),
            ],
        )
        .ok();
    let rows = shown(&run);
    let expect: &[(&str, &str, &str)] = &[
        // server
        ("server.listen", "\"127.0.0.1:8080\"", "default"),
        ("server.shutdown_grace", "\"2s\"", &file_origin),
        (
            "server.allowed_hosts",
            r#"["from-env.example", "other.example"]"#,
            "env SWITCHBOARD_ALLOWED_HOSTS",
        ),
        ("server.max_body_bytes", "3000", "flag --max-body-bytes"),
        // manager
        ("manager.idle_timeout", "\"30m\"", "default"),
        ("manager.connect_timeout", "\"5s\"", &file_origin),
        (
            "manager.call_timeout",
            "\"8s\"",
            "env SWITCHBOARD_CALL_TIMEOUT",
        ),
        ("manager.tool_cache_ttl", "\"9s\"", "flag --tool-cache-ttl"),
        ("manager.retry.max_retries", "5", &file_origin),
        ("manager.retry.initial_delay", "\"1s\"", "default"),
        // agent
        (
            "agent.max_result_chars",
            "14",
            "env SWITCHBOARD_MAX_RESULT_CHARS",
        ),
        ("agent.max_rounds", "15", "flag --max-rounds"),
        // quotas
        ("quotas.max_assistants", "100", "default"),
        ("quotas.max_servers", "12", &file_origin),
        ("quotas.max_runs", "16", "env SWITCHBOARD_MAX_RUNS"),
        ("quotas.write_interval", "\"3s\"", "flag --write-interval"),
    ];
    for (key, value, origin) in expect {
        let (got_value, got_origin) = rows.get(*key).unwrap_or_else(|| panic!("{key}: {run:#?}"));
        assert_eq!(
            (got_value.as_str(), got_origin.as_str()),
            (*value, *origin),
            "{key}"
        );
    }
}

#[test]
fn text_output_is_toml_with_the_origin_of_each_value() {
    let sb = Switchboard::new();
    let run = sb
        .run_with_env(&["config", "show"], &[("SWITCHBOARD_MAX_SERVERS", "7")])
        .ok();
    assert!(run.stdout.contains("[quotas]"), "{}", run.stdout);
    assert!(
        run.stdout
            .contains("max_servers = 7  # env SWITCHBOARD_MAX_SERVERS"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("connect_timeout = \"30s\"  # default"),
        "{}",
        run.stdout
    );
}

#[test]
fn an_unknown_key_is_refused_by_config_show_and_serve() {
    let sb = Switchboard::new();
    let file = write_default_file(&sb, "[manager]\nconect_timeout = \"5s\"\n");
    for args in [
        &["config", "show"][..],
        &["serve", "--listen", "127.0.0.1:0"][..],
    ] {
        let run = sb.run(args).failed();
        assert!(
            run.stderr.contains("unknown key `manager.conect_timeout`"),
            "{args:?}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains(&file.display().to_string()),
            "{args:?}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_bad_value_names_the_key_its_source_and_what_is_expected() {
    let sb = Switchboard::new();
    let run = sb
        .run_with_env(
            &["config", "show"],
            &[("SWITCHBOARD_IDLE_TIMEOUT", "forever")],
        )
        .failed();
    for part in [
        "`manager.idle_timeout`",
        "env SWITCHBOARD_IDLE_TIMEOUT",
        "a duration",
    ] {
        assert!(run.stderr.contains(part), "{part}: {}", run.stderr);
    }
}

#[test]
fn a_missing_config_file_is_an_error_but_a_missing_default_file_is_not() {
    let sb = Switchboard::new();
    let missing = sb.data_dir().join("elsewhere.toml");
    let run = sb
        .run(&["config", "show", "--config", missing.to_str().unwrap()])
        .failed();
    assert!(
        run.stderr.contains(&missing.display().to_string()),
        "{}",
        run.stderr
    );
    let run = sb.run(&["config", "show"]).ok();
    assert!(
        run.stdout.contains("# settings file: none"),
        "{}",
        run.stdout
    );
}

#[test]
fn a_file_given_with_config_is_read() {
    let sb = Switchboard::new();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("custom.toml");
    std::fs::write(&path, "[quotas]\nmax_providers = 3\n").unwrap();
    let run = sb
        .run(&[
            "config",
            "show",
            "--json",
            "--config",
            path.to_str().unwrap(),
        ])
        .ok();
    let rows = shown(&run);
    assert_eq!(
        rows["quotas.max_providers"],
        ("3".to_owned(), format!("file {}", path.display()))
    );
}

#[test]
fn config_show_never_prints_credentials() {
    let sb = Switchboard::new();
    let key = "c2VjcmV0LWtleS1ub3QtdG8tYmUtcHJpbnRlZC0xMjM0NQ==";
    for args in [&["config", "show"][..], &["config", "show", "--json"][..]] {
        let run = sb
            .run_with_env(
                args,
                &[
                    ("SWITCHBOARD_SECRET_KEY", key),
                    (
                        "DATABASE_URL",
                        "postgres://user:hunter2@db.example/switchboard",
                    ),
                ],
            )
            .ok();
        let all = format!("{}{}", run.stdout, run.stderr);
        assert!(!all.contains("hunter2"), "{all}");
        assert!(!all.contains(key), "{all}");
        assert!(all.contains("***"), "shown as set: {all}");
    }
}

#[tokio::test]
async fn a_body_limit_from_the_file_is_what_serve_enforces() {
    let body = format!("{{\"name\": \"{}\"}}", "x".repeat(5000));
    let post = async |served: &common::serve::Served| {
        reqwest::Client::new()
            .post(format!("{}/api/mcp-servers", served.base))
            .bearer_auth(served.token.clone().unwrap())
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await
            .unwrap()
            .status()
    };
    let sb = Switchboard::new();
    write_default_file(&sb, "[server]\nmax_body_bytes = 1000\n");
    let mut served = serve(&sb, &[]);
    assert_eq!(post(&served).await, 413, "the file's limit");
    assert!(terminate(&mut served).success());
    // A flag over the same file: the same body now reaches the handler (and is refused
    // there for what it says, not for its size).
    let sb = Switchboard::new();
    write_default_file(&sb, "[server]\nmax_body_bytes = 1000\n");
    let mut served = serve_with_env(&sb, &["--max-body-bytes", "100000"], &[]);
    let status = post(&served).await;
    assert!(status != 413 && status.is_client_error(), "{status}");
    assert!(terminate(&mut served).success());
}

#[test]
fn the_other_commands_connect_with_the_files_manager_settings() {
    let sb = Switchboard::new();
    // A "server" that never answers the handshake: only the connect timeout ends the wait.
    sb.run(&[
        "servers",
        "add",
        "silent",
        "--command",
        "sleep",
        "--arg",
        "30",
    ])
    .ok();
    write_default_file(
        &sb,
        "[manager]\nconnect_timeout = \"1s\"\n[manager.retry]\nmax_retries = 0\n",
    );
    let started = std::time::Instant::now();
    let run = sb.run(&["tools", "list", "--json"]);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "the default 30s was used: {run:#?}"
    );
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(all.contains("MCP_TIMEOUT"), "{all}");
    assert!(all.contains("within 1s"), "{all}");
}
