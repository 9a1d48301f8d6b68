//! A whole chat over HTTP: the scripted LLM behind a stored provider, server-everything over
//! stdio behind an assistant, the run streamed as SSE, an approval through `tool-confirm`,
//! and the stored history afterwards.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use common::chat::conversation_with_everything as set_up;
use common::sse::SseReader;
use common::{assert_error, everything, start};
use reqwest::{Method, StatusCode};
use serde_json::json;
use switchboard_testkit::{ScriptedLlm, Turn};

#[tokio::test]
async fn a_streamed_chat_with_an_approval() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__everything__echo", json!({"message": "hello"})),
        Turn::text("The server said hello."),
    ])
    .await;
    let conversation = set_up(&api, &llm).await;

    let response = api
        .client
        .post(format!(
            "{}/api/conversations/{conversation}/messages",
            api.base
        ))
        .bearer_auth(&api.admin)
        .header("accept", "text/event-stream")
        .json(&json!({"content": "Say hello through the server"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let mut events = SseReader::new(response);

    let (created, _) = events.until("message.created").await;
    assert_eq!(created.data["message"]["role"], "user");
    assert_eq!(
        created.data["message"]["content"],
        "Say hello through the server"
    );
    assert!(created.id.is_some());

    // The call waits for a decision.
    let (pending, before) = events.until("assistant.toolCall.updated").await;
    assert!(
        before
            .iter()
            .any(|e| e.event == "message.created" && e.data["message"]["role"] == "assistant"),
        "{before:#?}"
    );
    let call = &pending.data["toolCall"];
    assert_eq!(call["status"], "pending", "{call}");
    assert!(call["approved"].is_null(), "{call}");
    assert_eq!(call["toolName"], "echo");
    let message_id = pending.data["messageId"].as_str().unwrap().to_owned();
    let call_id = call["id"].as_str().unwrap().to_owned();

    // A reload shows the pending call.
    let (_, history) = api
        .send(
            Method::GET,
            &format!("/api/chat/conversations/{conversation}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(history["running"], true);
    assert_eq!(history["messages"][1]["toolCalls"][0]["status"], "pending");

    let (status, decided) = api
        .send(
            Method::POST,
            &format!("/api/messages/{message_id}/tool-confirm"),
            Some(&api.admin),
            Some(json!({"toolCallId": call_id, "approved": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    assert_eq!(decided["approved"], true);

    // A second decision on the same call is a conflict.
    let (status, body) = api
        .send(
            Method::POST,
            &format!("/api/messages/{message_id}/tool-confirm"),
            Some(&api.admin),
            Some(json!({"toolCallId": call_id, "approved": false})),
        )
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");

    let (completed, rest) = events.until("message.completed").await;
    let statuses: Vec<&str> = rest
        .iter()
        .filter(|e| e.event == "assistant.toolCall.updated")
        .map(|e| e.data["toolCall"]["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["pending", "invoking", "done"], "{rest:#?}");
    let deltas: String = rest
        .iter()
        .filter(|e| e.event == "message.delta")
        .map(|e| e.data["delta"].as_str().unwrap())
        .collect();
    assert_eq!(deltas, "The server said hello.");
    assert_eq!(completed.data["content"], "The server said hello.");
    assert_eq!(completed.data["stop"], "answered");
    // The stream ends with the run.
    assert!(events.next().await.is_none());

    // Ids increase.
    let ids: Vec<u64> = rest
        .iter()
        .filter_map(|e| e.id.as_deref())
        .map(|id| id.parse().unwrap())
        .collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");

    let (status, history) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{conversation}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let messages = history["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 2, "{history}");
    assert_eq!(messages[1]["content"], "The server said hello.");
    let stored = &messages[1]["toolCalls"][0];
    assert_eq!(stored["status"], "done");
    assert_eq!(stored["approved"], true);
    assert!(stored["response"].to_string().contains("hello"), "{stored}");

    // The model got the tool's result back, and the system prompt.
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    let second = requests[1].body.to_string();
    assert!(second.contains("Echo: hello"), "{second}");
    assert!(second.contains("Be brief."), "{second}");
    assert!(!history.to_string().contains("sk-test-secret"));
}

#[tokio::test]
async fn the_one_shot_form_waits_for_the_answer_or_an_approval() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::text("Hi there."),
        Turn::tool_call("mcp__everything__echo", json!({"message": "x"})),
        Turn::text("Done."),
    ])
    .await;
    set_up(&api, &llm).await;
    let admin = Some(api.admin.as_str());

    let (status, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            admin,
            Some(json!({"message": "Hello"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["status"], "completed", "{answer}");
    assert_eq!(answer["message"]["content"], "Hi there.");
    let conversation = answer["conversationId"].as_str().unwrap().to_owned();

    let (status, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            admin,
            Some(json!({"message": "Echo x", "conversationId": conversation})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["status"], "awaiting_approval", "{answer}");
    let message_id = answer["message"]["id"].as_str().unwrap().to_owned();
    let call_id = answer["message"]["toolCalls"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    // Follow the rest on the event stream.
    let response = api
        .client
        .get(format!("{}/api/events", api.base))
        .bearer_auth(&api.admin)
        .send()
        .await
        .unwrap();
    let mut events = SseReader::new(response);
    let (status, _) = api
        .send(
            Method::POST,
            &format!("/api/messages/{message_id}/tool-confirm"),
            admin,
            Some(json!({"toolCallId": call_id, "approved": false})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (completed, _) = events.until("message.completed").await;
    assert_eq!(completed.data["content"], "Done.");
    let (_, history) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{conversation}"),
            admin,
            None,
        )
        .await;
    let call = &history["messages"][3]["toolCalls"][0];
    assert_eq!(call["status"], "cancelled", "{history}");
    assert_eq!(call["approved"], false);
}

#[tokio::test]
async fn events_resume_after_the_last_event_id() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![Turn::text("One."), Turn::text("Two.")]).await;
    set_up(&api, &llm).await;
    let admin = Some(api.admin.as_str());
    let events_of = |last: Option<String>| {
        let mut request = api
            .client
            .get(format!("{}/api/events", api.base))
            .bearer_auth(&api.admin);
        if let Some(last) = last {
            request = request.header("last-event-id", last);
        }
        request.send()
    };
    let mut first = SseReader::new(events_of(None).await.unwrap());
    let (_, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            admin,
            Some(json!({"message": "first"})),
        )
        .await;
    let (done, _) = first.until("message.completed").await;
    assert_eq!(done.data["content"], "One.");
    let last = done.id.clone().unwrap();
    drop(first);

    // While nobody listens, a second turn.
    let (_, second) = api
        .send(
            Method::POST,
            "/api/chat/message",
            admin,
            Some(json!({"message": "second", "conversationId": answer["conversationId"]})),
        )
        .await;
    assert_eq!(second["status"], "completed");

    let mut resumed = SseReader::new(events_of(Some(last.clone())).await.unwrap());
    let (created, _) = resumed.until("message.created").await;
    assert_eq!(created.data["message"]["content"], "second");
    assert!(created.id.unwrap().parse::<u64>().unwrap() > last.parse::<u64>().unwrap());
    let (done, _) = resumed.until("message.completed").await;
    assert_eq!(done.data["content"], "Two.");

    // Another user sees none of it.
    let response = api
        .client
        .get(format!("{}/api/events", api.base))
        .bearer_auth(&api.member)
        .header("last-event-id", "1")
        .send()
        .await
        .unwrap();
    let mut other = SseReader::new(response);
    let reset = other.next().await.unwrap();
    assert_eq!(reset.event, "stream.reset");

    // A Last-Event-ID that is not a number is a bad request.
    let response = events_of(Some("yesterday".into())).await.unwrap();
    assert_eq!(response.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test]
async fn server_status_changes_are_events() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let response = api
        .client
        .get(format!("{}/api/events", api.base))
        .bearer_auth(&api.admin)
        .send()
        .await
        .unwrap();
    let mut events = SseReader::new(response);
    let (status, _) = api
        .send(Method::POST, "/api/mcp-servers", admin, Some(everything()))
        .await;
    assert_eq!(status, StatusCode::CREATED);
    // Listing its tools connects the pooled connection.
    let (status, _) = api
        .send(
            Method::GET,
            "/api/mcp-servers/everything/tools",
            admin,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (connecting, _) = events.until("server.status").await;
    assert_eq!(connecting.data["serverId"], "everything");
    assert_eq!(connecting.data["status"], "connecting");
    let (connected, _) = events.until("server.status").await;
    assert_eq!(
        connected.data["status"], "connected",
        "{:?}",
        connected.data
    );
}

#[tokio::test]
async fn a_conversations_variables_are_read_and_replaced() {
    let api = start().await;
    let admin = Some(api.admin.as_str());
    let (_, conversation) = api
        .send(Method::POST, "/api/conversations", admin, Some(json!({})))
        .await;
    let id = conversation["id"].as_str().unwrap().to_owned();
    assert_eq!(conversation["variables"], json!({}));
    let path = format!("/api/conversations/{id}/variables");
    let (status, body) = api
        .send(
            Method::PUT,
            &path,
            admin,
            Some(json!({"variables": {"city": "Paris", "n": [1, 2]}})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["variables"], json!({"city": "Paris", "n": [1, 2]}));
    let (_, read) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{id}"),
            admin,
            None,
        )
        .await;
    assert_eq!(read["variables"], json!({"city": "Paris", "n": [1, 2]}));

    // Not an object, or another user's conversation: refused, nothing changed.
    let (status, body) = api
        .send(Method::PUT, &path, admin, Some(json!({"variables": [1]})))
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, body) = api
        .send(
            Method::PUT,
            &path,
            Some(&api.member),
            Some(json!({"variables": {"stolen": true}})),
        )
        .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (_, read) = api
        .send(
            Method::GET,
            &format!("/api/conversations/{id}"),
            admin,
            None,
        )
        .await;
    assert_eq!(read["variables"], json!({"city": "Paris", "n": [1, 2]}));
}

/// A conversation limited to one server (seed 000's `serverId`) stays limited when its run
/// goes on after an approval: the resumed run offers the model that server's tools only.
#[tokio::test]
async fn a_server_limit_holds_after_an_approval() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__beta__echo", json!({"message": "x"})),
        Turn::text("Done."),
    ])
    .await;
    let admin = Some(api.admin.as_str());
    let (status, _) = api
        .send(
            Method::POST,
            "/api/providers",
            admin,
            Some(json!({
                "name": "scripted",
                "kind": "openai",
                "baseUrl": llm.openai_base_url(),
                "defaultModel": "scripted-model",
            })),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED);
    for name in ["alpha", "beta"] {
        let mut server = everything();
        server["name"] = json!(name);
        let (status, body) = api
            .send(Method::POST, "/api/mcp-servers", admin, Some(server))
            .await;
        assert_eq!(status, StatusCode::CREATED, "{body}");
    }
    let (status, answer) = api
        .send(
            Method::POST,
            "/api/chat/message",
            admin,
            Some(json!({"serverId": "beta", "messages": [{"role": "user", "content": "Echo"}]})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answer}");
    assert_eq!(answer["status"], "awaiting_approval", "{answer}");
    let message_id = answer["message"]["id"].as_str().unwrap().to_owned();
    let call_id = answer["toolCalls"][0]["id"].as_str().unwrap().to_owned();

    let response = api
        .client
        .get(format!("{}/api/events", api.base))
        .bearer_auth(&api.admin)
        .send()
        .await
        .unwrap();
    let mut events = SseReader::new(response);
    let (status, _) = api
        .send(
            Method::POST,
            &format!("/api/messages/{message_id}/tool-confirm"),
            admin,
            Some(json!({"toolCallId": call_id, "approved": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (completed, _) = events.until("message.completed").await;
    assert_eq!(completed.data["content"], "Done.");
    let requests = llm.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        let names: Vec<&str> = request.body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["function"]["name"].as_str().unwrap())
            .collect();
        assert!(!names.is_empty());
        assert!(
            names.iter().all(|n| n.starts_with("mcp__beta__")),
            "{names:?}"
        );
    }
}

/// A server's question during a chat call (MCP elicitation): server-everything's
/// `trigger-elicitation-request` asks for a form; the question is kept with the call (a reload
/// shows it) and announced; an answer that does not fit the form is refused, a fitting one goes
/// to the server, whose result (with the answer) reaches the model.
#[tokio::test]
async fn a_servers_question_is_answered_in_the_chat() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call("mcp__everything__trigger-elicitation-request", json!({})),
        Turn::text("Thanks, noted."),
    ])
    .await;
    let conversation = set_up(&api, &llm).await;
    let (status, _) = api
        .send(
            Method::PUT,
            "/api/mcp-servers/everything/tools/trigger-elicitation-request",
            Some(&api.admin),
            Some(json!({"enabled": true, "autoApprove": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let response = api
        .client
        .post(format!(
            "{}/api/conversations/{conversation}/messages",
            api.base
        ))
        .bearer_auth(&api.admin)
        .header("accept", "text/event-stream")
        .json(&json!({"content": "Ask me for my details"}))
        .send()
        .await
        .unwrap();
    let mut events = SseReader::new(response);
    let asked = loop {
        let (event, _) = events.until("assistant.toolCall.updated").await;
        if !event.data["toolCall"]["question"].is_null() {
            break event;
        }
    };
    let call = &asked.data["toolCall"];
    assert_eq!(call["status"], "invoking", "{call}");
    let question = &call["question"];
    assert_eq!(question["mode"], "form", "{question}");
    assert!(
        question["requestedSchema"]["properties"]["name"].is_object(),
        "{question}"
    );
    assert!(question["answer"].is_null());
    let message_id = asked.data["messageId"].as_str().unwrap().to_owned();
    let call_id = call["id"].as_str().unwrap().to_owned();
    let question_id = question["id"].as_str().unwrap().to_owned();

    // A reload shows the question.
    let (_, history) = api
        .send(
            Method::GET,
            &format!("/api/chat/conversations/{conversation}"),
            Some(&api.admin),
            None,
        )
        .await;
    assert_eq!(
        history["messages"][1]["toolCalls"][0]["question"]["id"],
        question_id.as_str()
    );

    let path = format!("/api/messages/{message_id}/tool-calls/{call_id}/answer");
    // The form wants a name; an answer without one is refused, and changes nothing.
    let (status, body) = api
        .send(
            Method::POST,
            &path,
            Some(&api.admin),
            Some(
                json!({"questionId": question_id, "action": "accept", "content": {"check": true}}),
            ),
        )
        .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    // Another person cannot answer it.
    let (status, _) = api
        .send(
            Method::POST,
            &path,
            Some(&api.member),
            Some(json!({"questionId": question_id, "action": "decline"})),
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, answered) = api
        .send(
            Method::POST,
            &path,
            Some(&api.admin),
            Some(json!({
                "questionId": question_id,
                "action": "accept",
                "content": {"name": "Ada Lovelace", "check": true},
            })),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{answered}");
    assert_eq!(answered["question"]["answer"]["action"], "accept");
    // Answered once only.
    let (status, body) = api
        .send(
            Method::POST,
            &path,
            Some(&api.admin),
            Some(json!({"questionId": question_id, "action": "decline"})),
        )
        .await;
    assert_error(status, &body, StatusCode::CONFLICT, "CONFLICT");

    let (completed, _) = events.until("message.completed").await;
    assert_eq!(completed.data["content"], "Thanks, noted.");
    let requests = llm.requests();
    let second = requests[1].body.to_string();
    assert!(second.contains("Ada Lovelace"), "{second}");
}

/// A tool the server runs only as a task (`execution.taskSupport: "required"`) is called in a
/// chat like any other: run as a task, followed to its end, its report the call's response.
#[tokio::test]
async fn a_task_only_tool_answers_in_a_chat() {
    let api = start().await;
    let llm = ScriptedLlm::start(vec![
        Turn::tool_call(
            "mcp__everything__simulate-research-query",
            json!({"topic": "tides"}),
        ),
        Turn::text("Here is the report."),
    ])
    .await;
    let conversation = set_up(&api, &llm).await;
    let response = api
        .client
        .post(format!(
            "{}/api/conversations/{conversation}/messages",
            api.base
        ))
        .bearer_auth(&api.admin)
        .header("accept", "text/event-stream")
        .json(&json!({"content": "Research tides"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let mut events = SseReader::new(response);
    let (pending, _) = events.until("assistant.toolCall.updated").await;
    let message_id = pending.data["messageId"].as_str().unwrap().to_owned();
    let call_id = pending.data["toolCall"]["id"].as_str().unwrap().to_owned();
    let (status, decided) = api
        .send(
            Method::POST,
            &format!("/api/messages/{message_id}/tool-confirm"),
            Some(&api.admin),
            Some(json!({"toolCallId": call_id, "approved": true})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{decided}");
    // The call runs as the server's task: the turn parks, and the stream goes on through it
    // to the turn's end.
    let (parked, _) = events.until("run.parked").await;
    assert_eq!(
        parked.data["messageId"],
        message_id.as_str(),
        "{:?}",
        parked.data
    );
    let (completed, rest) = events.until("message.completed").await;
    let done = rest
        .iter()
        .filter(|e| e.event == "assistant.toolCall.updated")
        .map(|e| &e.data["toolCall"])
        .find(|call| call["status"] == "done")
        .unwrap_or_else(|| panic!("the call ends done: {rest:#?}"));
    assert!(
        done["response"]
            .to_string()
            .contains("Research Report: tides"),
        "{done}"
    );
    assert_eq!(done["task"]["status"], "completed", "{done}");
    assert_eq!(completed.data["content"], "Here is the report.");
    api.manager.shutdown().await;
}
