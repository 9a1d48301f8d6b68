//! The scripted model server as a raw HTTP client sees it: the exact stream framing of both
//! wire formats, non-streamed answers, errors, the script running out, recording, shutdown.

use std::time::Duration;

use serde_json::{Value, json};
use switchboard_llm::WireFormat;
use switchboard_testkit::{ScriptedLlm, Turn};

const OPENAI: &str = "/v1/chat/completions";
const ANTHROPIC: &str = "/v1/messages";

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    text: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.text).expect("a JSON body")
    }

    /// The `data:` payloads of an SSE body, parsed (`[DONE]` as a string).
    fn data(&self) -> Vec<Value> {
        self.text
            .lines()
            .filter_map(|line| line.strip_prefix("data: "))
            .map(|data| serde_json::from_str(data).unwrap_or_else(|_| json!(data)))
            .collect()
    }
}

async fn post(llm: &ScriptedLlm, path: &str, body: &Value) -> Answer {
    let url = format!("http://{}{path}", llm.addr());
    let response = reqwest::Client::new()
        .post(url)
        .header("x-test", "yes")
        .json(body)
        .send()
        .await
        .expect("the server answers");
    Answer {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        text: response.text().await.expect("a body"),
    }
}

fn openai_request(stream: bool, include_usage: bool) -> Value {
    let mut body =
        json!({"model": "m", "messages": [{"role": "user", "content": "Hi"}], "stream": stream});
    if include_usage {
        body["stream_options"] = json!({"include_usage": true});
    }
    body
}

fn anthropic_request(stream: bool) -> Value {
    json!({"model": "m", "max_tokens": 10, "messages": [{"role": "user", "content": "Hi"}], "stream": stream})
}

#[tokio::test]
async fn openai_stream_is_framed_like_openai() {
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("echo", json!({"message": "hello world"})).with_text("Calling it."),
        Turn::text("no usage asked"),
    ])
    .await;
    let answer = post(&llm, OPENAI, &openai_request(true, true)).await;
    assert_eq!(answer.status, 200);
    assert!(
        answer.headers["content-type"]
            .to_str()
            .expect("ascii")
            .starts_with("text/event-stream")
    );
    // Every message is one `data:` line and a blank line; no `event:` lines.
    assert!(answer.text.ends_with("data: [DONE]\n\n"), "{}", answer.text);
    assert!(!answer.text.contains("event:"));
    assert!(
        answer
            .text
            .split("\n\n")
            .filter(|m| !m.is_empty())
            .all(|m| m.starts_with("data: ") && !m.contains('\n'))
    );

    let data = answer.data();
    assert_eq!(data[0]["object"], "chat.completion.chunk");
    assert_eq!(data[0]["choices"][0]["delta"]["role"], "assistant");
    let text: String = data
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect();
    assert_eq!(text, "Calling it.");
    let calls: Vec<&Value> = data
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0))
        .collect();
    assert_eq!(calls[0]["id"], "call_1");
    assert_eq!(calls[0]["function"]["name"], "echo");
    assert!(calls.len() > 2, "arguments in several fragments");
    let arguments: String = calls
        .iter()
        .filter_map(|c| c["function"]["arguments"].as_str())
        .collect();
    assert_eq!(
        serde_json::from_str::<Value>(&arguments).expect("JSON arguments"),
        json!({"message": "hello world"})
    );
    let n = data.len();
    assert_eq!(data[n - 3]["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(data[n - 2]["choices"], json!([]));
    assert!(data[n - 2]["usage"]["prompt_tokens"].as_u64() > Some(0));
    assert_eq!(data[n - 1], json!("[DONE]"));

    // Without include_usage there is no usage chunk.
    let answer = post(&llm, OPENAI, &openai_request(true, false)).await;
    assert!(answer.data().iter().all(|c| c.get("usage").is_none()));
}

#[tokio::test]
async fn anthropic_stream_is_framed_like_anthropic() {
    let llm = ScriptedLlm::start(vec![
        Turn::tool_calls(vec![
            ("first", json!({"a": 1})),
            ("second", json!({"b": "two"})),
        ])
        .with_text("Two calls.")
        .usage(12, 34),
    ])
    .await;
    let answer = post(&llm, ANTHROPIC, &anthropic_request(true)).await;
    assert_eq!(answer.status, 200);
    // Every message is an `event:` line naming the type of its `data:` line.
    let messages: Vec<&str> = answer
        .text
        .split("\n\n")
        .filter(|m| !m.is_empty())
        .collect();
    for message in &messages {
        let (event, data) = message.split_once('\n').expect("two lines");
        let event = event.strip_prefix("event: ").expect("an event line");
        let data: Value =
            serde_json::from_str(data.strip_prefix("data: ").expect("a data line")).expect("JSON");
        assert_eq!(data["type"], event);
    }
    let data = answer.data();
    let types: Vec<&str> = data
        .iter()
        .map(|d| d["type"].as_str().expect("type"))
        .collect();
    assert_eq!(types[..2], ["message_start", "ping"]);
    assert_eq!(types[types.len() - 2..], ["message_delta", "message_stop"]);
    assert_eq!(data[0]["message"]["usage"]["input_tokens"], 12);
    let starts: Vec<&Value> = data
        .iter()
        .filter(|d| d["type"] == "content_block_start")
        .collect();
    assert_eq!(starts[0]["content_block"]["type"], "text");
    assert_eq!(starts[1]["content_block"]["id"], "toolu_1");
    assert_eq!(starts[1]["index"], 1);
    assert_eq!(starts[2]["content_block"]["id"], "toolu_2");
    assert_eq!(starts[2]["content_block"]["name"], "second");
    let second_input: String = data
        .iter()
        .filter(|d| d["index"] == 2 && d["delta"]["type"] == "input_json_delta")
        .filter_map(|d| d["delta"]["partial_json"].as_str())
        .collect();
    assert_eq!(second_input, "{\"b\":\"two\"}");
    let delta = &data[data.len() - 2];
    assert_eq!(delta["delta"]["stop_reason"], "tool_use");
    assert_eq!(delta["usage"]["output_tokens"], 34);
}

#[tokio::test]
async fn non_streamed_answers_are_whole_objects() {
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("echo", json!({"x": 1})),
        Turn::text("Done.").truncated(),
    ])
    .await;
    let openai = post(&llm, OPENAI, &openai_request(false, false))
        .await
        .json();
    assert_eq!(openai["object"], "chat.completion");
    let message = &openai["choices"][0]["message"];
    assert_eq!(message["content"], Value::Null);
    assert_eq!(message["tool_calls"][0]["id"], "call_1");
    assert_eq!(
        message["tool_calls"][0]["function"]["arguments"],
        "{\"x\":1}"
    );
    assert_eq!(openai["choices"][0]["finish_reason"], "tool_calls");

    let anthropic = post(&llm, ANTHROPIC, &anthropic_request(false))
        .await
        .json();
    assert_eq!(anthropic["type"], "message");
    assert_eq!(
        anthropic["content"],
        json!([{"type": "text", "text": "Done."}])
    );
    assert_eq!(anthropic["stop_reason"], "max_tokens");
}

