//! Two replicas sharing one Postgres refresh one person's OAuth tokens at the same moment:
//! the server (`peers/oauth_server.py`, the Python SDK's authorization server)
//! rotates refresh tokens and refuses one used twice, so without the row lock one replica's
//! refresh would be refused and the person sent to sign in again. With it, both calls go
//! through, every round, and no refresh is refused. Skipped (with a line saying so) when
//! `SWITCHBOARD_TEST_POSTGRES` is not set.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use common::postgres::FreshPostgres;
use serde_json::Value;
use switchboard_app::oauth_vault::StoreVault;
use switchboard_core::{Auth, OwnerId, ServerSpec, TransportKind};
use switchboard_mcp::oauth::SignIns;
use switchboard_mcp::{AdmitAll, CallOptions, ConnectionManager, ManagerConfig};
use switchboard_store::{Role, StoreConfig};
use switchboard_testkit::Peers;
use switchboard_testkit::headless_sign_in::follow_to_callback;

const REDIRECT: &str = "http://127.0.0.1:9/oauth/callback";

fn replica(store: Arc<dyn switchboard_store::Store>) -> ConnectionManager {
    let sign_ins = SignIns::new(Arc::new(StoreVault(store)), Default::default());
    ConnectionManager::with_sign_ins(
        ManagerConfig::default(),
        Arc::new(AdmitAll),
        Arc::new(sign_ins),
    )
}

async fn whoami(manager: &ConnectionManager, owner: &OwnerId, spec: &ServerSpec) -> String {
    let result = manager
        .call_tool(owner, spec, "whoami", None, CallOptions::default())
        .await
        .unwrap();
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_replicas_refreshing_at_once_keep_one_valid_token() {
    let Some(database) = FreshPostgres::create().await else {
        return;
    };
    let mut peer = Peers::locate().oauth_http(true, 3600).await.unwrap();
    // One data directory for the secret key, two pools: two replicas.
    let dir = tempfile::tempdir().unwrap();
    let mut config = StoreConfig::in_dir(dir.path());
    config.database_url = Some(database.url.clone());
    let store_a = switchboard_store::open(&config).await.unwrap();
    let store_b = switchboard_store::open(&config).await.unwrap();
    let owner = store_a.create_user("ann", Role::Admin).await.unwrap().id;
    let spec = ServerSpec::http("notes", peer.url(), Some(TransportKind::StreamableHttp))
        .with_auth(Auth::OAuth {
            client_id: None,
            client_secret: None,
            scopes: Vec::new(),
        });
    store_a.create_server(&owner, &spec).await.unwrap();
    let (a, b) = (replica(store_a), replica(store_b));

    // Signed in through replica a; replica b finds the tokens in the store.
    let url = a.start_sign_in(&owner, &spec, REDIRECT).await.unwrap();
    let callback = follow_to_callback(&url, REDIRECT).await.unwrap();
    let pending = b.sign_ins().take(&callback.state).await.unwrap().unwrap();
    b.finish_sign_in(&spec, pending, &callback.code, None)
        .await
        .unwrap();
    assert_eq!(whoami(&a, &owner, &spec).await, "signed in");
    assert_eq!(whoami(&b, &owner, &spec).await, "signed in");

    let expire = peer.url().replace("/mcp", "/expire");
    for _ in 0..3 {
        // The server stops taking the access token both replicas hold; both refresh at once.
        reqwest::Client::new().post(&expire).send().await.unwrap();
        let (first, second) = tokio::join!(whoami(&a, &owner, &spec), whoami(&b, &owner, &spec));
        assert_eq!(
            (first.as_str(), second.as_str()),
            ("signed in", "signed in")
        );
    }
    let stats: Value = reqwest::get(peer.url().replace("/mcp", "/stats"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(stats["refused_refreshes"], 0, "{stats}");
    assert!(stats["refreshes"].as_u64().unwrap() >= 3, "{stats}");
    assert_eq!(stats["authorizations"], 1, "{stats}");

    a.shutdown().await;
    b.shutdown().await;
    peer.kill().await.unwrap();
    database.drop_database().await;
}
