//! Roots: a server is given its spec's root folders when it asks (`roots/list`),
//! as `file:` URIs, and edited roots reach it through `notifications/roots/list_changed` on
//! the same connection (no restart). Against server-everything over stdio, whose
//! `get-roots-list` tool shows the roots it was given.

use switchboard_core::{OwnerId, ServerSpec};
use switchboard_mcp::{CallOptions, ConnectionManager, ManagerConfig};
use switchboard_testkit::Peers;

fn everything(roots: &[&str]) -> ServerSpec {
    let command = Peers::locate().everything_stdio();
    let mut spec = ServerSpec::stdio("everything", command.program.clone(), command.args.clone());
    for (key, value) in &command.env {
        spec.env.insert(key.clone(), value.clone());
    }
    spec.roots = roots.iter().map(|r| (*r).to_owned()).collect();
    spec
}

async fn roots_seen(pool: &ConnectionManager, owner: &OwnerId, spec: &ServerSpec) -> String {
    let result = pool
        .call_tool(owner, spec, "get-roots-list", None, CallOptions::default())
        .await
        .expect("get-roots-list");
    result
        .content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn a_server_is_given_its_roots_and_told_when_they_change() {
    let pool = ConnectionManager::new(ManagerConfig::default());
    let owner = OwnerId("alice".into());
    let first = everything(&["/srv/notes", "file:///srv/photos"]);
    let seen = roots_seen(&pool, &owner, &first).await;
    assert!(seen.contains("file:///srv/notes"), "{seen}");
    assert!(seen.contains("file:///srv/photos"), "{seen}");
    let group = pool.process_group(&owner, &first.id);

    let second = everything(&["/srv/other"]);
    // The server asks again once told; it answers the tool from what it has, so ask until the
    // new list has arrived (each ask is a round trip; the server needs one for roots/list).
    let mut seen = String::new();
    for _ in 0..200 {
        seen = roots_seen(&pool, &owner, &second).await;
        if seen.contains("file:///srv/other") {
            break;
        }
        tokio::task::yield_now().await;
    }
    assert!(seen.contains("file:///srv/other"), "{seen}");
    assert!(!seen.contains("/srv/notes"), "{seen}");
    assert_eq!(
        pool.process_group(&owner, &second.id),
        group,
        "the same process, not a restart"
    );
    pool.shutdown().await;
}

#[test]
fn roots_must_be_absolute_paths_or_file_uris() {
    let mut spec = everything(&["relative/dir"]);
    let refused = spec.validate().unwrap_err();
    assert_eq!(refused.field(), "roots[0]");
    spec.roots = vec!["https://example.com/x".into()];
    assert!(spec.validate().is_err());
    spec.roots = vec!["/abs".into(), "file:///abs".into()];
    assert!(spec.validate().is_ok());
}

/// A server's log lines (`notifications/message`) are kept for its owner, and only theirs.
#[tokio::test]
async fn what_a_server_logs_is_kept_for_its_owner() {
    let pool = ConnectionManager::new(ManagerConfig::default());
    let owner = OwnerId("alice".into());
    let spec = everything(&[]);
    let mut following = pool.follow_logs();
    pool.call_tool(
        &owner,
        &spec,
        "toggle-simulated-logging",
        None,
        CallOptions::default(),
    )
    .await
    .expect("toggle-simulated-logging");
    // The server logs once at once, then every 5 s; the first line is enough.
    let logged = tokio::time::timeout(std::time::Duration::from_secs(30), following.recv())
        .await
        .expect("a line within 30 s")
        .expect("a line");
    assert_eq!((&logged.owner, &logged.server), (&owner, &spec.id));
    assert!(logged.line.text.contains("message"), "{:?}", logged.line);
    let kept = pool.server_log(&owner, &spec.id);
    assert!(kept.contains(&logged.line), "{kept:?}");
    assert!(pool.server_log(&OwnerId("bob".into()), &spec.id).is_empty());
    pool.shutdown().await;
}
