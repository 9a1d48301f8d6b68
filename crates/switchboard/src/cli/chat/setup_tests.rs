use std::collections::HashMap;

use clap::Parser;
use switchboard_core::ServerSpec;
use switchboard_llm::WireFormat;
use switchboard_store::{AssistantConfig, ProviderConfig, StoreConfig, ToolMode};

use super::*;
use crate::cli::{Cli, Command};
use switchboard_store::ProviderKind;

struct World {
    _dir: tempfile::TempDir,
    servers: LocalServers,
}

async fn world() -> World {
    world_looking_at(Vec::new()).await
}

/// A world whose model servers on this machine are looked for on `ports` only.
async fn world_looking_at(ports: Vec<u16>) -> World {
    let dir = tempfile::tempdir().unwrap();
    let config = switchboard_app::AppConfig {
        local_ports: switchboard_app::config::LocalPorts(ports),
        ..Default::default()
    };
    let servers = LocalServers::open(&StoreConfig::in_dir(dir.path()), config, None)
        .await
        .unwrap();
    World { _dir: dir, servers }
}

fn args(extra: &[&str]) -> ChatArgs {
    let argv = ["switchboard", "chat"].iter().chain(extra);
    match Cli::try_parse_from(argv).unwrap().command {
        Command::Chat(args) => args,
        other => panic!("not chat: {other:?}"),
    }
}

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

async fn resolve_with(
    world: &World,
    argv: &[&str],
    vars: &[(&str, &str)],
) -> anyhow::Result<Setup> {
    resolve(&world.servers, &args(argv), ApprovalPolicy::Ask, &env(vars)).await
}

async fn store_provider(world: &World, name: &str, kind: ProviderKind, model: &str) -> String {
    let config = ProviderConfig {
        name: name.into(),
        kind,
        base_url: Some(format!("http://{name}.invalid/v1")),
        api_key: Some("sk-stored".into()),
        default_model: model.into(),
        keep_api_key: false,
    };
    let store = world.servers.store();
    store
        .create_provider(world.servers.owner(), &config)
        .await
        .unwrap()
        .id
}

fn chat_error(error: &anyhow::Error) -> &ChatError {
    error
        .downcast_ref::<ChatError>()
        .unwrap_or_else(|| panic!("not a ChatError: {error:#}"))
}

#[tokio::test]
async fn nothing_configured_names_the_variables() {
    let world = world().await;
    let error = resolve_with(&world, &[], &[]).await.unwrap_err();
    assert!(matches!(chat_error(&error), ChatError::NoProvider));
    let message = error.to_string();
    assert!(message.contains("OPENAI_API_KEY"), "{message}");
    assert!(message.contains("ANTHROPIC_API_KEY"), "{message}");
}

#[tokio::test]
async fn nothing_configured_but_a_local_server_says_how_to_chat_with_it() {
    let local = switchboard_testkit::ScriptedLlm::start(Vec::new()).await;
    let world = world_looking_at(vec![local.addr().port()]).await;
    let error = resolve_with(&world, &[], &[]).await.unwrap_err();
    let base_url = local.openai_base_url();
    assert!(
        matches!(
            chat_error(&error),
            ChatError::NoProviderButLocal { base_url: url, model, .. }
                if *url == base_url && model == "scripted-large"
        ),
        "{error:#}"
    );
    let message = error.to_string();
    assert!(
        message.contains(&format!(
            "OPENAI_BASE_URL={base_url} OPENAI_MODEL=scripted-large"
        )),
        "{message}"
    );
    // Nothing was added.
    let stored = world.servers.store().providers(world.servers.owner()).await;
    assert!(stored.unwrap().is_empty());
}

#[tokio::test]
async fn the_environment_provider_needs_a_model() {
    let world = world().await;
    let vars = [("OPENAI_BASE_URL", "http://localhost:1/v1")];
    let error = resolve_with(&world, &[], &vars).await.unwrap_err();
    assert!(matches!(
        chat_error(&error),
        ChatError::NoModel("OPENAI_MODEL")
    ));

    let setup = resolve_with(&world, &["--model", "m1"], &vars)
        .await
        .unwrap();
    assert_eq!(setup.spec.model, "m1");
    assert_eq!(setup.spec.provider.wire_format(), WireFormat::OpenAi);

    let vars = [
        ("ANTHROPIC_API_KEY", "sk-ant"),
        ("ANTHROPIC_MODEL", "claude-x"),
    ];
    let setup = resolve_with(&world, &[], &vars).await.unwrap();
    assert_eq!(setup.spec.model, "claude-x");
    assert_eq!(setup.spec.provider.wire_format(), WireFormat::Anthropic);
    assert_eq!(setup.spec.tool_mode, ToolMode::Native);
    assert_eq!(setup.spec.max_rounds, 20);
}

