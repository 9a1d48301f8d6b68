//! Views of the MCP gateway: a view round-trips (its exposure and pins too), its name is
//! unique per owner, its servers, pinned servers and assistant must be the owner's, another owner's view is not found, the quota
//! counts views, and a token limited to a view says so, opens only that view's owner, and is
//! deleted with the view.

use std::collections::BTreeSet;

use switchboard_core::{
    ErrorCode, PinnedTool, ServerId, ViewError, ViewExposure, ViewServer, ViewSpec,
};
use switchboard_store::{AssistantConfig, Entity, Invalid, StoreError, TokenView};

use crate::common::TestDb;
use crate::servers::secret_spec;

crate::on_both_backends!(
    views_round_trip_and_are_listed_in_order,
    a_search_view_keeps_its_exposure_and_pins,
    view_names_are_unique_per_owner,
    views_name_only_the_owners_servers_and_assistants,
    another_owners_view_is_not_found,
    invalid_views_are_refused_before_writing,
    views_stop_at_the_quota,
    view_tokens_carry_their_view_and_go_with_it,
    deleting_a_user_deletes_their_views,
);

fn view_of(name: &str, servers: &[&str]) -> ViewSpec {
    ViewSpec {
        tool_exposure: Default::default(),
        pinned_tools: Vec::new(),
        tasks: None,
        name: name.into(),
        description: Some("for Claude Desktop".into()),
        assistant_id: None,
        servers: servers
            .iter()
            .enumerate()
            .map(|(i, id)| ViewServer {
                server_id: ServerId((*id).into()),
                tools: (i == 0).then(|| BTreeSet::from(["read".to_owned(), "write".to_owned()])),
                prefix: match i {
                    0 => Some(String::new()),
                    1 => Some("gh_".into()),
                    _ => None,
                },
            })
            .collect(),
    }
}

async fn views_round_trip_and_are_listed_in_order(db: &TestDb) {
    let owner = db.user("ann").await.id;
    for server in ["files", "github", "weather"] {
        db.store
            .create_server(&owner, &secret_spec(server))
            .await
            .unwrap();
    }
    let spec = view_of("desktop", &["files", "github", "weather"]);
    let created = db.store.create_view(&owner, &spec).await.unwrap();
    assert_eq!(created.spec, spec);
    assert_eq!(created.owner, owner);
    assert_eq!(db.store.view(&owner, &created.id).await.unwrap(), created);
    assert_eq!(
        db.store.view_by_name(&owner, "desktop").await.unwrap(),
        created
    );

    let assistant = db
        .store
        .create_assistant(&owner, &AssistantConfig::named("helper"))
        .await
        .unwrap();
    let follows = ViewSpec {
        tool_exposure: Default::default(),
        pinned_tools: Vec::new(),
        tasks: None,
        name: "cursor".into(),
        description: None,
        assistant_id: Some(assistant.id.clone()),
        servers: Vec::new(),
    };
    let second = db.store.create_view(&owner, &follows).await.unwrap();
    let listed = db.store.views(&owner).await.unwrap();
    assert_eq!(listed, vec![created.clone(), second.clone()]);

    // Renamed and changed: the old name is free again, the id and creation time stay.
    let mut changed = view_of("desktop-2", &["weather"]);
    changed.description = None;
    let updated = db
        .store
        .update_view(&owner, &created.id, &changed)
        .await
        .unwrap();
    assert_eq!(updated.id, created.id);
    assert_eq!(updated.created_at, created.created_at);
    assert_eq!(updated.spec, changed);
    assert!(matches!(
        db.store.view_by_name(&owner, "desktop").await,
        Err(StoreError::NotFound {
            entity: Entity::View,
            ..
        })
    ));
    assert_eq!(
        db.store.view_by_name(&owner, "desktop-2").await.unwrap(),
        updated
    );

    db.store.delete_view(&owner, &created.id).await.unwrap();
    assert_eq!(db.store.views(&owner).await.unwrap(), vec![second]);
    assert!(matches!(
        db.store.delete_view(&owner, &created.id).await,
        Err(StoreError::NotFound { .. })
    ));
    // A deleted server leaves the view that named it (it then offers nothing of it).
    db.store
        .delete_server(&owner, &ServerId("weather".into()))
        .await
        .unwrap();
    db.store
        .view(&owner, &assistant_view_id(db, &owner).await)
        .await
        .unwrap();
}

