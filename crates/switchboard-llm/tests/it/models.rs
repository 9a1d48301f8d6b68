//! Listing a provider's models against the scripted model server and against what a wrong
//! base URL meets: a closed port, a name that does not resolve, a server that never answers,
//! a page that is not a list, a refused key. Each failure comes back as the class a person
//! can act on.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use switchboard_llm::{
    AnthropicConfig, AnthropicProvider, ListLimits, ModelsError, OpenAiConfig, OpenAiProvider,
    Provider, find_local_servers,
};
use switchboard_testkit::{SCRIPTED_MODELS, ScriptedLlm, canned_http::CannedHttp};

fn openai(base_url: &str, key: Option<&str>) -> OpenAiProvider {
    let mut config = OpenAiConfig::new(base_url);
    config.api_key = key.map(str::to_owned);
    OpenAiProvider::new(config)
}

fn quick() -> ListLimits {
    ListLimits {
        timeout: Duration::from_millis(500),
        ..ListLimits::default()
    }
}

#[tokio::test]
async fn openai_anthropic_and_ollama_listings_give_the_ids() {
    let llm = ScriptedLlm::start(Vec::new()).await;
    llm.set_models(&["qwen3:8b", "llama3.2:latest"]);
    let limits = ListLimits::default();
    let expected = vec!["llama3.2:latest".to_owned(), "qwen3:8b".to_owned()];

    let listed = openai(&llm.openai_base_url(), None)
        .models(&limits)
        .await
        .unwrap();
    assert_eq!(listed, expected);

    let anthropic = AnthropicProvider::new(
        AnthropicConfig::new(llm.anthropic_base_url()).with_api_key("sk-ant-1"),
    );
    assert_eq!(anthropic.models(&limits).await.unwrap(), expected);

    // An Ollama root without /v1: its /models is not there, its /api/tags is.
    let root = format!("http://{}", llm.addr());
    assert_eq!(openai(&root, None).models(&limits).await.unwrap(), expected);
    let paths: Vec<String> = llm.listings().iter().map(|l| l.path.clone()).collect();
    assert_eq!(paths, ["/v1/models", "/v1/models", "/api/tags"]);
    let anthropic_asked = &llm.listings()[1];
    assert_eq!(anthropic_asked.header("x-api-key"), Some("sk-ant-1"));
    assert!(anthropic_asked.header("anthropic-version").is_some());
}

#[tokio::test]
async fn a_wrong_key_is_refused_and_the_right_one_sent() {
    let llm = ScriptedLlm::start(Vec::new()).await;
    llm.require_api_key("sk-right");
    let limits = ListLimits::default();
    let error = openai(&llm.openai_base_url(), Some("sk-wrong"))
        .models(&limits)
        .await
        .unwrap_err();
    match &error {
        ModelsError::Auth {
            status: 401,
            message,
        } => {
            assert_eq!(message, "Incorrect API key provided.");
        }
        other => panic!("expected a refused key, got {other:?}"),
    }
    assert!(!error.to_string().contains("sk-wrong"), "{error}");
    let listed = openai(&llm.openai_base_url(), Some("sk-right"))
        .models(&limits)
        .await
        .unwrap();
    assert_eq!(listed, SCRIPTED_MODELS.map(str::to_owned).to_vec());
    assert_eq!(
        llm.listings()[1].header("authorization"),
        Some("Bearer sk-right")
    );
}

#[tokio::test]
async fn a_wrong_path_a_closed_port_and_an_unknown_name_say_so() {
    let llm = ScriptedLlm::start(Vec::new()).await;
    let error = openai(&format!("http://{}/nothing/v1", llm.addr()), None)
        .models(&quick())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ModelsError::NotFound { path } if path == "/nothing/v1/models"),
        "{error:?}"
    );

    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let error = openai(&format!("http://127.0.0.1:{closed}/v1"), None)
        .models(&quick())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ModelsError::Refused { address } if *address == format!("127.0.0.1:{closed}")),
        "{error:?}"
    );

    let error = openai("http://no-such-host.invalid/v1", None)
        .models(&ListLimits::default())
        .await
        .unwrap_err();
    assert!(
        matches!(&error, ModelsError::NameNotResolved { host } if host == "no-such-host.invalid"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_silent_server_times_out_and_a_page_is_not_a_list() {
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = silent.local_addr().unwrap().port();
    // Accepts and never answers.
    let held = tokio::spawn(async move {
        let mut open = Vec::new();
        while let Ok((socket, _)) = silent.accept().await {
            open.push(socket);
        }
    });
    let limits = ListLimits {
        timeout: Duration::from_millis(200),
        ..ListLimits::default()
    };
    let started = std::time::Instant::now();
    let error = openai(&format!("http://127.0.0.1:{port}/v1"), None)
        .models(&limits)
        .await
        .unwrap_err();
    assert!(matches!(error, ModelsError::Timeout { .. }), "{error:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    held.abort();

    let page = CannedHttp::start(200, "text/html", "<html>SECRET-PAGE</html>").await;
    let error = openai(&format!("http://127.0.0.1:{}/v1", page.port()), None)
        .models(&quick())
        .await
        .unwrap_err();
    assert!(matches!(error, ModelsError::NotAList { .. }), "{error:?}");
    assert!(!error.to_string().contains("SECRET"), "{error}");

    let huge = CannedHttp::start(200, "application/json", "x".repeat(4096)).await;
    let small = ListLimits {
        max_bytes: 1024,
        ..quick()
    };
    let error = openai(&format!("http://127.0.0.1:{}/v1", huge.port()), None)
        .models(&small)
        .await
        .unwrap_err();
    assert!(
        matches!(error, ModelsError::TooLarge { limit: 1024 }),
        "{error:?}"
    );
}

#[tokio::test]
async fn local_servers_are_found_on_the_ports_asked_only() {
    let llm = ScriptedLlm::start(Vec::new()).await;
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let port = llm.addr().port();
    let client = reqwest::Client::builder().no_proxy().build().unwrap();
    let found = find_local_servers(&client, &[closed, port], &quick()).await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].port, port);
    assert_eq!(found[0].base_url, format!("http://127.0.0.1:{port}/v1"));
    assert_eq!(found[0].models, SCRIPTED_MODELS.map(str::to_owned).to_vec());
    assert!(
        find_local_servers(&client, &[closed], &quick())
            .await
            .is_empty()
    );
}
