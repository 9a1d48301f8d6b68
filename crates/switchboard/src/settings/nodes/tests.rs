//! `[nodes.NAME]` through the whole loader: files read, rules refused with the key named,
//! typos inside a node reported, the token never shown.

use std::path::Path;

use crate::settings::{FileChoice, Loaded, Settings, SettingsError, SettingsFlags, StoreShown};

fn load_in(dir: &Path, text: &str) -> Result<Loaded, SettingsError> {
    let path = dir.join("switchboard.toml");
    std::fs::write(&path, text).unwrap();
    Settings::load(
        &FileChoice::Given(path),
        &|_| None,
        &SettingsFlags::default(),
        &StoreShown::default(),
    )
}

fn error_of(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    load_in(dir.path(), text).unwrap_err().to_string()
}

#[test]
fn a_node_reads_its_files_relative_to_the_settings_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("box.token"), "  s3cret-token\n").unwrap();
    std::fs::write(dir.path().join("ca.pem"), "CA PEM").unwrap();
    std::fs::write(dir.path().join("host.pem"), "CERT").unwrap();
    let key = dir.path().join("host-key.pem");
    std::fs::write(&key, "KEY").unwrap();
    let loaded = load_in(
        dir.path(),
        &format!(
            r#"
            [nodes.build-box]
            url = "https://build-box.internal:7443"
            token_file = "box.token"
            ca = "ca.pem"
            client_cert = "host.pem"
            client_key = "{}"
            [nodes.local_1]
            url = "http://127.0.0.1:7443"
            token = "inline"
            "#,
            key.display()
        ),
    )
    .unwrap();
    let nodes = &loaded.settings.nodes;
    assert_eq!(nodes.len(), 2);
    let remote = &nodes[0];
    assert_eq!(remote.name, "build-box");
    assert_eq!(remote.url, "https://build-box.internal:7443");
    assert_eq!(remote.token, "s3cret-token", "token_file is trimmed");
    assert_eq!(remote.ca_pem.as_deref(), Some(&b"CA PEM"[..]));
    assert_eq!(
        remote.client_identity,
        Some((b"CERT".to_vec(), b"KEY".to_vec()))
    );
    assert!(!remote.allow_plaintext);
    let local = &nodes[1];
    assert_eq!(
        (local.name.as_str(), local.token.as_str()),
        ("local_1", "inline")
    );
    assert!(local.ca_pem.is_none() && local.client_identity.is_none());

    // `config show`: every key given, the token as ***, the token nowhere else.
    let shown = |key: &str| {
        loaded
            .shown
            .iter()
            .find(|s| s.key == key)
            .unwrap_or_else(|| panic!("{key} not shown"))
            .value
            .clone()
    };
    assert_eq!(
        shown("nodes.build-box.url"),
        "\"https://build-box.internal:7443\""
    );
    assert_eq!(shown("nodes.build-box.token_file"), "\"box.token\"");
    assert_eq!(shown("nodes.build-box.token"), "\"***\"");
    assert_eq!(shown("nodes.build-box.ca"), "\"ca.pem\"");
    assert_eq!(shown("nodes.build-box.client_cert"), "\"host.pem\"");
    assert_eq!(shown("nodes.build-box.allow_plaintext"), "false");
    assert_eq!(shown("nodes.local_1.token"), "\"***\"");
    let everything = format!("{:?} {:?}", loaded.shown, loaded.settings);
    assert!(!everything.contains("s3cret-token"), "{everything}");
    assert!(!everything.contains("inline"), "{everything}");
}

#[test]
fn no_nodes_is_an_empty_list() {
    let dir = tempfile::tempdir().unwrap();
    let loaded = load_in(dir.path(), "[manager]\nconnect_timeout = \"5s\"\n").unwrap();
    assert!(loaded.settings.nodes.is_empty());
}

