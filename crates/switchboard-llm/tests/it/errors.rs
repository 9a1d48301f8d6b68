//! How the production clients classify and retry failures, in both wire formats: refused
//! credentials, rate limits with `retry-after`, a context that is too long, server errors,
//! malformed requests, errors inside the stream, and an unreachable server.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use crate::common;

use std::time::Duration;

use common::{BOTH, OPENAI_KEY, collect, fast_retry, provider, provider_at, request};
use switchboard_llm::{ChatMessage, LlmError, RetryPolicy, StreamEvent, WireFormat, complete};
use switchboard_testkit::{ScriptedLlm, Turn};

/// What the client makes of `script`, and how many requests it sent.
async fn outcome(
    wire: WireFormat,
    retry: RetryPolicy,
    script: Vec<Turn>,
) -> (Result<String, LlmError>, usize) {
    let llm = ScriptedLlm::start(script).await;
    let provider = provider_at(wire, llm.base_url(wire), retry);
    let answer = complete(provider.as_ref(), &request(vec![ChatMessage::user("Hi")]))
        .await
        .map(|c| c.text);
    (answer, llm.requests().len())
}

#[tokio::test]
async fn unauthorized_is_auth_and_not_retried() {
    for wire in BOTH {
        let (answer, sent) = outcome(
            wire,
            fast_retry(),
            vec![Turn::error(401, "invalid x-api-key"), Turn::text("never")],
        )
        .await;
        match answer {
            Err(LlmError::Auth { status, message }) => {
                assert_eq!((status, message.as_str()), (401, "invalid x-api-key"));
            }
            other => panic!("{wire:?}: expected Auth, got {other:?}"),
        }
        assert_eq!(sent, 1, "{wire:?}");
    }
}

#[tokio::test]
async fn forbidden_is_auth_too() {
    for wire in BOTH {
        let (answer, _) = outcome(wire, fast_retry(), vec![Turn::error(403, "no access")]).await;
        assert!(
            matches!(answer, Err(LlmError::Auth { status: 403, .. })),
            "{wire:?}: {answer:?}"
        );
    }
}

#[tokio::test]
async fn rate_limit_is_retried_then_succeeds() {
    for wire in BOTH {
        // retry-after says 1 s; the test policy caps every delay at 5 ms.
        let (answer, sent) = outcome(
            wire,
            fast_retry(),
            vec![
                Turn::error(429, "slow down").retry_after(1),
                Turn::text("finally"),
            ],
        )
        .await;
        assert_eq!(answer.unwrap(), "finally", "{wire:?}");
        assert_eq!(sent, 2, "{wire:?}");
    }
}

#[tokio::test]
async fn rate_limit_reports_retry_after_when_not_retried() {
    for wire in BOTH {
        let (answer, sent) = outcome(
            wire,
            RetryPolicy::none(),
            vec![Turn::error(429, "slow down").retry_after(7)],
        )
        .await;
        match answer {
            Err(LlmError::RateLimited {
                retry_after,
                message,
            }) => {
                assert_eq!(retry_after, Some(Duration::from_secs(7)), "{wire:?}");
                assert_eq!(message, "slow down");
            }
            other => panic!("{wire:?}: expected RateLimited, got {other:?}"),
        }
        assert_eq!(sent, 1);
    }
    let (answer, _) = outcome(
        WireFormat::OpenAi,
        RetryPolicy::none(),
        vec![
            Turn::error(429, "slow down")
                .retry_after(7)
                .retry_after_ms(1500),
        ],
    )
    .await;
    assert!(matches!(
        answer,
        Err(LlmError::RateLimited { retry_after: Some(wait), .. }) if wait == Duration::from_millis(1500)
    ));
}

#[tokio::test]
async fn context_too_long_is_recognised_and_not_retried() {
    let openai = Turn::error(
        400,
        "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.",
    )
    .code("context_length_exceeded");
    let anthropic = Turn::error(400, "prompt is too long: 250000 tokens > 200000 maximum");
    for (wire, turn) in [
        (WireFormat::OpenAi, openai),
        (WireFormat::Anthropic, anthropic),
    ] {
        let (answer, sent) = outcome(wire, fast_retry(), vec![turn, Turn::text("never")]).await;
        match answer {
            Err(LlmError::ContextTooLong { message }) => {
                assert!(message.contains("tokens"), "{message}");
            }
            other => panic!("{wire:?}: expected ContextTooLong, got {other:?}"),
        }
        assert_eq!(sent, 1, "{wire:?}");
    }
}

#[tokio::test]
async fn server_errors_are_retried_then_succeed() {
    for wire in BOTH {
        let (answer, sent) = outcome(
            wire,
            fast_retry(),
            vec![
                Turn::error(500, "internal hiccup"),
                Turn::error(503, "unavailable"),
                Turn::text("recovered"),
            ],
        )
        .await;
        assert_eq!(answer.unwrap(), "recovered", "{wire:?}");
        assert_eq!(sent, 3, "{wire:?}");
    }
}

