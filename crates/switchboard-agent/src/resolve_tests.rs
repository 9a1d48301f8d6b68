#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use switchboard_core::{OwnerId, ServerSpec};
use switchboard_llm::{OpenAiConfig, OpenAiProvider};
use switchboard_store::{AssistantConfig, ProviderConfig, ProviderKind, Role, StoreConfig};

use super::*;

struct World {
    _dir: tempfile::TempDir,
    store: Arc<dyn Store>,
    owner: OwnerId,
}

async fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let store = switchboard_store::open(&StoreConfig::in_dir(dir.path()))
        .await
        .unwrap();
    let owner = store.create_user("u", Role::Admin).await.unwrap().id;
    World {
        _dir: dir,
        store,
        owner,
    }
}

fn env(model: Option<&str>) -> EnvProvider {
    EnvProvider {
        provider: Arc::new(OpenAiProvider::with_client(
            OpenAiConfig::default(),
            reqwest::Client::new(),
        )),
        model: model.map(str::to_owned),
        model_variable: ANTHROPIC_MODEL,
    }
}

async fn server(world: &World, name: &str) -> ServerSpec {
    let spec = ServerSpec::stdio(name, "true", Vec::<String>::new());
    let stored = world
        .store
        .create_server(&world.owner, &spec)
        .await
        .unwrap();
    world
        .store
        .connection_spec(&world.owner, &stored.spec.id)
        .await
        .unwrap()
}

#[tokio::test]
async fn without_provider_or_model_the_errors_say_which() {
    let w = world().await;
    let none = resolve(
        w.store.as_ref(),
        &w.owner,
        RunRequest::default(),
        None,
        &PlainClients,
    )
    .await;
    assert!(matches!(none, Err(ResolveError::NoProvider)), "{none:?}");
    let env = env(None);
    let no_model = resolve(
        w.store.as_ref(),
        &w.owner,
        RunRequest::default(),
        Some(&env),
        &PlainClients,
    )
    .await;
    assert!(
        matches!(
            no_model,
            Err(ResolveError::NoModel {
                variable: ANTHROPIC_MODEL
            })
        ),
        "{no_model:?}"
    );
}

#[tokio::test]
async fn the_request_beats_the_assistant_which_beats_the_defaults() {
    let w = world().await;
    let provider = w
        .store
        .create_provider(
            &w.owner,
            &ProviderConfig {
                name: "stored".into(),
                kind: ProviderKind::OpenAi,
                base_url: Some("http://127.0.0.1:9".into()),
                api_key: None,
                default_model: "stored-model".into(),
                keep_api_key: false,
            },
        )
        .await
        .unwrap();
    let mut config = AssistantConfig::named("helper");
    config.system_prompt = "assistant prompt".into();
    config.model = Some("assistant-model".into());
    let assistant = w.store.create_assistant(&w.owner, &config).await.unwrap();
    let env = env(Some("env-model"));

    let plan = resolve(
        w.store.as_ref(),
        &w.owner,
        RunRequest::default(),
        Some(&env),
        &PlainClients,
    )
    .await
    .unwrap();
    assert_eq!(plan.spec.model, "stored-model");
    assert_eq!(plan.provider_name.as_deref(), Some("stored"));

    let plan = resolve(
        w.store.as_ref(),
        &w.owner,
        RunRequest {
            assistant: Some(assistant.clone()),
            ..RunRequest::default()
        },
        Some(&env),
        &PlainClients,
    )
    .await
    .unwrap();
    assert_eq!(plan.spec.model, "assistant-model");
    assert_eq!(plan.spec.system_prompt, "assistant prompt");

    let plan = resolve(
        w.store.as_ref(),
        &w.owner,
        RunRequest {
            assistant: Some(assistant),
            provider: ProviderChoice::Env,
            model: Some("asked".into()),
            system_prompt: Some("asked prompt".into()),
            ..RunRequest::default()
        },
        Some(&env),
        &PlainClients,
    )
    .await
    .unwrap();
    assert_eq!(plan.spec.model, "asked");
    assert_eq!(plan.spec.system_prompt, "asked prompt");
    assert_eq!(plan.provider_name, None, "the environment's was asked for");
    assert!(!provider.id.is_empty());
}

