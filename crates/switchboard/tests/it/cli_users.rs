//! `switchboard users`: users of the HTTP API and their API tokens, checked against the store
//! the server authenticates with (`user_by_token`).

#![allow(clippy::unwrap_used)]

use crate::common;

use common::Switchboard;
use serde_json::Value;
use switchboard_store::StoreConfig;

/// The name of the user `secret` authenticates as, asked of the store as the server asks it.
fn owner_of(sb: &Switchboard, secret: &str) -> Option<String> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let store = switchboard_store::open(&StoreConfig::in_dir(sb.data_dir()))
            .await
            .unwrap();
        let user = store.user_by_token(secret).await.unwrap();
        store.close().await;
        user.map(|u| u.name)
    })
}

/// The secret on the line `add` and `token` print it on.
fn secret_in(stdout: &str, name: &str) -> String {
    let prefix = format!("API token for {name} (shown once, keep it): ");
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no token line in {stdout:?}"));
    assert!(line.starts_with("sb_"), "{line}");
    line.to_owned()
}

fn array(value: &Value) -> &Vec<Value> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
}

#[test]
fn add_prints_a_working_token_once() {
    let sb = Switchboard::new();
    let added = sb.run(&["users", "add", "alice"]).ok();
    assert!(
        added
            .stdout
            .starts_with("added user `alice` (member) with id "),
        "{added:?}"
    );
    let secret = secret_in(&added.stdout, "alice");
    assert_eq!(owner_of(&sb, &secret).as_deref(), Some("alice"));
    assert_eq!(owner_of(&sb, "sb_not_a_token"), None);

    let listed = sb.run(&["users", "list"]).ok();
    assert!(listed.stdout.starts_with("ID"), "{listed:?}");
    assert!(listed.stdout.contains("alice  member"), "{listed:?}");
    assert!(!listed.stdout.contains(&secret), "{listed:?}");
}

