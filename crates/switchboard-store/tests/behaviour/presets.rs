use std::collections::BTreeMap;
use std::time::Duration;

use switchboard_core::{Mapping, SelectedTool, ServerId, Template, ToolNode};
use switchboard_store::StoreError;

use crate::common::TestDb;
use crate::servers::secret_spec;

crate::on_both_backends!(presets_round_trip_and_follow_their_server);

pub fn preset(name: &str, server: &str) -> ToolNode {
    ToolNode {
        name: name.into(),
        server_id: ServerId(server.into()),
        selected_tools: vec![SelectedTool {
            name: "forecast".into(),
            enabled: true,
            parameter_mappings: BTreeMap::from([
                (
                    "city".into(),
                    Mapping::Template(Template::parse("{{city}}").unwrap()),
                ),
                ("units".into(), Mapping::Literal("metric".into())),
                // serde_json parses floats exactly only with `float_roundtrip` (found by the
                // round-trip property: this one came back as ...6375).
                ("scale".into(), Mapping::Literal(944415596587.6376.into())),
            ]),
        }],
        retry_on_error: true,
        max_retries: 3,
        timeout: Some(Duration::from_secs(20)),
        variables: Vec::new(),
        assistant_id: None,
    }
}

async fn presets_round_trip_and_follow_their_server(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let server = secret_spec("weather");
    store.create_server(&owner, &server).await.unwrap();

    let created = store
        .create_preset(&owner, &preset("paris", "weather"))
        .await
        .unwrap();
    assert_eq!(created.preset, preset("paris", "weather"));
    assert_eq!(store.preset(&owner, &created.id).await.unwrap(), created);

    let mut changed = preset("paris-imperial", "weather");
    changed.selected_tools[0]
        .parameter_mappings
        .insert("units".into(), Mapping::Literal("imperial".into()));
    changed.timeout = None;
    let updated = store
        .update_preset(&owner, &created.id, &changed)
        .await
        .unwrap();
    assert_eq!(updated.preset, changed);
    assert_eq!(store.presets(&owner).await.unwrap(), vec![updated.clone()]);

    assert!(matches!(
        store
            .create_preset(&owner, &preset("paris-imperial", "weather"))
            .await,
        Err(StoreError::Conflict { .. })
    ));
    assert!(matches!(
        store.create_preset(&owner, &preset("x", "no-server")).await,
        Err(StoreError::NotFound { .. })
    ));
    assert!(matches!(
        store.create_preset(&owner, &preset(" ", "weather")).await,
        Err(StoreError::InvalidSpec(_))
    ));

    // A preset lives as long as its server.
    store.delete_server(&owner, &server.id).await.unwrap();
    assert!(matches!(
        store.preset(&owner, &created.id).await,
        Err(StoreError::NotFound { .. })
    ));

    store.create_server(&owner, &server).await.unwrap();
    let again = store
        .create_preset(&owner, &preset("p", "weather"))
        .await
        .unwrap();
    store.delete_preset(&owner, &again.id).await.unwrap();
    assert!(store.presets(&owner).await.unwrap().is_empty());
}
