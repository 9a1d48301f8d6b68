//! The loader on its own: precedence per section, unknown keys, bad values, redaction.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use super::*;

fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

fn file(text: &str) -> (tempfile::TempDir, FileChoice) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("switchboard.toml");
    std::fs::write(&path, text).unwrap();
    (dir, FileChoice::Given(path))
}

fn load(
    choice: &FileChoice,
    env: &[(&str, &str)],
    flags: &SettingsFlags,
) -> Result<Loaded, SettingsError> {
    Settings::load(choice, &env_of(env), flags, &StoreShown::default())
}

fn shown<'a>(loaded: &'a Loaded, key: &str) -> &'a Shown {
    loaded
        .shown
        .iter()
        .find(|s| s.key == key)
        .unwrap_or_else(|| panic!("{key} not shown"))
}

#[test]
fn defaults_are_seed_001s() {
    let dir = tempfile::tempdir().unwrap();
    let choice = file_choice(None, dir.path());
    let loaded = load(&choice, &[], &SettingsFlags::default()).unwrap();
    let s = &loaded.settings;
    assert_eq!(s.manager.connect_timeout, Duration::from_secs(30));
    assert_eq!(s.manager.tool_cache_ttl, Duration::from_secs(300));
    assert_eq!(s.manager.idle_timeout, Duration::from_secs(1800));
    assert_eq!(s.manager.http_connections_per_upstream, 32);
    assert_eq!(s.manager.retry, switchboard_mcp::RetryPolicy::default());
    assert_eq!(s.manager.breaker, switchboard_mcp::BreakerPolicy::default());
    assert_eq!(s.server.listen.to_string(), "127.0.0.1:8080");
    assert_eq!(s.server.max_body_bytes, 4 * 1024 * 1024);
    assert_eq!(s.quotas.max_servers, 100);
    assert_eq!(s.agent.max_result_chars, 100_000);
    assert!(loaded.file.is_none(), "a missing default file is fine");
    assert!(loaded.shown.iter().all(|s| s.origin == Origin::Default));
}

#[test]
fn each_layer_overrides_the_one_below_in_every_section() {
    let (_dir, choice) = file(
        r#"
        [server]
        max_body_bytes = 1000
        shutdown_grace = "3s"
        [manager]
        connect_timeout = "5s"
        idle_timeout = "1m"
        http_connections_per_upstream = 8
        [manager.retry]
        max_retries = 5
        initial_delay = "2s"
        [manager.breaker]
        max_delay = "2m"
        [agent]
        max_rounds = 7
        max_result_chars = 500
        [quotas]
        max_servers = 9
        max_runs = 2
        allowed_destinations = ["10.0.0.0/8"]
        "#,
    );
    let env = [
        ("SWITCHBOARD_SHUTDOWN_GRACE", "4s"),
        ("SWITCHBOARD_IDLE_TIMEOUT", "2m"),
        ("SWITCHBOARD_RETRY_INITIAL_DELAY", "3s"),
        ("SWITCHBOARD_MAX_RESULT_CHARS", "600"),
        ("SWITCHBOARD_MAX_RUNS", "3"),
        (
            "SWITCHBOARD_ALLOW_DESTINATIONS",
            "mcp.internal, 192.168.0.0/16",
        ),
    ];
    let mut flags = SettingsFlags::default();
    flags.server.shutdown_grace = Some("6s".into());
    flags.manager.idle_timeout = Some("3m".into());
    flags.agent.max_result_chars = Some("700".into());
    flags.quotas.max_runs = Some("1".into());
    let loaded = load(&choice, &env, &flags).unwrap();
    let path = match &choice {
        FileChoice::Given(path) => path.clone(),
        FileChoice::Default(_) => unreachable!(),
    };
    let expect = [
        ("server.max_body_bytes", "1000", Origin::File(path.clone())),
        (
            "server.shutdown_grace",
            "\"6s\"",
            Origin::Flag("--shutdown-grace"),
        ),
        ("server.listen", "\"127.0.0.1:8080\"", Origin::Default),
        (
            "manager.connect_timeout",
            "\"5s\"",
            Origin::File(path.clone()),
        ),
        (
            "manager.idle_timeout",
            "\"3m\"",
            Origin::Flag("--idle-timeout"),
        ),
        (
            "manager.http_connections_per_upstream",
            "8",
            Origin::File(path.clone()),
        ),
        ("manager.retry.max_retries", "5", Origin::File(path.clone())),
        (
            "manager.retry.initial_delay",
            "\"3s\"",
            Origin::Env("SWITCHBOARD_RETRY_INITIAL_DELAY"),
        ),
        ("agent.max_rounds", "7", Origin::File(path.clone())),
        (
            "agent.max_result_chars",
            "700",
            Origin::Flag("--max-result-chars"),
        ),
        ("quotas.max_servers", "9", Origin::File(path.clone())),
        ("quotas.max_runs", "1", Origin::Flag("--max-runs")),
        (
            "quotas.allowed_destinations",
            r#"["mcp.internal", "192.168.0.0/16"]"#,
            Origin::Env("SWITCHBOARD_ALLOW_DESTINATIONS"),
        ),
    ];
    for (key, value, origin) in expect {
        let row = shown(&loaded, key);
        assert_eq!((row.value.as_str(), &row.origin), (value, &origin), "{key}");
    }
    let s = &loaded.settings;
    assert_eq!(s.server.max_body_bytes, 1000);
    assert_eq!(
        s.manager.manager_config().idle_timeout,
        Duration::from_secs(180)
    );
    assert_eq!(s.manager.retry.initial_delay, Duration::from_secs(3));
    assert_eq!(
        s.manager.manager_config().breaker.max_delay,
        Duration::from_secs(120)
    );
    assert_eq!(s.manager.manager_config().http_connections_per_upstream, 8);
    assert_eq!(s.agent.agent_config().max_result_chars, 700);
    assert_eq!(s.quotas.limits().max_runs, 1);
    assert_eq!(s.quotas.destination_rules().allowed.len(), 2);
}