#[tokio::test]
async fn provider_flags_pick_the_vendor_or_a_stored_provider() {
    let world = world().await;
    let vars = [
        ("OPENAI_API_KEY", "sk-1"),
        ("OPENAI_MODEL", "gpt-x"),
        ("ANTHROPIC_API_KEY", "sk-ant"),
        ("ANTHROPIC_MODEL", "claude-x"),
    ];
    let setup = resolve_with(&world, &["--provider", "anthropic"], &vars)
        .await
        .unwrap();
    assert_eq!(setup.spec.provider.wire_format(), WireFormat::Anthropic);
    assert_eq!(setup.spec.model, "claude-x");

    let error = resolve_with(&world, &["--provider", "anthropic"], &vars[..2])
        .await
        .unwrap_err();
    assert!(error.to_string().contains("ANTHROPIC_API_KEY"), "{error}");

    // A stored provider comes before the environment, unless the vendor is named.
    store_provider(&world, "local", ProviderKind::Anthropic, "stored-model").await;
    let setup = resolve_with(&world, &[], &vars).await.unwrap();
    assert_eq!(setup.spec.model, "stored-model");
    assert!(
        setup.description.contains("`local`"),
        "{}",
        setup.description
    );
    assert!(format!("{:?}", setup.spec.provider).contains("http://local.invalid"));
    let setup = resolve_with(&world, &["--provider", "openai"], &vars)
        .await
        .unwrap();
    assert_eq!(setup.spec.model, "gpt-x");

    let error = resolve_with(&world, &["--provider", "nope"], &vars)
        .await
        .unwrap_err();
    assert!(matches!(chat_error(&error), ChatError::ProviderNotFound(_)));
}

#[tokio::test]
async fn an_assistant_supplies_what_the_flags_do_not() {
    let world = world().await;
    let (store, owner) = (world.servers.store(), world.servers.owner());
    let provider = store_provider(&world, "ollama", ProviderKind::OpenAi, "llama").await;
    store_provider(&world, "other", ProviderKind::OpenAi, "other-model").await;
    for name in ["a", "b"] {
        let spec = ServerSpec::stdio(name, "true", Vec::<String>::new());
        world.servers.put(spec, false).await.unwrap();
    }
    let mut config = AssistantConfig::named("helper");
    config.provider_id = Some(provider);
    config.model = Some("llama-big".into());
    config.tool_mode = ToolMode::Meta;
    config.max_rounds = 3;
    config.system_prompt = "Be brief.".into();
    let assistant = store.create_assistant(owner, &config).await.unwrap();
    store
        .set_assistant_servers(
            owner,
            &assistant.id,
            &[switchboard_core::ServerId("b".into())],
        )
        .await
        .unwrap();

    let setup = resolve_with(&world, &["--assistant", "helper"], &[])
        .await
        .unwrap();
    assert_eq!(setup.assistant_id.as_deref(), Some(assistant.id.as_str()));
    assert_eq!(setup.spec.model, "llama-big");
    assert_eq!(setup.spec.tool_mode, ToolMode::Meta);
    assert_eq!(setup.spec.max_rounds, 3);
    assert_eq!(setup.spec.system_prompt, "Be brief.");
    let names: Vec<&str> = setup.spec.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["b"]);
    assert!(
        setup.description.contains("`ollama`"),
        "{}",
        setup.description
    );

    let flags = [
        "--assistant",
        "helper",
        "--model",
        "m",
        "--tool-mode",
        "prompt",
        "--max-rounds",
        "9",
        "--system",
        "Be long.",
        "--server",
        "a",
        "--provider",
        "other",
    ];
    let setup = resolve_with(&world, &flags, &[]).await.unwrap();
    assert_eq!(setup.spec.model, "m");
    assert_eq!(setup.spec.tool_mode, ToolMode::Prompt);
    assert_eq!(setup.spec.max_rounds, 9);
    assert_eq!(setup.spec.system_prompt, "Be long.");
    let names: Vec<&str> = setup.spec.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["a"]);
    assert!(
        setup.description.contains("`other`"),
        "{}",
        setup.description
    );

    let error = resolve_with(&world, &["--assistant", "nobody"], &[])
        .await
        .unwrap_err();
    assert!(matches!(
        chat_error(&error),
        ChatError::AssistantNotFound(_)
    ));
}

#[tokio::test]
async fn without_an_assistant_every_enabled_server_is_offered() {
    let world = world().await;
    let mut off = ServerSpec::stdio("off", "true", Vec::<String>::new());
    off.enabled = false;
    world.servers.put(off, false).await.unwrap();
    let on = ServerSpec::stdio("on", "true", Vec::<String>::new());
    world.servers.put(on, false).await.unwrap();
    let vars = [("OPENAI_API_KEY", "sk"), ("OPENAI_MODEL", "m")];

    let setup = resolve_with(&world, &[], &vars).await.unwrap();
    let names: Vec<&str> = setup.spec.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["on"]);
    assert!(setup.notes.is_empty());

    let setup = resolve_with(&world, &["--server", "off"], &vars)
        .await
        .unwrap();
    assert_eq!(setup.notes.len(), 1, "{:?}", setup.notes);
    let error = resolve_with(&world, &["--server", "ghost"], &vars)
        .await
        .unwrap_err();
    assert!(error.to_string().contains("ghost"), "{error}");
}