async fn a_search_view_keeps_its_exposure_and_pins(db: &TestDb) {
    let ann = db.user("ann").await.id;
    let bob = db.user("bob").await.id;
    for server in ["files", "github"] {
        db.store
            .create_server(&ann, &secret_spec(server))
            .await
            .unwrap();
    }
    db.store
        .create_server(&bob, &secret_spec("bobs"))
        .await
        .unwrap();
    let mut spec = view_of("big", &["files", "github"]);
    spec.tool_exposure = ViewExposure::Search;
    spec.pinned_tools = vec![
        PinnedTool {
            server_id: ServerId("files".into()),
            tool: Some("read".into()),
        },
        PinnedTool {
            server_id: ServerId("github".into()),
            tool: None,
        },
    ];
    let created = db.store.create_view(&ann, &spec).await.unwrap();
    assert_eq!(created.spec, spec);
    assert_eq!(db.store.view_by_name(&ann, "big").await.unwrap(), created);
    let mut back = spec.clone();
    back.tool_exposure = ViewExposure::All;
    back.pinned_tools.clear();
    let updated = db
        .store
        .update_view(&ann, &created.id, &back)
        .await
        .unwrap();
    assert_eq!(updated.spec, back);

    // A view that follows an assistant pins only servers of its owner's.
    let assistant = db
        .store
        .create_assistant(&ann, &AssistantConfig::named("helper"))
        .await
        .unwrap();
    let follows = |server: &str| ViewSpec {
        tool_exposure: ViewExposure::Search,
        pinned_tools: vec![PinnedTool {
            server_id: ServerId(server.into()),
            tool: None,
        }],
        tasks: None,
        name: "follows".into(),
        description: None,
        assistant_id: Some(assistant.id.clone()),
        servers: Vec::new(),
    };
    let error = db
        .store
        .create_view(&ann, &follows("bobs"))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, StoreError::NotFound { entity: Entity::Server, id } if id == "bobs"),
        "{error}"
    );
    let created = db.store.create_view(&ann, &follows("files")).await.unwrap();
    assert_eq!(created.spec, follows("files"));
}

async fn assistant_view_id(db: &TestDb, owner: &switchboard_core::OwnerId) -> String {
    db.store.view_by_name(owner, "cursor").await.unwrap().id
}

async fn view_names_are_unique_per_owner(db: &TestDb) {
    let ann = db.user("ann").await.id;
    let bob = db.user("bob").await.id;
    for owner in [&ann, &bob] {
        db.store
            .create_server(owner, &secret_spec("files"))
            .await
            .unwrap();
    }
    let first = db
        .store
        .create_view(&ann, &view_of("desktop", &["files"]))
        .await
        .unwrap();
    let again = db
        .store
        .create_view(&ann, &view_of("desktop", &["files"]))
        .await
        .unwrap_err();
    assert!(
        matches!(&again, StoreError::Conflict { entity: Entity::View, name } if name == "desktop"),
        "{again}"
    );
    assert_eq!(again.code(), ErrorCode::Conflict);
    // Renaming another view onto a taken name is a conflict too.
    let other = db
        .store
        .create_view(&ann, &view_of("cursor", &["files"]))
        .await
        .unwrap();
    assert!(matches!(
        db.store
            .update_view(&ann, &other.id, &view_of("desktop", &["files"]))
            .await,
        Err(StoreError::Conflict { .. })
    ));
    // Saving a view under its own name is no conflict.
    db.store
        .update_view(&ann, &first.id, &view_of("desktop", &["files"]))
        .await
        .unwrap();
    // Another owner may use the same name.
    db.store
        .create_view(&bob, &view_of("desktop", &["files"]))
        .await
        .unwrap();
}

