//! The scripted model's search with Anthropic's tool search tool: framed as the API streams
//! it, read back whole by the Anthropic client, left out on the OpenAI wire.

use serde_json::{Value, json};
use switchboard_llm::{
    AnthropicConfig, AnthropicProvider, ChatMessage, ChatRequest, NativeToolSearch, ToolDefinition,
    complete,
};
use switchboard_testkit::{ScriptedLlm, Turn};

fn search_turn() -> Turn {
    Turn::tool_call("get_weather", json!({"location": "Paris"}))
        .with_text("Let me look.")
        .with_tool_search("weather", &["get_weather", "get_forecast"])
}

async fn post(llm: &ScriptedLlm, path: &str, body: &Value) -> String {
    reqwest::Client::new()
        .post(format!("http://{}{path}", llm.addr()))
        .json(body)
        .send()
        .await
        .expect("the server answers")
        .text()
        .await
        .expect("a body")
}

fn data(stream: &str) -> Vec<Value> {
    stream
        .lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap_or_else(|_| json!(data)))
        .collect()
}

fn request(stream: bool) -> Value {
    json!({
        "model": "m",
        "max_tokens": 10,
        "stream": stream,
        "messages": [{"role": "user", "content": "Weather in Paris?"}],
        "tools": [
            {"type": "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"},
            {"name": "get_weather", "description": "Weather", "input_schema": {"type": "object"}, "defer_loading": true},
        ],
    })
}

#[tokio::test]
async fn the_search_streams_between_the_text_and_the_call() {
    let llm = ScriptedLlm::start(vec![search_turn()]).await;
    let data = data(&post(&llm, "/v1/messages", &request(true)).await);
    let starts: Vec<&Value> = data
        .iter()
        .filter(|d| d["type"] == "content_block_start")
        .map(|d| &d["content_block"])
        .collect();
    let kinds: Vec<&str> = starts.iter().filter_map(|b| b["type"].as_str()).collect();
    assert_eq!(
        kinds,
        [
            "text",
            "server_tool_use",
            "tool_search_tool_result",
            "tool_use"
        ]
    );
    // The search tool the request offered, opened with an empty input that streams.
    assert_eq!(
        *starts[1],
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_regex", "input": {}})
    );
    let input: String = data
        .iter()
        .filter(|d| d["index"] == 1 && d["delta"]["type"] == "input_json_delta")
        .filter_map(|d| d["delta"]["partial_json"].as_str())
        .collect();
    assert_eq!(input, r#"{"query":"weather"}"#);
    assert_eq!(
        *starts[2],
        json!({
            "type": "tool_search_tool_result",
            "tool_use_id": "srvtoolu_1",
            "content": {
                "type": "tool_search_tool_search_result",
                "tool_references": [
                    {"type": "tool_reference", "tool_name": "get_weather"},
                    {"type": "tool_reference", "tool_name": "get_forecast"},
                ],
            },
        })
    );
    assert_eq!(starts[3]["id"], "toolu_2");
    let stops = data
        .iter()
        .filter(|d| d["type"] == "content_block_stop")
        .count();
    assert_eq!(stops, 4);
    let delta = &data[data.len() - 2];
    assert_eq!(delta["delta"]["stop_reason"], "tool_use");
}

#[tokio::test]
async fn a_whole_answer_holds_the_search_blocks_in_order() {
    let llm = ScriptedLlm::start(vec![search_turn()]).await;
    let answer: Value =
        serde_json::from_str(&post(&llm, "/v1/messages", &request(false)).await).expect("JSON");
    let content = answer["content"].as_array().cloned().unwrap_or_default();
    assert_eq!(content.len(), 4, "{answer:#}");
    assert_eq!(
        content[1],
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_regex", "input": {"query": "weather"}})
    );
    assert_eq!(content[2]["tool_use_id"], "srvtoolu_1");
    assert_eq!(content[3]["input"], json!({"location": "Paris"}));
}

#[tokio::test]
async fn the_anthropic_client_reads_the_search_back_whole() {
    let llm = ScriptedLlm::start(vec![search_turn()]).await;
    let provider = AnthropicProvider::new(AnthropicConfig::new(llm.anthropic_base_url()));
    let request = ChatRequest {
        model: "m".into(),
        system: None,
        messages: vec![ChatMessage::user("Weather in Paris?")],
        tools: vec![ToolDefinition {
            name: "get_weather".into(),
            description: "Weather".into(),
            parameters: json!({"type": "object"}),
            strict: false,
            defer_loading: true,
        }],
        max_tokens: None,
        temperature: None,
        native_tool_search: Some(NativeToolSearch::Bm25),
    };
    let done = complete(&provider, &request).await.expect("an answer");
    assert_eq!(done.text, "Let me look.");
    assert_eq!(done.provider_blocks.len(), 2);
    assert_eq!(
        done.provider_blocks[0],
        json!({"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25", "input": {"query": "weather"}})
    );
    assert_eq!(
        done.provider_blocks[1]["content"]["tool_references"][1]["tool_name"],
        "get_forecast"
    );
    assert_eq!(done.tool_calls[0].name, "get_weather");
    assert_eq!(done.tool_calls[0].arguments["location"], "Paris");
    let sent = &llm.requests()[0];
    assert_eq!(
        sent.header("anthropic-beta"),
        Some(switchboard_llm::ANTHROPIC_TOOL_SEARCH_BETA)
    );
    assert_eq!(
        sent.body["tools"][0]["type"],
        "tool_search_tool_bm25_20251119"
    );
    assert_eq!(sent.body["tools"][1]["defer_loading"], true);
}

#[tokio::test]
async fn chat_completions_leave_the_search_out() {
    let llm = ScriptedLlm::start(vec![search_turn()]).await;
    let body =
        json!({"model": "m", "stream": false, "messages": [{"role": "user", "content": "Hi"}]});
    let answer: Value =
        serde_json::from_str(&post(&llm, "/v1/chat/completions", &body).await).expect("JSON");
    let message = &answer["choices"][0]["message"];
    assert_eq!(message["content"], "Let me look.");
    assert_eq!(message["tool_calls"][0]["function"]["name"], "get_weather");
    assert_eq!(message["tool_calls"].as_array().map(Vec::len), Some(1));
}