#[test]
fn list_shows_every_user_and_json_parses() {
    let sb = Switchboard::new();
    let empty = sb.run(&["users", "list"]).ok();
    assert!(empty.stdout.starts_with("no users"), "{empty:?}");
    assert!(array(&sb.run(&["users", "list", "--json"]).ok().json()).is_empty());

    let admin = sb
        .run(&["--json", "users", "add", "root", "--role", "admin"])
        .ok()
        .json();
    assert_eq!(admin["user"]["name"], "root");
    assert_eq!(admin["user"]["role"], "admin");
    let secret = admin["token"]["secret"].as_str().unwrap();
    assert_eq!(owner_of(&sb, secret).as_deref(), Some("root"));

    let bob = sb
        .run(&["users", "add", "bob", "--no-token", "--json"])
        .ok()
        .json();
    assert_eq!(bob["user"]["role"], "member");
    assert!(bob["token"].is_null(), "{bob}");

    let list = sb.run(&["users", "list", "--json"]).ok().json();
    let names: Vec<&str> = array(&list)
        .iter()
        .map(|u| u["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["root", "bob"]);
    assert_eq!(list[1]["id"], bob["user"]["id"]);
    assert!(list[0]["createdAt"].is_i64(), "{list}");
    assert!(array(&sb.run(&["users", "tokens", "bob", "--json"]).ok().json()).is_empty());
}

#[test]
fn tokens_are_issued_listed_without_secrets_and_revoked() {
    let sb = Switchboard::new();
    let first = secret_in(&sb.run(&["users", "add", "alice"]).ok().stdout, "alice");
    let id = sb.run(&["users", "list", "--json"]).ok().json()[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // USER may be the id as well as the name.
    let issued = sb.run(&["users", "token", &id, "--label", "laptop"]).ok();
    let second = secret_in(&issued.stdout, "alice");
    assert_ne!(first, second);
    assert_eq!(owner_of(&sb, &second).as_deref(), Some("alice"));

    let text = sb.run(&["users", "tokens", "alice"]).ok();
    assert!(text.stdout.starts_with("ID"), "{text:?}");
    assert!(text.stdout.contains("laptop"), "{text:?}");
    let listed = sb.run(&["users", "tokens", "alice", "--json"]).ok();
    for secret in [&first, &second] {
        assert!(!text.stdout.contains(secret.as_str()), "{text:?}");
        assert!(!listed.stdout.contains(secret.as_str()), "{listed:?}");
    }
    let tokens = listed.json();
    let labels: Vec<&str> = array(&tokens)
        .iter()
        .map(|t| t["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["created with the user", "laptop"]);
    assert!(tokens[0].get("secret").is_none(), "{tokens}");

    let laptop = tokens[1]["id"].as_str().unwrap();
    let revoked = sb
        .run(&["users", "revoke", "alice", laptop, "--json"])
        .ok()
        .json();
    assert_eq!(revoked["revoked"], laptop);
    assert_eq!(owner_of(&sb, &second), None);
    assert_eq!(owner_of(&sb, &first).as_deref(), Some("alice"));
    assert_eq!(
        array(&sb.run(&["users", "tokens", "alice", "--json"]).ok().json()).len(),
        1
    );

    let again = sb.run(&["users", "revoke", "alice", laptop]).failed();
    assert!(again.stderr.starts_with("error NOT_FOUND:"), "{again:?}");

    let json_token = sb.run(&["users", "token", "alice", "--json"]).ok().json();
    assert_eq!(json_token["user"], "alice");
    let third = json_token["token"]["secret"].as_str().unwrap();
    assert_eq!(owner_of(&sb, third).as_deref(), Some("alice"));
}

#[test]
fn remove_deletes_the_user_and_their_tokens() {
    let sb = Switchboard::new();
    let secret = secret_in(&sb.run(&["users", "add", "alice"]).ok().stdout, "alice");
    sb.run(&["users", "add", "bob", "--no-token"]).ok();

    let removed = sb.run(&["users", "remove", "alice"]).ok();
    assert!(
        removed.stdout.starts_with("removed user `alice`"),
        "{removed:?}"
    );
    assert_eq!(owner_of(&sb, &secret), None);
    let list = sb.run(&["users", "list", "--json"]).ok().json();
    assert_eq!(array(&list).len(), 1);
    assert_eq!(list[0]["name"], "bob");

    let gone = sb
        .run(&["users", "remove", "alice", "--json"])
        .failed()
        .json();
    assert_eq!(gone["code"], "NOT_FOUND");
}

#[test]
fn unknown_users_and_taken_names_are_errors() {
    let sb = Switchboard::new();
    sb.run(&["users", "add", "alice", "--no-token"]).ok();

    for args in [
        &["users", "token", "nobody"][..],
        &["users", "tokens", "nobody"],
        &["users", "revoke", "nobody", "some-token"],
        &["users", "remove", "nobody"],
    ] {
        let run = sb.run(args).failed();
        assert!(
            run.stderr.starts_with("error NOT_FOUND:"),
            "{args:?}: {run:?}"
        );
        assert!(run.stderr.contains("nobody"), "{run:?}");
        assert!(run.stdout.is_empty(), "{run:?}");
    }
    let json = sb
        .run(&["users", "tokens", "nobody", "--json"])
        .failed()
        .json();
    assert_eq!(json["code"], "NOT_FOUND");
    assert!(
        json["message"].as_str().unwrap().contains("users list"),
        "{json}"
    );

    let duplicate = sb.run(&["users", "add", "alice"]).failed();
    assert!(
        duplicate.stderr.starts_with("error CONFLICT:"),
        "{duplicate:?}"
    );
    assert!(duplicate.stderr.contains("alice"), "{duplicate:?}");
    assert!(!duplicate.stdout.contains("sb_"), "{duplicate:?}");
    let empty = sb.run(&["users", "add", " "]).failed();
    assert!(
        empty.stderr.starts_with("error VALIDATION_ERROR:"),
        "{empty:?}"
    );
    assert_eq!(
        array(&sb.run(&["users", "list", "--json"]).ok().json()).len(),
        1
    );
}

/// `users token --view NAME`: the token opens only that view of the user (the store says so,
/// as the server's authentication asks it); a view the user does not have issues nothing.
#[test]
fn a_token_can_be_limited_to_one_of_the_users_views() {
    let sb = Switchboard::new();
    sb.run(&["users", "add", "alice"]).ok();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let config = StoreConfig::in_dir(sb.data_dir());
    let open = || switchboard_store::open(&config);
    let view_id = runtime.block_on(async {
        let store = open().await.unwrap();
        let alice = store.users().await.unwrap().remove(0);
        let spec = switchboard_core::ServerSpec::http("files", "https://mcp.example.com/mcp", None);
        store.create_server(&alice.id, &spec).await.unwrap();
        let view: switchboard_core::ViewSpec = serde_json::from_value(serde_json::json!({
            "name": "desktop", "servers": [{"serverId": "files"}]
        }))
        .unwrap();
        let id = store.create_view(&alice.id, &view).await.unwrap().id;
        store.close().await;
        id
    });

    let issued = sb
        .run(&["users", "token", "alice", "--view", "desktop"])
        .ok();
    assert!(
        issued.stdout.contains("opens only the MCP view `desktop`"),
        "{issued:?}"
    );
    let secret = secret_in(&issued.stdout, "alice");
    let json = sb
        .run(&["--json", "users", "token", "alice", "--view", "desktop"])
        .ok()
        .json();
    assert_eq!(json["token"]["viewId"], view_id.as_str());
    let view = runtime.block_on(async {
        let store = open().await.unwrap();
        let access = store.token_access(&secret).await.unwrap().unwrap();
        store.close().await;
        access.view.map(|v| v.name)
    });
    assert_eq!(view.as_deref(), Some("desktop"));

    let refused = sb
        .run(&["users", "token", "alice", "--view", "nope"])
        .failed();
    assert!(
        refused.stderr.starts_with("error NOT_FOUND:"),
        "{refused:?}"
    );
}