async fn views_name_only_the_owners_servers_and_assistants(db: &TestDb) {
    let ann = db.user("ann").await.id;
    let bob = db.user("bob").await.id;
    db.store
        .create_server(&bob, &secret_spec("bobs"))
        .await
        .unwrap();
    let bobs_assistant = db
        .store
        .create_assistant(&bob, &AssistantConfig::named("bob's"))
        .await
        .unwrap();
    let error = db
        .store
        .create_view(&ann, &view_of("v", &["bobs"]))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, StoreError::NotFound { entity: Entity::Server, id } if id == "bobs"),
        "{error}"
    );
    let follows = ViewSpec {
        tool_exposure: Default::default(),
        pinned_tools: Vec::new(),
        tasks: None,
        name: "v".into(),
        description: None,
        assistant_id: Some(bobs_assistant.id.clone()),
        servers: Vec::new(),
    };
    assert!(matches!(
        db.store.create_view(&ann, &follows).await,
        Err(StoreError::NotFound {
            entity: Entity::Assistant,
            ..
        })
    ));
    assert!(db.store.views(&ann).await.unwrap().is_empty());
    // An update is checked the same way, and changes nothing when refused.
    db.store
        .create_server(&ann, &secret_spec("mine"))
        .await
        .unwrap();
    let mine = db
        .store
        .create_view(&ann, &view_of("v", &["mine"]))
        .await
        .unwrap();
    assert!(matches!(
        db.store
            .update_view(&ann, &mine.id, &view_of("v", &["mine", "bobs"]))
            .await,
        Err(StoreError::NotFound {
            entity: Entity::Server,
            ..
        })
    ));
    assert_eq!(db.store.view(&ann, &mine.id).await.unwrap(), mine);
}

async fn another_owners_view_is_not_found(db: &TestDb) {
    let ann = db.user("ann").await.id;
    let bob = db.user("bob").await.id;
    db.store
        .create_server(&ann, &secret_spec("files"))
        .await
        .unwrap();
    let anns = db
        .store
        .create_view(&ann, &view_of("private", &["files"]))
        .await
        .unwrap();
    fn not_found<T>(r: Result<T, StoreError>) -> bool {
        matches!(
            r,
            Err(StoreError::NotFound {
                entity: Entity::View,
                ..
            })
        )
    }
    assert!(not_found(db.store.view(&bob, &anns.id).await));
    assert!(not_found(db.store.view_by_name(&bob, "private").await));
    assert!(db.store.views(&bob).await.unwrap().is_empty());
    db.store
        .create_server(&bob, &secret_spec("files"))
        .await
        .unwrap();
    assert!(not_found(
        db.store
            .update_view(&bob, &anns.id, &view_of("x", &["files"]))
            .await
    ));
    assert!(not_found(db.store.delete_view(&bob, &anns.id).await));
    // Nor may bob limit a token to it.
    assert!(not_found(
        db.store
            .issue_token_for(&bob, "t", None, Some(&anns.id))
            .await
    ));
    assert_eq!(db.store.view(&ann, &anns.id).await.unwrap(), anns);
}

async fn invalid_views_are_refused_before_writing(db: &TestDb) {
    let owner = db.user("ann").await.id;
    db.store
        .create_server(&owner, &secret_spec("files"))
        .await
        .unwrap();
    let mut bad_name = view_of("Not A Slug", &["files"]);
    let error = db.store.create_view(&owner, &bad_name).await.unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::InvalidView(ViewError::InvalidName { .. })
        ),
        "{error}"
    );
    assert_eq!(error.code(), ErrorCode::ValidationError);
    bad_name.name = "ok".into();
    bad_name.servers[0].prefix = Some("a b".into());
    assert!(matches!(
        db.store.create_view(&owner, &bad_name).await,
        Err(StoreError::InvalidView(ViewError::InvalidPrefix { .. }))
    ));
    let mut nul = view_of("ok", &["files"]);
    nul.description = Some("a\0b".into());
    assert!(matches!(
        db.store.create_view(&owner, &nul).await,
        Err(StoreError::Invalid(Invalid::Nul { .. }))
    ));
    assert!(db.store.views(&owner).await.unwrap().is_empty());
}