#[tokio::test]
async fn errors_carry_the_wire_format_body_and_retry_after() {
    let llm = ScriptedLlm::start(vec![
        Turn::error(429, "slow down").retry_after(3),
        Turn::error(400, "too long").code("context_length_exceeded"),
        Turn::error(529, "Overloaded"),
    ])
    .await;
    let limited = post(&llm, OPENAI, &openai_request(true, true)).await;
    assert_eq!(limited.status, 429);
    assert_eq!(limited.headers["retry-after"], "3");
    assert_eq!(limited.json()["error"]["message"], "slow down");

    let long = post(&llm, OPENAI, &openai_request(true, true)).await;
    assert_eq!(long.json()["error"]["code"], "context_length_exceeded");

    let overloaded = post(&llm, ANTHROPIC, &anthropic_request(true)).await;
    assert_eq!(overloaded.status, 529);
    assert_eq!(
        overloaded.json(),
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
}

#[tokio::test]
async fn turns_are_shared_by_both_formats_and_the_end_of_the_script_is_explained() {
    let llm = ScriptedLlm::start(vec![Turn::text("one"), Turn::text("two")]).await;
    let first = post(&llm, ANTHROPIC, &anthropic_request(false))
        .await
        .json();
    assert_eq!(first["content"][0]["text"], "one");
    let second = post(&llm, OPENAI, &openai_request(false, false))
        .await
        .json();
    assert_eq!(second["choices"][0]["message"]["content"], "two");
    assert_eq!(llm.remaining(), 0);

    let over = post(&llm, OPENAI, &openai_request(true, true)).await;
    assert_eq!(over.status, 500);
    let message = over.json()["error"]["message"].as_str().map(str::to_owned);
    let message = message.expect("a message");
    assert!(message.contains("script ran out"), "{message}");
    assert!(message.contains("request #3"), "{message}");

    llm.push(Turn::text("three"));
    let third = post(&llm, OPENAI, &openai_request(false, false))
        .await
        .json();
    assert_eq!(third["choices"][0]["message"]["content"], "three");

    let requests = llm.requests();
    let wires: Vec<WireFormat> = requests.iter().map(|r| r.wire).collect();
    assert_eq!(
        wires,
        [
            WireFormat::Anthropic,
            WireFormat::OpenAi,
            WireFormat::OpenAi,
            WireFormat::OpenAi
        ]
    );
    assert_eq!(requests[0].header("X-Test"), Some("yes"));
    assert_eq!(requests[0].body["max_tokens"], 10);
    assert!(!requests[0].streamed() && requests[2].streamed());
}

#[tokio::test]
async fn a_body_that_is_not_json_consumes_no_turn() {
    let llm = ScriptedLlm::start(vec![Turn::text("kept")]).await;
    let response = reqwest::Client::new()
        .post(format!("{}/chat/completions", llm.openai_base_url()))
        .body("{not json")
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status().as_u16(), 400);
    assert_eq!(llm.remaining(), 1);
    assert_eq!(llm.requests()[0].body, Value::Null);
}

#[tokio::test]
async fn a_delay_holds_the_answer_back() {
    let llm = ScriptedLlm::start(vec![Turn::text("late").delay(Duration::from_millis(50))]).await;
    let started = std::time::Instant::now();
    let answer = post(&llm, OPENAI, &openai_request(false, false)).await;
    assert_eq!(answer.status, 200);
    assert!(started.elapsed() >= Duration::from_millis(50));
}

#[tokio::test]
async fn shutdown_closes_the_port() {
    let llm = ScriptedLlm::start(vec![]).await;
    let addr = llm.addr();
    assert!(tokio::net::TcpStream::connect(addr).await.is_ok());
    llm.shutdown().await;
    assert!(tokio::net::TcpStream::connect(addr).await.is_err());
}