#[test]
fn plaintext_is_for_loopback_unless_allowed() {
    for url in [
        "http://127.0.0.1:7443",
        "http://localhost:7443",
        "http://[::1]:7443",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let text = format!("[nodes.a]\nurl = \"{url}\"\ntoken = \"t\"\n");
        assert!(load_in(dir.path(), &text).is_ok(), "{url}");
    }
    let refused = error_of("[nodes.a]\nurl = \"http://10.0.0.5:7443\"\ntoken = \"t\"\n");
    assert!(refused.contains("nodes.a.url"), "{refused}");
    assert!(refused.contains("allow_plaintext"), "{refused}");
    let dir = tempfile::tempdir().unwrap();
    let allowed = load_in(
        dir.path(),
        "[nodes.a]\nurl = \"http://10.0.0.5:7443\"\ntoken = \"t\"\nallow_plaintext = true\n",
    )
    .unwrap();
    assert!(allowed.settings.nodes[0].allow_plaintext);
    let scheme = error_of("[nodes.a]\nurl = \"ftp://h:1\"\ntoken = \"t\"\n");
    assert!(scheme.contains("scheme `ftp`"), "{scheme}");
    let not_url = error_of("[nodes.a]\nurl = \"build-box:7443\"\ntoken = \"t\"\n");
    assert!(not_url.contains("nodes.a.url"), "{not_url}");
}

#[test]
fn exactly_one_of_token_and_token_file() {
    let both = error_of("[nodes.a]\nurl = \"https://h:1\"\ntoken = \"t\"\ntoken_file = \"f\"\n");
    assert!(
        both.contains("not both") && both.contains("nodes.a.token"),
        "{both}"
    );
    let neither = error_of("[nodes.a]\nurl = \"https://h:1\"\n");
    assert!(
        neither.contains("token_file") && neither.contains("missing"),
        "{neither}"
    );
    let empty = error_of("[nodes.a]\nurl = \"https://h:1\"\ntoken = \"  \"\n");
    assert!(empty.contains("empty"), "{empty}");
    let no_url = error_of("[nodes.a]\ntoken = \"t\"\n");
    assert!(
        no_url.contains("nodes.a.url") && no_url.contains("missing"),
        "{no_url}"
    );
}

#[test]
fn a_missing_file_names_the_key_and_the_file() {
    let missing = error_of("[nodes.a]\nurl = \"https://h:1\"\ntoken_file = \"nope.token\"\n");
    assert!(missing.contains("nodes.a.token_file"), "{missing}");
    assert!(missing.contains("nope.token"), "{missing}");
    let ca = error_of("[nodes.a]\nurl = \"https://h:1\"\ntoken = \"t\"\nca = \"ca.pem\"\n");
    assert!(ca.contains("nodes.a.ca") && ca.contains("ca.pem"), "{ca}");
    let half =
        error_of("[nodes.a]\nurl = \"https://h:1\"\ntoken = \"t\"\nclient_cert = \"c.pem\"\n");
    assert!(half.contains("nodes.a.client_key"), "{half}");
}

#[test]
fn names_follow_the_rule_and_typos_are_unknown_keys() {
    for bad in ["Build", "-box", "a.b"] {
        let text = format!("[nodes.\"{bad}\"]\nurl = \"https://h:1\"\ntoken = \"t\"\n");
        let error = error_of(&text);
        assert!(error.contains("nodes."), "{bad}: {error}");
    }
    let long = "a".repeat(64);
    let error = error_of(&format!(
        "[nodes.{long}]\nurl = \"https://h:1\"\ntoken = \"t\"\n"
    ));
    assert!(error.contains("1 to 63"), "{error}");
    let typo = error_of("[nodes.a]\nurl = \"https://h:1\"\ntoken = \"t\"\ntoken_fiel = \"x\"\n");
    assert!(typo.contains("unknown key `nodes.a.token_fiel`"), "{typo}");
    let bare = error_of("[nodes]\na = \"https://h:1\"\n");
    assert!(bare.contains("unknown key `nodes.a`"), "{bare}");
    let wrong_type = error_of("[nodes.a]\nurl = 7\ntoken = \"t\"\n");
    assert!(wrong_type.contains("expected a string"), "{wrong_type}");
}
