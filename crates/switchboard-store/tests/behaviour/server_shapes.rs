//! The shape a server was written in through the seeds' shared path: recorded per owner,
//! replaced on the next write, gone with its server.

use switchboard_core::ServerSpec;
use switchboard_store::{ServerShape, StoreError, WrittenShape};

use crate::common::TestDb;

crate::on_both_backends!(
    shapes_are_recorded_replaced_and_go_with_their_server,
    a_shape_needs_a_server_of_its_owner,
);

async fn shapes_are_recorded_replaced_and_go_with_their_server(db: &TestDb) {
    let owner = db.local().await;
    let store = &db.store;
    let spec = ServerSpec::http("docs", "https://mcp.example.com/mcp", None);
    store.create_server(&owner, &spec).await.unwrap();
    assert!(store.server_shapes(&owner).await.unwrap().is_empty());

    let preset = ServerShape {
        shape: WrittenShape::Seed002,
        is_preset: true,
        preset_type: Some("modelscope".into()),
    };
    store
        .set_server_shape(&owner, &spec.id, &preset)
        .await
        .unwrap();
    assert_eq!(store.server_shapes(&owner).await.unwrap()[&spec.id], preset);

    let plain = ServerShape::plain(WrittenShape::Seed000);
    store
        .set_server_shape(&owner, &spec.id, &plain)
        .await
        .unwrap();
    let shapes = store.server_shapes(&owner).await.unwrap();
    assert_eq!(shapes.len(), 1);
    assert_eq!(shapes[&spec.id], plain);

    store.delete_server(&owner, &spec.id).await.unwrap();
    assert!(store.server_shapes(&owner).await.unwrap().is_empty());
    // A new server of the same id starts without a shape.
    store.create_server(&owner, &spec).await.unwrap();
    assert!(store.server_shapes(&owner).await.unwrap().is_empty());
}

async fn a_shape_needs_a_server_of_its_owner(db: &TestDb) {
    let owner = db.local().await;
    let other = db.user("other").await.id;
    let store = &db.store;
    let spec = ServerSpec::http("docs", "https://mcp.example.com/mcp", None);
    store.create_server(&owner, &spec).await.unwrap();
    let shape = ServerShape::plain(WrittenShape::Seed000);
    for (who, id) in [(&owner, "nope"), (&other, spec.id.0.as_str())] {
        let err = store
            .set_server_shape(who, &id.into(), &shape)
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NotFound { .. }), "{err:?}");
    }
    assert!(store.server_shapes(&other).await.unwrap().is_empty());
}
