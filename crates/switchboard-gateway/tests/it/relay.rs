//! An upstream server's elicitation and sampling requests during a call, through the gateway
//! to the downstream client: server-everything asks, a real rmcp client answers
//! over Streamable HTTP, in both protocol revisions.

#![allow(clippy::unwrap_used, deprecated)]

use crate::relay_support;

use std::collections::BTreeMap;

use relay_support::{
    Client, Declares, ELICIT, NAME, REPLY, SAMPLE, World, accept_name, sampled, text,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ElicitRequestParams, ErrorCode, InputRequest,
};
use switchboard_agent::{CallerKind, ToolCallRequest};

fn call(name: &str, arguments: serde_json::Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = arguments.as_object().cloned();
    params
}

fn complete(response: CallToolResponse) -> rmcp::model::CallToolResult {
    match response {
        CallToolResponse::Complete(result) => result,
        other => panic!("a complete result expected, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_elicitation_reaches_the_session_client_and_its_answer_the_server() {
    let (_world, url) = World::new().await;
    let client = Client::session(
        &url,
        Declares {
            elicitation: true,
            sampling: false,
        },
    )
    .await;
    let result = complete(
        client
            .call_once(call(ELICIT, serde_json::json!({})))
            .await
            .unwrap(),
    );
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert!(text(&result).contains(NAME), "{}", text(&result));
    let asked = client.seen.elicitations.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].contains("Please provide inputs"), "{asked:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn sampling_reaches_the_session_client_and_its_answer_the_server() {
    let (_world, url) = World::new().await;
    let client = Client::session(
        &url,
        Declares {
            elicitation: false,
            sampling: true,
        },
    )
    .await;
    let arguments = serde_json::json!({"prompt": "Say something", "maxTokens": 20});
    let result = complete(client.call_once(call(SAMPLE, arguments)).await.unwrap());
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert!(text(&result).contains(REPLY), "{}", text(&result));
    let asked = client.seen.samplings.lock().unwrap().clone();
    assert_eq!(asked.len(), 1);
    assert!(asked[0].contains("Say something"), "{asked:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_client_without_the_capabilities_is_not_asked_and_the_server_is_refused() {
    let (_world, url) = World::new().await;
    let client = Client::session(&url, Declares::default()).await;
    // The gateway's upstream connection declared both, so the tools are there; the server's
    // requests are refused for this client: the elicitation declined, sampling an error.
    let declined = complete(
        client
            .call_once(call(ELICIT, serde_json::json!({})))
            .await
            .unwrap(),
    );
    assert!(text(&declined).contains("declined"), "{}", text(&declined));
    let arguments = serde_json::json!({"prompt": "Say something", "maxTokens": 20});
    let refused = complete(client.call_once(call(SAMPLE, arguments)).await.unwrap());
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    assert!(text(&refused).contains("sampling"), "{}", text(&refused));
    assert!(client.seen.elicitations.lock().unwrap().is_empty());
    assert!(client.seen.samplings.lock().unwrap().is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_call_without_a_requester_gets_a_decline() {
    // The agent's own calls (and the REST proxy's) have no one to ask.
    let (world, _url) = World::new().await;
    let request = ToolCallRequest::new(
        world.alice.id.clone(),
        CallerKind::Agent,
        std::sync::Arc::new(world.everything.clone()),
        "trigger-elicitation-request",
        serde_json::Map::new(),
    );
    let outcome = world.tool_calls.call(request).await.unwrap();
    let shown = text(&outcome.result);
    assert!(shown.contains("declined"), "{shown}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stateless_client_gets_input_required_then_the_result_on_its_retry() {
    let (_world, url) = World::new().await;
    let client = Client::stateless(
        &url,
        Declares {
            elicitation: true,
            sampling: true,
        },
    )
    .await;
    let first = client
        .call_once(call(ELICIT, serde_json::json!({})))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("an input-required result expected, got {first:?}")
    };
    let requests = asked.input_requests.clone().unwrap();
    let (key, request) = requests.iter().next().unwrap();
    let InputRequest::Elicitation(request) = request else {
        panic!("an elicitation expected, got {request:?}")
    };
    let ElicitRequestParams::FormElicitationParams { message, .. } = &request.params else {
        panic!("a form elicitation expected")
    };
    assert!(message.contains("Please provide inputs"), "{message}");
    let state = asked.request_state.clone().unwrap();

    // A retry without the answer is asked again.
    let mut again = call(ELICIT, serde_json::json!({}));
    again.request_state = Some(state.clone());
    let CallToolResponse::InputRequired(asked_again) = client.call_once(again).await.unwrap()
    else {
        panic!("the same input request again expected")
    };
    assert_eq!(asked_again.input_requests, asked.input_requests);
    let state = asked_again.request_state.unwrap();

    let mut answered = call(ELICIT, serde_json::json!({}));
    answered.request_state = Some(state);
    answered.input_responses = Some(BTreeMap::from([(
        key.clone(),
        serde_json::to_value(accept_name()).unwrap(),
    )]));
    let result = complete(client.call_once(answered).await.unwrap());
    assert!(text(&result).contains(NAME), "{}", text(&result));

    // Sampling the same way, through rmcp's own driver of the rounds.
    let arguments = serde_json::json!({"prompt": "Say something", "maxTokens": 20});
    let sampled_result = client
        .service
        .call_tool(call(SAMPLE, arguments))
        .await
        .unwrap();
    assert!(
        text(&sampled_result).contains(REPLY),
        "{}",
        text(&sampled_result)
    );
    let _ = sampled();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_tampered_request_state_is_refused_as_invalid_params() {
    let (_world, url) = World::new().await;
    let client = Client::stateless(
        &url,
        Declares {
            elicitation: true,
            sampling: false,
        },
    )
    .await;
    let first = client
        .call_once(call(ELICIT, serde_json::json!({})))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("an input-required result expected")
    };
    let key = asked.input_requests.unwrap().into_keys().next().unwrap();
    let mut tampered = call(ELICIT, serde_json::json!({}));
    tampered.request_state = Some(format!("{}-TAMPERED", asked.request_state.unwrap()));
    tampered.input_responses = Some(BTreeMap::from([(
        key,
        serde_json::to_value(accept_name()).unwrap(),
    )]));
    let error = client.call_once(tampered).await.unwrap_err();
    let rmcp::ServiceError::McpError(error) = error else {
        panic!("a JSON-RPC error expected, got {error:?}")
    };
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stateless_client_without_elicitation_gets_the_server_refused() {
    let (_world, url) = World::new().await;
    let client = Client::stateless(&url, Declares::default()).await;
    let result = complete(
        client
            .call_once(call(ELICIT, serde_json::json!({})))
            .await
            .unwrap(),
    );
    assert!(text(&result).contains("declined"), "{}", text(&result));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_stateless_client_answering_ahead_is_not_asked_and_extra_answers_are_ignored() {
    let (_world, url) = World::new().await;
    let client = Client::stateless(
        &url,
        Declares {
            elicitation: true,
            sampling: true,
        },
    )
    .await;
    // The gateway asks a 2025-11-25 upstream's elicitation under the key `elicitation`; a
    // client that sends that answer (and keys nobody asks for) with its first request gets
    // the result at once (SEP-2322: unrecognized input responses are ignored).
    let mut ahead = call(ELICIT, serde_json::json!({}));
    ahead.input_responses = Some(BTreeMap::from([
        (
            "elicitation".to_owned(),
            serde_json::to_value(accept_name()).unwrap(),
        ),
        (
            "unknown_extra_key".to_owned(),
            serde_json::json!({"action": "accept", "content": {"foo": "bar"}}),
        ),
    ]));
    let result = complete(client.call_once(ahead).await.unwrap());
    assert!(text(&result).contains(NAME), "{}", text(&result));
}
