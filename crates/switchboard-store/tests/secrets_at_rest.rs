//! Secrets are not readable at rest, and a wrong, missing or damaged key is a clear error,
//! never garbage or a silent loss.

// Test code: a failed unwrap is a failed test, which is what it should be.
#![allow(clippy::unwrap_used)]

mod common;

use switchboard_core::{Auth, OwnerId, ServerSpec};
use switchboard_store::secret::SecretKey;
use switchboard_store::{
    ProviderConfig, ProviderKind, SecretError, StoreConfig, StoreError, secret::key::KEY_FILE,
};

use common::TestDb;

const SECRETS: [&str; 10] = [
    "header-plaintext-4711",
    "env-plaintext-4712",
    "bearer-plaintext-4713",
    "apikey-plaintext-4714",
    "urlpass-plaintext-4716",
    "urlquery-plaintext-4717",
    "provquery-plaintext-4718",
    "oauthclient-plaintext-4719",
    "oauthtoken-plaintext-4720",
    "oauthpkce-plaintext-4721",
];
const VISIBLE: &str = "visible-marker-4715";

async fn store_secrets(db: &TestDb) -> OwnerId {
    let owner = db.local().await;
    let url = format!(
        "https://user:{}@example.com/mcp?api_key={}",
        SECRETS[4], SECRETS[5]
    );
    let http = ServerSpec::http(VISIBLE, &url, None)
        .with_header("X-Tenant", SECRETS[0])
        .with_auth(Auth::Bearer {
            token: SECRETS[2].into(),
        });
    let stdio = ServerSpec::stdio("local", "server", Vec::<String>::new())
        .with_secret_env("TOKEN", SECRETS[1]);
    let oauth = ServerSpec::http("signed-in", "https://example.com/notes/mcp", None).with_auth(
        Auth::OAuth {
            client_id: Some("client".into()),
            client_secret: Some(SECRETS[7].into()),
            scopes: Vec::new(),
        },
    );
    db.store.create_server(&owner, &http).await.unwrap();
    db.store.create_server(&owner, &stdio).await.unwrap();
    db.store.create_server(&owner, &oauth).await.unwrap();
    let tokens = format!(r#"{{"access_token":"{}"}}"#, SECRETS[8]);
    db.store
        .save_oauth_credentials(&owner, &oauth.id, &tokens)
        .await
        .unwrap();
    let pending = format!(r#"{{"pkce_verifier":"{}"}}"#, SECRETS[9]);
    db.store
        .save_oauth_pending(&owner, &oauth.id, "state", &pending)
        .await
        .unwrap();
    db.store
        .create_provider(
            &owner,
            &ProviderConfig {
                name: "p".into(),
                kind: ProviderKind::Anthropic,
                base_url: Some(format!("https://gw.example/v1?key={}", SECRETS[6])),
                api_key: Some(SECRETS[3].into()),
                default_model: "claude".into(),
                keep_api_key: false,
            },
        )
        .await
        .unwrap();
    owner
}

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle.as_bytes())
}

#[tokio::test]
async fn sqlite_files_hold_no_secret_in_plain_text() {
    let db = TestDb::sqlite().await;
    store_secrets(&db).await;
    // Every byte SQLite wrote: the database, its WAL and shared memory.
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(db.dir.path()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("switchboard.db")
        {
            bytes.extend(std::fs::read(&path).unwrap());
        }
    }
    assert!(contains(&bytes, VISIBLE), "the scan sees stored data");
    for secret in SECRETS {
        assert!(!contains(&bytes, secret), "{secret} is readable on disk");
    }
}

#[tokio::test]
async fn postgres_tables_hold_no_secret_in_plain_text() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    store_secrets(&db).await;
    use sqlx::Connection;
    let mut conn = sqlx::PgConnection::connect(db.db_url().unwrap())
        .await
        .unwrap();
    let mut text = String::new();
    for table in [
        "mcp_servers",
        "providers",
        "mcp_oauth_tokens",
        "mcp_oauth_pending",
    ] {
        let rows: Vec<(String,)> = sqlx::query_as(&format!("SELECT t::text FROM {table} t"))
            .fetch_all(&mut conn)
            .await
            .unwrap();
        for (row,) in rows {
            text.push_str(&row);
        }
    }
    assert!(text.contains(VISIBLE), "the scan sees stored data");
    for secret in SECRETS {
        assert!(!text.contains(secret), "{secret} is readable in the table");
    }
}

