use std::time::Duration;

use switchboard_core::{Auth, ErrorCode, MASK, ServerId, ServerSpec, TasksPolicy};
use switchboard_store::{Invalid, StoreError};

use crate::common::TestDb;

crate::on_both_backends!(
    servers_round_trip_with_secrets_masked_on_display,
    updates_keep_masked_secrets_and_replace_changed_ones,
    names_and_ids_are_unique_per_owner,
    invalid_specs_write_nothing,
    delete_removes_the_server,
    import_happens_once,
    node_round_trips_through_add_update_and_import,
    the_tasks_setting_round_trips_and_may_be_absent,
);

pub fn secret_spec(name: &str) -> ServerSpec {
    ServerSpec::http(name, "https://mcp.example.com/mcp", None)
        .with_header("X-Tenant", "tenant-secret")
        .with_auth(Auth::ApiKey {
            header: "X-Api-Key".into(),
            key: "api-key-secret".into(),
        })
        .with_timeout(Duration::from_millis(2500))
}

async fn servers_round_trip_with_secrets_masked_on_display(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let http = secret_spec("Docs Search");
    let mut stdio = ServerSpec::stdio("files", "npx", ["-y", "server-filesystem", "/tmp"])
        .with_env("LOG", "debug")
        .with_secret_env("GITHUB_TOKEN", "ghp-secret");
    stdio.disabled_tools.insert("delete".into());
    stdio.auto_approved_tools.insert("read".into());
    stdio.enabled = false;

    let created = store.create_server(&owner, &http).await.unwrap();
    assert_eq!(created.spec, http.masked());
    store.create_server(&owner, &stdio).await.unwrap();

    let shown = store.server(&owner, &http.id).await.unwrap();
    assert_eq!(shown.spec.headers["X-Tenant"], MASK);
    assert_eq!(shown.created_at, created.created_at);
    assert_eq!(store.connection_spec(&owner, &http.id).await.unwrap(), http);
    assert_eq!(
        store.connection_spec(&owner, &stdio.id).await.unwrap(),
        stdio
    );

    let listed = store.servers(&owner).await.unwrap();
    assert_eq!(listed.len(), 2);
    let json = serde_json::to_string(&listed).unwrap();
    for secret in ["tenant-secret", "api-key-secret", "ghp-secret"] {
        assert!(!json.contains(secret), "{secret} in {json}");
    }
    assert!(
        json.contains("debug"),
        "non-secret env stays readable: {json}"
    );
    let clear = store.connection_specs(&owner).await.unwrap();
    assert!(clear.contains(&http) && clear.contains(&stdio));
}

async fn updates_keep_masked_secrets_and_replace_changed_ones(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let spec = secret_spec("docs");
    let created = store.create_server(&owner, &spec).await.unwrap();

    // A form sends back what it showed, with a new name and one secret changed.
    let mut edited = created.spec.clone();
    edited.name = "Docs (prod)".into();
    edited
        .headers
        .insert("X-Tenant".into(), "new-tenant".into());
    let updated = store
        .update_server(&owner, &spec.id, &edited)
        .await
        .unwrap();
    assert_eq!(updated.spec.name, "Docs (prod)");
    assert_eq!(updated.created_at, created.created_at);
    assert!(updated.updated_at >= created.updated_at);

    let clear = store.connection_spec(&owner, &spec.id).await.unwrap();
    assert_eq!(clear.headers["X-Tenant"], "new-tenant");
    assert_eq!(
        clear.auth,
        Auth::ApiKey {
            header: "X-Api-Key".into(),
            key: "api-key-secret".into()
        }
    );

    // The mask does not follow the server to a new URL.
    let mut redirected = store.server(&owner, &spec.id).await.unwrap().spec;
    redirected.url = Some("https://attacker.example/mcp".into());
    assert!(matches!(
        store.update_server(&owner, &spec.id, &redirected).await,
        Err(StoreError::Invalid(Invalid::MaskForNewDestination { .. }))
    ));
    assert!(matches!(
        store
            .create_server(&owner, &secret_spec("new").masked())
            .await,
        Err(StoreError::Invalid(Invalid::MaskOnCreate { .. }))
    ));

    let mut moved = edited.clone();
    moved.id = ServerId("other".into());
    assert!(matches!(
        store.update_server(&owner, &spec.id, &moved).await,
        Err(StoreError::Invalid(Invalid::IdChanged { .. }))
    ));
    assert!(matches!(
        store
            .update_server(&owner, &ServerId("missing".into()), &secret_spec("missing"))
            .await,
        Err(StoreError::NotFound { .. })
    ));
}

async fn names_and_ids_are_unique_per_owner(db: &TestDb) {
    let owner = db.local().await;
    let other = db.user("bob").await.id;
    let store = &db.store;
    store
        .create_server(&owner, &secret_spec("docs"))
        .await
        .unwrap();

    let same_name = store
        .create_server(&owner, &secret_spec("docs"))
        .await
        .unwrap_err();
    assert!(
        matches!(same_name, StoreError::Conflict { .. }),
        "{same_name}"
    );
    assert_eq!(same_name.code(), ErrorCode::Conflict);

    // "Docs!" has another name but the same id, `docs`.
    let same_id = store
        .create_server(&owner, &secret_spec("Docs!"))
        .await
        .unwrap_err();
    assert!(matches!(same_id, StoreError::Conflict { .. }), "{same_id}");

    // Renaming onto a taken name is refused too.
    let second = secret_spec("search");
    store.create_server(&owner, &second).await.unwrap();
    let mut renamed = second.clone();
    renamed.name = "docs".into();
    assert!(matches!(
        store.update_server(&owner, &second.id, &renamed).await,
        Err(StoreError::Conflict { .. })
    ));

    // Another owner may use the same name.
    store
        .create_server(&other, &secret_spec("docs"))
        .await
        .unwrap();
}