async fn views_stop_at_the_quota(db: &TestDb) {
    let owner = db.user("ann").await.id;
    let other = db.user("bob").await.id;
    for o in [&owner, &other] {
        db.store
            .create_server(o, &secret_spec("files"))
            .await
            .unwrap();
    }
    for i in 0..3 {
        db.store
            .create_view_within(&owner, &view_of(&format!("v{i}"), &["files"]), 3)
            .await
            .unwrap();
    }
    let error = db
        .store
        .create_view_within(&owner, &view_of("v3", &["files"]), 3)
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            StoreError::QuotaExceeded {
                entity: Entity::View,
                limit: 3
            }
        ),
        "{error}"
    );
    // Another owner's views do not count.
    db.store
        .create_view_within(&other, &view_of("v0", &["files"]), 3)
        .await
        .unwrap();
}

async fn view_tokens_carry_their_view_and_go_with_it(db: &TestDb) {
    let owner = db.user("ann").await;
    db.store
        .create_server(&owner.id, &secret_spec("files"))
        .await
        .unwrap();
    let view = db
        .store
        .create_view(&owner.id, &view_of("desktop", &["files"]))
        .await
        .unwrap();
    let full = db.store.issue_token(&owner.id, "browser").await.unwrap();
    let limited = db
        .store
        .issue_token_for(&owner.id, "claude", None, Some(&view.id))
        .await
        .unwrap();
    assert_eq!(limited.token.view_id.as_deref(), Some(view.id.as_str()));
    assert_eq!(full.token.view_id, None);

    let access = db
        .store
        .token_access(&limited.secret)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(access.user, owner);
    assert_eq!(
        access.view,
        Some(TokenView {
            id: view.id.clone(),
            name: "desktop".into()
        })
    );
    let access = db.store.token_access(&full.secret).await.unwrap().unwrap();
    assert_eq!((access.user, access.view), (owner.clone(), None));
    // The old lookup still gives the user of either.
    assert_eq!(
        db.store.user_by_token(&limited.secret).await.unwrap(),
        Some(owner.clone())
    );
    // Listed with their view.
    let listed = db.store.tokens(&owner.id).await.unwrap();
    assert_eq!(listed, vec![full.token.clone(), limited.token.clone()]);

    // A renamed view: the token follows it under its new name.
    let mut renamed = view.spec.clone();
    renamed.name = "claude".into();
    db.store
        .update_view(&owner.id, &view.id, &renamed)
        .await
        .unwrap();
    let access = db
        .store
        .token_access(&limited.secret)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(access.view.unwrap().name, "claude");

    // An unknown view gives no token.
    assert!(matches!(
        db.store
            .issue_token_for(&owner.id, "t", None, Some("no-such-view"))
            .await,
        Err(StoreError::NotFound {
            entity: Entity::View,
            ..
        })
    ));

    // Deleting the view deletes its tokens, never widening them to the whole account.
    db.store.delete_view(&owner.id, &view.id).await.unwrap();
    assert_eq!(db.store.token_access(&limited.secret).await.unwrap(), None);
    assert_eq!(db.store.user_by_token(&limited.secret).await.unwrap(), None);
    assert_eq!(db.store.tokens(&owner.id).await.unwrap(), vec![full.token]);
    assert!(db.store.token_access(&full.secret).await.unwrap().is_some());
}

async fn deleting_a_user_deletes_their_views(db: &TestDb) {
    let ann = db.user("ann").await.id;
    db.store
        .create_server(&ann, &secret_spec("files"))
        .await
        .unwrap();
    let view = db
        .store
        .create_view(&ann, &view_of("desktop", &["files"]))
        .await
        .unwrap();
    let token = db
        .store
        .issue_token_for(&ann, "claude", None, Some(&view.id))
        .await
        .unwrap();
    db.store.delete_user(&ann).await.unwrap();
    assert_eq!(db.store.token_access(&token.secret).await.unwrap(), None);
    assert!(db.store.views(&ann).await.unwrap().is_empty());
}
