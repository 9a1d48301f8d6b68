use std::collections::BTreeMap;

use proptest::prelude::*;

use super::*;
use crate::spec::{Auth, TransportKind};

fn embedded() -> Catalogue {
    Catalogue::embedded().unwrap_or_else(|e| panic!("{e}"))
}

fn values(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// A one-entry catalogue file around `launch` and `settings`.
fn one(transport: &str, launch: &str, settings: &str) -> Result<Catalogue, CatalogueError> {
    Catalogue::parse(&format!(
        r#"[{{"name": "x", "title": "X", "description": "d", "source": "reference",
            "transport": "{transport}", "launch": {launch}, "tools": ["t"],
            "settings": {settings}}}]"#
    ))
}

fn problem(result: Result<Catalogue, CatalogueError>) -> EntryProblem {
    match result {
        Err(CatalogueError::Entry { problem, .. }) => problem,
        other => panic!("expected an entry problem, got {other:?}"),
    }
}

#[test]
fn the_embedded_catalogue_parses_and_every_entry_is_complete() {
    let catalogue = embedded();
    for name in [
        "everything",
        "filesystem",
        "memory",
        "fetch",
        "time",
        "git",
        "sequential-thinking",
        "modelscope-fetch",
        "modelscope-search",
    ] {
        let entry = catalogue
            .entry(name)
            .unwrap_or_else(|| panic!("{name} is missing"));
        assert!(!entry.tools.is_empty(), "{name}");
        // Every entry makes a valid server once its required settings are filled in.
        let filled = entry
            .settings
            .iter()
            .filter(|s| s.required)
            .map(|s| {
                let value = match s.kind {
                    SettingKind::Path => "/srv/some/where",
                    _ => "value",
                };
                (s.name.clone(), value.to_owned())
            })
            .collect();
        let spec = entry
            .server_spec(None, &filled)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(spec.name, name);
        assert_eq!(spec.transport, entry.transport);
    }
    // Seed 002's presets are the ModelScope entries, by their seed URLs and tools.
    let fetch = catalogue
        .entry("modelscope-fetch")
        .map(|e| (&e.launch, &e.tools));
    assert!(matches!(fetch, Some((Launch::Remote(r), tools))
        if r.url == "https://mcp.modelscope.cn/servers/fetch" && tools == &["fetch"]));
    // The settings a person must fill: a root folder, a repository, an API key.
    let required = |name: &str| -> Vec<(String, SettingKind)> {
        (catalogue.entry(name).into_iter())
            .flat_map(|e| e.settings.iter().filter(|s| s.required))
            .map(|s| (s.name.clone(), s.kind))
            .collect()
    };
    assert_eq!(
        required("filesystem"),
        [("root".to_owned(), SettingKind::Path)]
    );
    assert_eq!(
        required("git"),
        [("repository".to_owned(), SettingKind::Path)]
    );
    assert_eq!(
        required("modelscope-search"),
        [("api_key".to_owned(), SettingKind::Secret)]
    );
}

#[test]
fn settings_fill_the_launch() {
    let catalogue = embedded();
    let git = catalogue.entry("git").unwrap();
    let spec = git
        .server_spec(Some("my repo"), &values(&[("repository", "/srv/repo")]))
        .unwrap();
    assert_eq!(spec.name, "my repo");
    assert_eq!(spec.command.as_deref(), Some("uvx"));
    assert_eq!(
        spec.args.last().map(String::as_str),
        Some("--repository=/srv/repo")
    );

    // An optional setting left empty drops its argument or variable.
    let time = catalogue.entry("time").unwrap();
    let spec = time
        .server_spec(None, &values(&[("local_timezone", "")]))
        .unwrap();
    assert_eq!(spec.args.len(), 1);
    let spec = time
        .server_spec(None, &values(&[("local_timezone", "Europe/Paris")]))
        .unwrap();
    assert_eq!(spec.args[1], "--local-timezone=Europe/Paris");
    let memory = catalogue.entry("memory").unwrap();
    assert!(
        memory
            .server_spec(None, &BTreeMap::new())
            .unwrap()
            .env
            .is_empty()
    );

    // A secret goes to the bearer token, never to the command line.
    let search = catalogue.entry("modelscope-search").unwrap();
    let spec = search
        .server_spec(None, &values(&[("api_key", "ms-123")]))
        .unwrap();
    assert_eq!(
        spec.auth,
        Auth::Bearer {
            token: "ms-123".into()
        }
    );
    assert_eq!(spec.transport, TransportKind::Sse);
}

#[test]
fn bad_settings_are_refused_by_name_without_quoting_the_value() {
    let catalogue = embedded();
    let fs = catalogue.entry("filesystem").unwrap();
    assert_eq!(
        fs.server_spec(None, &BTreeMap::new()),
        Err(FillError::MissingSetting("root".into()))
    );
    assert_eq!(
        fs.server_spec(None, &values(&[("root", "")])),
        Err(FillError::MissingSetting("root".into()))
    );
    assert_eq!(
        fs.server_spec(None, &values(&[("root", "/a"), ("other", "x")])),
        Err(FillError::UnknownSetting("other".into()))
    );
    assert!(matches!(
        fs.server_spec(None, &values(&[("root", "relative/dir")])),
        Err(FillError::BadValue {
            problem: ValueProblem::NotAbsolute,
            ..
        })
    ));
    assert!(matches!(
        fs.server_spec(None, &values(&[("root", "/a\n/b")])),
        Err(FillError::BadValue {
            problem: ValueProblem::ControlCharacter,
            ..
        })
    ));
    let search = catalogue.entry("modelscope-search").unwrap();
    let err = search
        .server_spec(None, &values(&[("api_key", "sk-\nsecret")]))
        .unwrap_err();
    assert_eq!(err.setting(), Some("api_key"));
    assert!(!err.to_string().contains("secret"), "{err}");
}