#[tokio::test]
async fn retries_run_out_with_the_last_error() {
    for wire in BOTH {
        let (answer, sent) = outcome(
            wire,
            fast_retry(),
            vec![
                Turn::error(500, "one"),
                Turn::error(502, "two"),
                Turn::error(500, "three"),
                Turn::text("too late"),
            ],
        )
        .await;
        match answer {
            Err(LlmError::Upstream { status, message }) => {
                assert_eq!((status, message.as_str()), (500, "three"), "{wire:?}");
            }
            other => panic!("{wire:?}: expected Upstream, got {other:?}"),
        }
        assert_eq!(sent, 3, "{wire:?}");
    }
}

#[tokio::test]
async fn anthropic_overloaded_is_upstream() {
    let (answer, _) = outcome(
        WireFormat::Anthropic,
        RetryPolicy::none(),
        vec![Turn::error(529, "Overloaded")],
    )
    .await;
    assert!(
        matches!(answer, Err(LlmError::Upstream { status: 529, ref message }) if message == "Overloaded"),
        "{answer:?}"
    );
}

#[tokio::test]
async fn bad_request_is_not_retried() {
    for wire in BOTH {
        let (answer, sent) = outcome(
            wire,
            fast_retry(),
            vec![
                Turn::error(400, "messages.0.content: unknown field"),
                Turn::text("never"),
            ],
        )
        .await;
        match answer {
            Err(LlmError::BadRequest { status, message }) => {
                assert_eq!(
                    (status, message.as_str()),
                    (400, "messages.0.content: unknown field")
                );
            }
            other => panic!("{wire:?}: expected BadRequest, got {other:?}"),
        }
        assert_eq!(sent, 1, "{wire:?}");
    }
}

#[tokio::test]
async fn an_echoed_key_does_not_reach_the_error() {
    let (answer, _) = outcome(
        WireFormat::OpenAi,
        fast_retry(),
        vec![Turn::error(
            401,
            format!("Incorrect API key provided: {OPENAI_KEY}"),
        )],
    )
    .await;
    let error = answer.unwrap_err();
    let shown = format!("{error:?} / {error}");
    assert!(!shown.contains(OPENAI_KEY), "{shown}");
}

#[tokio::test]
async fn anthropic_error_event_mid_stream_ends_the_stream() {
    let llm = ScriptedLlm::start(vec![
        Turn::stream_error("overloaded_error", "Overloaded"),
        Turn::text("never"),
    ])
    .await;
    let (events, error) = collect(
        provider(&llm, WireFormat::Anthropic).as_ref(),
        &request(vec![ChatMessage::user("Hi")]),
    )
    .await;
    assert!(
        events
            .iter()
            .any(|e| matches!(e, StreamEvent::TextDelta { .. })),
        "the text before the error arrives: {events:?}"
    );
    assert!(
        !events
            .iter()
            .any(|e| matches!(e, StreamEvent::Finish { .. }))
    );
    match error {
        Some(LlmError::Upstream { status, message }) => {
            assert_eq!((status, message.as_str()), (529, "Overloaded"));
        }
        other => panic!("expected Upstream, got {other:?}"),
    }
    // Once events have flowed, nothing is retried.
    assert_eq!(llm.requests().len(), 1);
}

#[tokio::test]
async fn openai_error_chunk_mid_stream_ends_the_stream() {
    let llm = ScriptedLlm::start(vec![Turn::stream_error("server_error", "model crashed")]).await;
    let (events, error) = collect(
        provider(&llm, WireFormat::OpenAi).as_ref(),
        &request(vec![ChatMessage::user("Hi")]),
    )
    .await;
    assert!(!events.is_empty());
    assert!(
        matches!(error, Some(LlmError::Upstream { ref message, .. }) if message == "model crashed"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_connection_cut_mid_answer_is_broken_off_after_the_text_that_came() {
    for wire in BOTH {
        let llm = ScriptedLlm::start(vec![
            Turn::text("The first words arrive, and then the line goes dead for good").cut(),
            Turn::text("never"),
        ])
        .await;
        let (events, error) = collect(
            provider(&llm, wire).as_ref(),
            &request(vec![ChatMessage::user("Hi")]),
        )
        .await;
        let text: String = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::TextDelta { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert!(
            text.starts_with("The first") && !text.contains("for good"),
            "{wire:?}: {text:?}"
        );
        assert!(
            matches!(error, Some(LlmError::BrokenOff(_))),
            "{wire:?}: {error:?}"
        );
        let shown = error.unwrap().to_string();
        assert!(shown.contains("broke off"), "{shown}");
        // Once text has flowed, nothing is retried.
        assert_eq!(llm.requests().len(), 1, "{wire:?}");
    }
}

#[tokio::test]
async fn an_unreachable_server_is_a_network_error() {
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind(("127.0.0.1", 0))
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    for wire in BOTH {
        let base = match wire {
            WireFormat::OpenAi => format!("http://127.0.0.1:{port}/v1"),
            WireFormat::Anthropic => format!("http://127.0.0.1:{port}"),
        };
        let provider = provider_at(wire, base, fast_retry());
        let (_, error) = collect(provider.as_ref(), &request(vec![ChatMessage::user("Hi")])).await;
        assert!(
            matches!(error, Some(LlmError::Network(_))),
            "{wire:?}: {error:?}"
        );
    }
}