async fn invalid_specs_write_nothing(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let broken = ServerSpec::http("bad", "ftp://example.com", None);
    let err = store.create_server(&owner, &broken).await.unwrap_err();
    assert!(matches!(err, StoreError::InvalidSpec(_)), "{err}");
    assert_eq!(err.code(), ErrorCode::ValidationError);
    assert!(store.servers(&owner).await.unwrap().is_empty());

    let good = secret_spec("docs");
    store.create_server(&owner, &good).await.unwrap();
    let mut worse = good.clone();
    worse.url = Some("not a url".into());
    assert!(store.update_server(&owner, &good.id, &worse).await.is_err());
    assert_eq!(store.connection_spec(&owner, &good.id).await.unwrap(), good);
}

async fn delete_removes_the_server(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let spec = secret_spec("docs");
    store.create_server(&owner, &spec).await.unwrap();
    store.delete_server(&owner, &spec.id).await.unwrap();
    let err = store.server(&owner, &spec.id).await.unwrap_err();
    assert_eq!(err.code(), ErrorCode::McpServerNotFound);
    assert!(matches!(
        store.delete_server(&owner, &spec.id).await,
        Err(StoreError::NotFound { .. })
    ));
    // The name is free again.
    store.create_server(&owner, &spec).await.unwrap();
}

async fn import_happens_once(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    store
        .create_server(&owner, &secret_spec("docs"))
        .await
        .unwrap();
    let specs = vec![
        secret_spec("docs"),
        secret_spec("search"),
        secret_spec("files"),
    ];
    let added = store
        .import_servers_once(&owner, "servers.json", &specs)
        .await
        .unwrap();
    assert_eq!(added, Some(2), "the existing name is skipped");
    store
        .delete_server(&owner, &ServerId("search".into()))
        .await
        .unwrap();
    let again = store
        .import_servers_once(&owner, "servers.json", &specs)
        .await
        .unwrap();
    assert_eq!(again, None);
    assert_eq!(store.servers(&owner).await.unwrap().len(), 2);

    // A user made again under the same id starts afresh, import included.
    store.delete_user(&owner).await.unwrap();
    let owner = db.local().await;
    let fresh = store
        .import_servers_once(&owner, "servers.json", &specs)
        .await
        .unwrap();
    assert_eq!(fresh, Some(3));
    assert!(matches!(
        store.import_servers_once(&owner, "a:b", &specs).await,
        Err(StoreError::Invalid(Invalid::ImportMarker))
    ));
}

async fn node_round_trips_through_add_update_and_import(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let mut remote = ServerSpec::stdio("remote files", "npx", ["-y", "server-filesystem"]);
    remote.node = Some("build-box".into());
    let local = ServerSpec::stdio("local files", "npx", ["-y", "server-filesystem"]);

    let created = store.create_server(&owner, &remote).await.unwrap();
    assert_eq!(created.spec.node.as_deref(), Some("build-box"));
    store.create_server(&owner, &local).await.unwrap();
    assert_eq!(
        store
            .connection_spec(&owner, &remote.id)
            .await
            .unwrap()
            .node
            .as_deref(),
        Some("build-box")
    );
    assert_eq!(
        store.server(&owner, &local.id).await.unwrap().spec.node,
        None
    );

    // Moved to another node, then back to this machine.
    let mut moved = remote.clone();
    moved.node = Some("gpu-1".into());
    let updated = store
        .update_server(&owner, &remote.id, &moved)
        .await
        .unwrap();
    assert_eq!(updated.spec.node.as_deref(), Some("gpu-1"));
    let listed = store.servers(&owner).await.unwrap();
    let found = listed.iter().find(|s| s.spec.id == remote.id).unwrap();
    assert_eq!(found.spec.node.as_deref(), Some("gpu-1"));
    moved.node = None;
    store
        .update_server(&owner, &remote.id, &moved)
        .await
        .unwrap();
    assert_eq!(
        store
            .connection_spec(&owner, &remote.id)
            .await
            .unwrap()
            .node,
        None
    );

    let mut imported = ServerSpec::stdio("imported", "npx", ["-y", "server-memory"]);
    imported.node = Some("build-box".into());
    store
        .import_servers_once(&owner, "nodes", std::slice::from_ref(&imported))
        .await
        .unwrap();
    let specs = store.connection_specs(&owner).await.unwrap();
    let found = specs.iter().find(|s| s.id == imported.id).unwrap();
    assert_eq!(found.node.as_deref(), Some("build-box"));
}

async fn the_tasks_setting_round_trips_and_may_be_absent(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let mut spec = ServerSpec::http("tasks", "https://mcp.example.com/mcp", None);
    store.create_server(&owner, &spec).await.unwrap();
    let stored = store.connection_spec(&owner, &spec.id).await.unwrap();
    assert_eq!(stored.tasks, None);

    spec.tasks = Some(TasksPolicy::Never);
    store.update_server(&owner, &spec.id, &spec).await.unwrap();
    let stored = store.connection_spec(&owner, &spec.id).await.unwrap();
    assert_eq!(stored.tasks, Some(TasksPolicy::Never));
    let shown = store.server(&owner, &spec.id).await.unwrap();
    let json = serde_json::to_value(&shown).unwrap();
    assert_eq!(json["tasks"], "never", "{json}");

    spec.tasks = Some(TasksPolicy::Always);
    store.update_server(&owner, &spec.id, &spec).await.unwrap();
    let stored = store.connection_spec(&owner, &spec.id).await.unwrap();
    assert_eq!(stored.tasks, Some(TasksPolicy::Always));
}