#[tokio::test]
async fn a_limit_to_one_server_replaces_every_other_choice() {
    let w = world().await;
    let one = server(&w, "one").await;
    let two = server(&w, "two").await;
    let env = env(Some("m"));
    let plan = resolve(
        w.store.as_ref(),
        &w.owner,
        RunRequest::default(),
        Some(&env),
        &PlainClients,
    )
    .await
    .unwrap();
    assert_eq!(plan.spec.servers.len(), 2);

    let plan = resolve(
        w.store.as_ref(),
        &w.owner,
        RunRequest {
            servers: ServerChoice::These(vec![one.clone(), two.clone()]),
            only_server: Some(two.id.clone()),
            ..RunRequest::default()
        },
        Some(&env),
        &PlainClients,
    )
    .await
    .unwrap();
    let names: Vec<&str> = plan.spec.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["two"]);

    // Another owner's server is not found.
    let other = w.store.create_user("o", Role::Member).await.unwrap().id;
    let refused = resolve(
        w.store.as_ref(),
        &other,
        RunRequest {
            only_server: Some(one.id),
            ..RunRequest::default()
        },
        Some(&env),
        &PlainClients,
    )
    .await;
    assert!(
        matches!(
            refused,
            Err(ResolveError::Store(StoreError::NotFound { .. }))
        ),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_limit_to_one_server_never_widens_an_assistant_or_wakes_a_switched_off_server() {
    let w = world().await;
    let one = server(&w, "one").await;
    let two = server(&w, "two").await;
    let mut off = ServerSpec::stdio("off", "true", Vec::<String>::new());
    off.enabled = false;
    let off = w.store.create_server(&w.owner, &off).await.unwrap().spec;
    let created = w
        .store
        .create_assistant(&w.owner, &AssistantConfig::named("helper"))
        .await
        .unwrap();
    let mut assistant = created;
    assistant.server_ids = vec![one.id.clone()];
    let env = env(Some("m"));
    async fn offered(
        w: &World,
        env: &EnvProvider,
        only: &ServerSpec,
        assistant: Option<Assistant>,
    ) -> Vec<String> {
        let request = RunRequest {
            assistant,
            only_server: Some(only.id.clone()),
            ..RunRequest::default()
        };
        let plan = resolve(
            w.store.as_ref(),
            &w.owner,
            request,
            Some(env),
            &PlainClients,
        )
        .await
        .unwrap();
        plan.spec.servers.iter().map(|s| s.name.clone()).collect()
    }
    assert_eq!(
        offered(&w, &env, &one, Some(assistant.clone())).await,
        ["one"]
    );
    assert!(offered(&w, &env, &two, Some(assistant)).await.is_empty());
    assert!(offered(&w, &env, &off, None).await.is_empty());
}

#[tokio::test]
async fn an_assistants_nodes_add_their_servers_and_follow_a_limit() {
    let w = world().await;
    let plain = server(&w, "plain").await;
    let noded = server(&w, "noded").await;
    let other = server(&w, "other").await;
    let mut config = AssistantConfig::named("helper");
    config.variables = vec![switchboard_core::VariableDecl {
        name: "repo".into(),
        kind: Default::default(),
        default: Some(serde_json::json!("r")),
        description: None,
    }];
    let assistant = w.store.create_assistant(&w.owner, &config).await.unwrap();
    let assistant = w
        .store
        .set_assistant_servers(&w.owner, &assistant.id, std::slice::from_ref(&plain.id))
        .await
        .unwrap();
    let node: switchboard_core::ToolNode = serde_json::from_value(serde_json::json!({
        "name": "n",
        "serverId": noded.id.0,
        "assistantId": assistant.id,
        "selectedTools": [{"name": "t"}],
    }))
    .unwrap();
    let stored = w.store.create_tool_node(&w.owner, &node).await.unwrap();
    let env = env(Some("m"));
    let plan_for = |only: Option<&ServerSpec>| {
        let request = RunRequest {
            assistant: Some(assistant.clone()),
            only_server: only.map(|s| s.id.clone()),
            ..RunRequest::default()
        };
        let store = Arc::clone(&w.store);
        let owner = w.owner.clone();
        let env = env.clone();
        async move {
            resolve(store.as_ref(), &owner, request, Some(&env), &PlainClients)
                .await
                .unwrap()
                .spec
        }
    };
    let names =
        |spec: &RunSpec| -> Vec<String> { spec.servers.iter().map(|s| s.name.clone()).collect() };

    let spec = plan_for(None).await;
    assert_eq!(names(&spec), ["plain", "noded"]);
    assert_eq!(spec.nodes.len(), 1);
    assert_eq!(spec.nodes[0].id, stored.id);
    assert_eq!(spec.variables, config.variables);

    // A limit to the node's server keeps it and its node; to the plain one, no node.
    let spec = plan_for(Some(&noded)).await;
    assert_eq!(names(&spec), ["noded"]);
    assert_eq!(spec.nodes.len(), 1);
    let spec = plan_for(Some(&plain)).await;
    assert_eq!(names(&spec), ["plain"]);
    assert!(spec.nodes.is_empty());
    // A server that is neither: nothing.
    let spec = plan_for(Some(&other)).await;
    assert!(spec.servers.is_empty());
    assert!(spec.nodes.is_empty());
}
