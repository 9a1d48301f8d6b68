//! A remote server killed while a person answers its question: the call is given up once the
//! idle timeout has passed since the answer, not at the ceiling (a stream that cannot be taken
//! up again is retried by rmcp for as long as the call lasts).

// Sampling is deprecated by SEP-2577 but still part of the requester's interface.
#![allow(deprecated)]

use crate::common;

use std::sync::Arc;
use std::time::Duration;

use common::{config, http_spec, init_tracing};
use futures::future::BoxFuture;
use rmcp::ErrorData;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction,
};
use switchboard_core::{OwnerId, TransportKind};
use switchboard_mcp::{CallOptions, ConnectionManager, ManagerConfig, McpError, ServerRequests};
use switchboard_testkit::{EverythingHttp, Peers};
use tokio::sync::Notify;

/// A person who answers once the test says so.
#[derive(Debug, Default)]
struct Person {
    asked: Notify,
    answer_now: Notify,
}

impl ServerRequests for Person {
    fn waits_for_a_person(&self) -> bool {
        true
    }

    fn elicit(&self, _: ElicitRequestParams) -> BoxFuture<'_, Result<ElicitResult, ErrorData>> {
        Box::pin(async move {
            self.asked.notify_one();
            self.answer_now.notified().await;
            Ok(ElicitResult::new(ElicitationAction::Accept)
                .with_content(serde_json::json!({ "name": "Ada", "check": true })))
        })
    }

    fn sample(
        &self,
        _: CreateMessageRequestParams,
    ) -> BoxFuture<'_, Result<CreateMessageResult, ErrorData>> {
        Box::pin(async { Err(ErrorData::invalid_request("no sampling here", None)) })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_while_its_question_is_answered_times_out_after_the_answer() {
    init_tracing();
    let mut peer = Peers::locate()
        .everything_http(EverythingHttp::StreamableHttp)
        .await
        .expect("start server-everything");
    let spec = http_spec("everything", &peer.url(), TransportKind::StreamableHttp);
    let idle = Duration::from_secs(1);
    let m = ConnectionManager::new(ManagerConfig {
        call_timeout: idle,
        call_timeout_ceiling: Duration::from_secs(120),
        ..config()
    });
    let owner = OwnerId("ada".into());
    let person = Arc::new(Person::default());
    let options = CallOptions {
        requests: Some(Arc::clone(&person) as _),
        ..CallOptions::default()
    };
    let call = m.call_tool(&owner, &spec, "trigger-elicitation-request", None, options);
    let kill = async {
        person.asked.notified().await;
        peer.kill().await.unwrap();
        person.answer_now.notify_one();
    };
    let (result, ()) = tokio::join!(call, kill);
    match result {
        Err(McpError::Timeout { timeout, .. }) => assert_eq!(timeout, idle),
        other => panic!("expected the idle timeout, got {other:?}"),
    }
}