#[test]
fn an_unknown_key_names_the_key_and_the_file() {
    let (_dir, choice) = file("[manager]\nconect_timeout = \"5s\"\n");
    let error = load(&choice, &[], &SettingsFlags::default()).unwrap_err();
    let text = error.to_string();
    assert!(text.contains("`manager.conect_timeout`"), "{text}");
    assert!(text.contains("switchboard.toml"), "{text}");
    // Inside a node's table (a section whose table names are the user's), too.
    let (_dir, choice) = file("[nodes.a]\nurl = \"https://a\"\ntoken = \"t\"\nurll = \"x\"\n");
    let text = load(&choice, &[], &SettingsFlags::default())
        .unwrap_err()
        .to_string();
    assert!(text.contains("unknown key `nodes.a.urll`"), "{text}");
}

#[test]
fn a_bad_value_names_the_key_the_source_and_what_is_expected() {
    let (_dir, choice) = file("[quotas]\nmax_servers = \"many\"\n");
    let text = load(&choice, &[], &SettingsFlags::default())
        .unwrap_err()
        .to_string();
    assert!(text.contains("`quotas.max_servers`"), "{text}");
    assert!(text.contains("file "), "{text}");
    assert!(text.contains("a whole number"), "{text}");
    let dir = tempfile::tempdir().unwrap();
    let choice = file_choice(None, dir.path());
    let text = load(
        &choice,
        &[("SWITCHBOARD_CONNECT_TIMEOUT", "soon")],
        &SettingsFlags::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(text.contains("env SWITCHBOARD_CONNECT_TIMEOUT"), "{text}");
    assert!(text.contains("a duration"), "{text}");
}

#[test]
fn a_missing_config_file_is_an_error_but_a_missing_default_is_not() {
    let missing = FileChoice::Given(PathBuf::from("/nonexistent/switchboard.toml"));
    let text = load(&missing, &[], &SettingsFlags::default())
        .unwrap_err()
        .to_string();
    assert!(text.contains("/nonexistent/switchboard.toml"), "{text}");
    let absent = FileChoice::Default(PathBuf::from("/nonexistent/switchboard.toml"));
    assert!(load(&absent, &[], &SettingsFlags::default()).is_ok());
}

#[test]
fn secrets_are_shown_as_set_only() {
    let dir = tempfile::tempdir().unwrap();
    let store = StoreShown {
        data_dir: dir.path().to_owned(),
        data_dir_origin: None,
        database_url_origin: Some(Origin::Env("DATABASE_URL")),
        secret_key_origin: None,
    };
    let loaded = Settings::load(
        &file_choice(None, dir.path()),
        &env_of(&[]),
        &SettingsFlags::default(),
        &store,
    )
    .unwrap();
    assert_eq!(shown(&loaded, "store.database_url").value, "\"***\"");
    assert_eq!(shown(&loaded, "store.secret_key").value, "\"\"");
}

#[test]
fn the_readme_documents_every_key_with_its_variable_and_flag() {
    let readme = include_str!("../../../../README.md");
    let dir = tempfile::tempdir().unwrap();
    let loaded = load(
        &file_choice(None, dir.path()),
        &[],
        &SettingsFlags::default(),
    )
    .unwrap();
    for shown in &loaded.shown {
        let env = shown.env.map_or("none".to_owned(), |e| format!("`{e}`"));
        let row = format!("| `{}` | {env} | ", shown.key);
        assert!(readme.contains(&row), "README has no row starting {row}");
        if let Some(flag) = shown.flag {
            assert!(
                readme.contains(&format!("{row}`{flag}` |")),
                "README's row of {} names {flag}",
                shown.key
            );
        }
    }
}

#[test]
fn every_flag_a_key_names_is_a_flag_of_serve_and_config_show() {
    use clap::CommandFactory;
    let command = crate::cli::Cli::command();
    let dir = tempfile::tempdir().unwrap();
    let loaded = load(
        &file_choice(None, dir.path()),
        &[],
        &SettingsFlags::default(),
    )
    .unwrap();
    for sub in [vec!["serve"], vec!["config", "show"]] {
        let mut found = &command;
        for name in &sub {
            found = found.find_subcommand(name).unwrap();
        }
        let longs: Vec<String> = found
            .get_arguments()
            .chain(command.get_arguments())
            .filter_map(|a| a.get_long().map(|l| format!("--{l}")))
            .collect();
        for shown in &loaded.shown {
            if let Some(flag) = shown.flag {
                assert!(longs.iter().any(|l| l == flag), "{sub:?} has no {flag}");
            }
        }
    }
}