fn wrong_key() -> Option<String> {
    Some(SecretKey::generate().to_base64())
}

#[tokio::test]
async fn sqlite_a_wrong_or_missing_key_is_refused_and_loses_nothing() {
    let db = TestDb::sqlite().await;
    let owner = store_secrets(&db).await;
    let config = db.config.clone();

    let mut wrong = config.clone();
    wrong.secret_key = wrong_key();
    let err = switchboard_store::open(&wrong).await.unwrap_err();
    assert!(
        matches!(err, StoreError::Secret(SecretError::WrongKey { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("SWITCHBOARD_SECRET_KEY"), "{err}");

    // Without the key file, the store refuses rather than making a new key.
    let key_file = config.data_dir.join(KEY_FILE);
    let saved = std::fs::read(&key_file).unwrap();
    std::fs::remove_file(&key_file).unwrap();
    let err = switchboard_store::open(&config).await.unwrap_err();
    assert!(
        matches!(err, StoreError::Secret(SecretError::MissingKey { .. })),
        "{err}"
    );
    assert!(!key_file.exists(), "no new key was made");

    // With the key back, every secret reads as it was written.
    std::fs::write(&key_file, saved).unwrap();
    let store = switchboard_store::open(&config).await.unwrap();
    let specs = store.connection_specs(&owner).await.unwrap();
    // Listed by creation time, then name: two servers made in the same millisecond come in
    // name order, so the HTTP one is found by its name.
    let http = specs.iter().find(|s| s.name == VISIBLE).unwrap();
    assert_eq!(http.headers["X-Tenant"], SECRETS[0]);
    assert!(http.url.as_deref().unwrap().contains(SECRETS[5]));
    // Shown masked, like the other secrets.
    let shown = store.servers(&owner).await.unwrap();
    let shown = serde_json::to_string(&shown.iter().map(|s| &s.spec).collect::<Vec<_>>()).unwrap();
    assert!(
        !shown.contains(SECRETS[4]) && !shown.contains(SECRETS[5]),
        "{shown}"
    );
    let providers = store.providers(&owner).await.unwrap();
    let shown = format!("{:?}", providers[0].config.base_url);
    assert!(
        !shown.contains(SECRETS[6]) && shown.contains("key="),
        "{shown}"
    );
}

#[tokio::test]
async fn postgres_a_wrong_key_is_refused() {
    let Some(db) = TestDb::postgres().await else {
        return;
    };
    store_secrets(&db).await;
    let mut wrong: StoreConfig = db.config.clone();
    wrong.secret_key = wrong_key();
    let err = switchboard_store::open(&wrong).await.unwrap_err();
    assert!(
        matches!(err, StoreError::Secret(SecretError::WrongKey { .. })),
        "{err}"
    );
}

#[tokio::test]
async fn a_damaged_secret_is_an_error_not_garbage() {
    let db = TestDb::sqlite().await;
    let owner = store_secrets(&db).await;
    let pool = sqlx::SqlitePool::connect_with(
        sqlx::sqlite::SqliteConnectOptions::new()
            .filename(db.dir.path().join(switchboard_store::DB_FILE)),
    )
    .await
    .unwrap();
    // Flip one character of the sealed bearer token.
    let (sealed,): (String,) =
        sqlx::query_as("SELECT auth_secret FROM mcp_servers WHERE auth_type = 'bearer'")
            .fetch_one(&pool)
            .await
            .unwrap();
    let mut damaged = sealed.into_bytes();
    let last = damaged.len() - 2;
    damaged[last] = if damaged[last] == b'A' { b'B' } else { b'A' };
    sqlx::query("UPDATE mcp_servers SET auth_secret = $1 WHERE auth_type = 'bearer'")
        .bind(String::from_utf8(damaged).unwrap())
        .execute(&pool)
        .await
        .unwrap();

    let err = db.store.connection_specs(&owner).await.unwrap_err();
    assert!(
        matches!(err, StoreError::Secret(SecretError::Undecryptable { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("mcp_servers.auth_secret"), "{err}");
}
