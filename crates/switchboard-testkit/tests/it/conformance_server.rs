//! `conformance-server` over stdio, as the gateway starts it, driven by rmcp clients of both
//! protocol generations: a client-facing tool asks the client directly on a 2025-11-25 session
//! and through input-required results on 2026-07-28, with a sealed `requestState` that a
//! tampered copy cannot pass. (`scripts/conformance.sh server --direct` runs the whole suite
//! against it; this is the quick check that needs no Node.)

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, ElicitRequestParams,
    ElicitResult, ElicitationAction, Implementation, InitializeRequestParams, ProtocolVersion,
};
use rmcp::service::{
    ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService, ServiceError,
};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, ErrorData, RoleClient};
use serde_json::json;

const BIN: &str = env!("CARGO_BIN_EXE_conformance-server");

/// Declares elicitation and answers every form with the same user.
#[derive(Clone)]
struct User {
    version: ProtocolVersion,
}

impl ClientHandler for User {
    fn get_info(&self) -> ClientConfig {
        let capabilities: ClientCapabilities =
            serde_json::from_value(json!({"elicitation": {}, "sampling": {}, "roots": {}}))
                .unwrap();
        InitializeRequestParams::new(
            capabilities,
            Implementation::new("conformance-server-test", "0"),
        )
        .with_protocol_version(self.version.clone())
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        Ok(ElicitResult::new(ElicitationAction::Accept)
            .with_content(json!({"username": "ada", "email": "ada@example.com"})))
    }
}

async fn start(
    version: ProtocolVersion,
    lifecycle: ClientLifecycleMode,
) -> RunningService<RoleClient, User> {
    let transport = TokioChildProcess::new(tokio::process::Command::new(BIN)).unwrap();
    User { version }
        .serve_with_lifecycle(transport, lifecycle)
        .await
        .unwrap()
}

fn text(response: CallToolResponse) -> String {
    match response {
        CallToolResponse::Complete(result) => {
            assert_ne!(result.is_error, Some(true), "{result:?}");
            result
                .content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.clone()))
                .collect()
        }
        other => panic!("expected a complete result, got {other:?}"),
    }
}

#[tokio::test]
async fn a_legacy_session_is_asked_directly() {
    let client = start(
        ProtocolVersion::V_2025_11_25,
        ClientLifecycleMode::Initialize,
    )
    .await;
    let mut call = CallToolRequestParams::new("test_elicitation");
    call.arguments = Some(
        json!({"message": "Who are you?"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let answer = text(client.call_tool_once(call).await.unwrap());
    assert!(
        answer.contains("action=accept") && answer.contains("ada"),
        "{answer}"
    );
    client.cancel().await.unwrap();
}

#[tokio::test]
async fn a_2026_request_gets_input_required_and_a_sealed_state() {
    let client = start(
        ProtocolVersion::V_2026_07_28,
        ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
    )
    .await;
    let name = "test_input_required_result_request_state";
    let first = client
        .call_tool_once(CallToolRequestParams::new(name))
        .await
        .unwrap();
    let CallToolResponse::InputRequired(asked) = first else {
        panic!("expected an input-required result, got {first:?}");
    };
    let asked = serde_json::to_value(&asked).unwrap();
    assert_eq!(asked["resultType"], "input_required");
    assert_eq!(
        asked["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let state = asked["requestState"].as_str().unwrap().to_owned();

    let retry = |state: String| {
        let mut call = CallToolRequestParams::new(name);
        call.input_responses = Some(
            [(
                "confirm".to_owned(),
                json!({"action": "accept", "content": {"ok": true}}),
            )]
            .into(),
        );
        call.request_state = Some(state);
        call
    };
    let answer = text(client.call_tool_once(retry(state.clone())).await.unwrap());
    assert!(answer.contains("state-ok"), "{answer}");

    match client
        .call_tool_once(retry(format!("{state}-TAMPERED")))
        .await
    {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code.0, -32602, "{error:?}"),
        other => panic!("a tampered requestState was not refused: {other:?}"),
    }
    client.cancel().await.unwrap();
}