#[test]
fn a_value_cannot_become_an_option() {
    let catalogue = Catalogue::parse(
        r#"[{"name": "x", "title": "X", "description": "d", "source": "reference",
            "transport": "stdio", "tools": ["t"],
            "launch": {"command": "uvx", "args": ["pkg==1.0", "{{word}}"]},
            "settings": [{"name": "word", "label": "W", "kind": "text", "required": true}]}]"#,
    )
    .unwrap();
    let entry = catalogue.entry("x").unwrap();
    assert!(matches!(
        entry.server_spec(None, &values(&[("word", "--help")])),
        Err(FillError::BadValue {
            problem: ValueProblem::LeadingDash,
            ..
        })
    ));
    assert!(entry.server_spec(None, &values(&[("word", "a-b")])).is_ok());
}

#[test]
fn incomplete_entries_are_refused_when_read() {
    let npx = |package: &str| format!(r#"{{"command": "npx", "args": ["-y", "{package}"]}}"#);
    assert!(matches!(
        problem(one(
            "stdio",
            &npx("@modelcontextprotocol/server-memory"),
            "[]"
        )),
        EntryProblem::NotPinned(_)
    ));
    assert!(matches!(
        problem(one("stdio", &npx("@scope/pkg@latest"), "[]")),
        EntryProblem::NotPinned(_)
    ));
    assert!(one("stdio", &npx("@scope/pkg@1.2.3"), "[]").is_ok());
    assert!(matches!(
        problem(one("stdio", r#"{"command": "uvx", "args": ["pkg"]}"#, "[]")),
        EntryProblem::NotPinned(_)
    ));
    assert!(matches!(
        problem(one(
            "stdio",
            r#"{"command": "sh", "args": ["-c", "x"]}"#,
            "[]"
        )),
        EntryProblem::NotPinned(_)
    ));
    assert!(matches!(
        problem(one("sse", &npx("p@1"), "[]")),
        EntryProblem::TransportMismatch(TransportKind::Sse)
    ));
    assert!(matches!(
        problem(one("stdio", r#"{"url": "https://h.example/sse"}"#, "[]")),
        EntryProblem::TransportMismatch(TransportKind::Stdio)
    ));
    assert_eq!(
        problem(one("sse", r#"{"url": "ftp://h.example/sse"}"#, "[]")),
        EntryProblem::BadUrl
    );
    let secret = r#"[{"name": "key", "label": "K", "kind": "secret"}]"#;
    assert!(matches!(
        problem(one(
            "stdio",
            r#"{"command": "uvx", "args": ["p==1", "--key={{key}}"]}"#,
            secret
        )),
        EntryProblem::SecretInArgs(_)
    ));
    assert!(
        one(
            "stdio",
            r#"{"command": "uvx", "args": ["p==1"], "env": {"KEY": "{{key}}"}}"#,
            secret
        )
        .is_ok()
    );
    assert!(matches!(
        problem(one(
            "stdio",
            r#"{"command": "uvx", "args": ["p==1", "{{nope}}"]}"#,
            "[]"
        )),
        EntryProblem::UndeclaredSetting { .. }
    ));
    assert!(matches!(
        problem(one(
            "stdio",
            r#"{"command": "uvx", "args": ["p==1"]}"#,
            secret
        )),
        EntryProblem::UnusedSetting(_)
    ));
    assert!(matches!(
        problem(one(
            "stdio",
            r#"{"command": "uvx", "args": ["p==1", "{{key"]}"#,
            "[]"
        )),
        EntryProblem::Template { .. }
    ));
    assert!(matches!(
        Catalogue::parse(r#"[{"name": "x"}]"#),
        Err(CatalogueError::Parse(_))
    ));
}

#[test]
fn two_entries_may_not_share_a_name() {
    let mut entries = embedded().entries().to_vec();
    entries.push(entries[0].clone());
    assert!(matches!(
        Catalogue::from_entries(entries),
        Err(CatalogueError::Entry {
            problem: EntryProblem::Duplicate,
            ..
        })
    ));
}

proptest! {
    /// Whatever a person types as a root folder, the server made either carries it whole as
    /// the last argument (an absolute path, so never an option) or is refused by name.
    #[test]
    fn any_root_is_carried_whole_or_refused(root in any::<String>()) {
        let catalogue = embedded();
        let fs = catalogue.entry("filesystem").unwrap();
        match fs.server_spec(None, &values(&[("root", &root)])) {
            Ok(spec) => {
                prop_assert_eq!(spec.args.last(), Some(&root));
                prop_assert!(!root.starts_with('-'));
                prop_assert!(!root.chars().any(char::is_control));
            }
            Err(err) => prop_assert_eq!(err.setting(), Some("root")),
        }
    }
}
