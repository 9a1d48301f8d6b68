//! The checks a call passes before it is sent, in their order, and what the service sends:
//! a tool not enabled or not offered by the node is not found, a node's mappings fill the
//! arguments (a missing variable fails naming it), the arguments are checked against the
//! tool's full schema, and what the model sees hides the mapped parameters.

use std::sync::Arc;

use serde_json::{Value, json};
use switchboard_core::{Builtins, ErrorCode, OwnerId, Variables};
use switchboard_mcp::RetryPolicy;
use switchboard_store::{AuditOutcome, CallerKind};

use super::fakes::{MemoryAudit, ScriptedBackend, args, node, selected, spec, tool};
use super::{AuditConfig, ToolCallError, ToolCallRequest, ToolCalls};

fn repo_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "owner": {"type": "string"},
            "repo": {"type": "string"},
            "path": {"type": "string"},
            "limit": {"type": "integer"}
        },
        "required": ["owner", "repo"]
    })
}

struct Setup {
    calls: ToolCalls,
    backend: Arc<ScriptedBackend>,
    audit: Arc<MemoryAudit>,
    spec: Arc<switchboard_core::ServerSpec>,
}

fn setup() -> Setup {
    let spec = spec();
    let tools = vec![
        tool(&spec, "contents", repo_schema(), false),
        tool(&spec, "other", json!({"type": "object"}), false),
    ];
    let backend = Arc::new(ScriptedBackend::new(tools, []));
    let audit = Arc::new(MemoryAudit::default());
    let calls = ToolCalls::with_audit(
        backend.clone(),
        audit.clone(),
        RetryPolicy::never(),
        &AuditConfig::default(),
    );
    Setup {
        calls,
        backend,
        audit,
        spec: Arc::new(spec),
    }
}

fn variables(values: Value) -> Variables {
    Variables::new(Builtins {
        user_id: "u-1".into(),
        user_name: "octocat".into(),
        conversation_id: None,
        now: "2026-01-01T00:00:00Z".into(),
    })
    .with_layer(args(values))
}

fn request(s: &Setup, tool: &str, arguments: Value) -> ToolCallRequest {
    ToolCallRequest::new(
        OwnerId::local(),
        CallerKind::Node,
        Arc::clone(&s.spec),
        tool,
        args(arguments),
    )
}

#[tokio::test]
async fn mappings_fill_literals_templates_and_dotted_paths_over_the_arguments() {
    let s = setup();
    let mut req = request(&s, "contents", json!({"owner": "model-chose", "limit": 5}));
    let mappings = json!({
        "owner": "{{user.name}}",
        "repo": "{{project.repo}}",
        "path": "docs/{{project.repo}}/README.md",
    });
    req.node = Some(Arc::new(node(
        &s.spec,
        vec![selected("contents", mappings)],
    )));
    req.variables = Some(variables(json!({"project": {"repo": "hello"}})));
    let outcome = s.calls.call(req).await.unwrap();
    let sent = json!({
        "owner": "octocat",
        "repo": "hello",
        "path": "docs/hello/README.md",
        "limit": 5,
    });
    assert_eq!(Value::Object(outcome.arguments.clone()), sent);
    let received = s.backend.received();
    assert_eq!(received.len(), 1);
    assert_eq!(received[0].arguments.clone().map(Value::Object), Some(sent));
}

#[tokio::test]
async fn a_missing_variable_fails_the_call_naming_it_and_nothing_is_sent() {
    let s = setup();
    let mut req = request(&s, "contents", json!({"owner": "o"}));
    let mappings = json!({"repo": "{{repo}}"});
    req.node = Some(Arc::new(node(
        &s.spec,
        vec![selected("contents", mappings)],
    )));
    req.variables = Some(variables(json!({})));
    let error = s.calls.call(req).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::McpInvalidParams);
    let text = error.to_string();
    assert!(
        text.contains("{{repo}}") && text.contains("\"repo\""),
        "{text}"
    );
    assert!(s.backend.received().is_empty());
    let records = s.calls.audit(&OwnerId::local(), 10).await.unwrap();
    assert_eq!(
        (
            records[0].outcome,
            records[0].attempts,
            records[0].node_id.as_deref()
        ),
        (
            AuditOutcome::Error(ErrorCode::McpInvalidParams),
            0,
            Some("node-1")
        )
    );
}

#[tokio::test]
async fn a_declared_default_fills_a_variable_the_run_does_not_supply() {
    let s = setup();
    let mut req = request(&s, "contents", json!({"owner": "o"}));
    let mut stored = node(
        &s.spec,
        vec![selected("contents", json!({"repo": "{{repo}}"}))],
    );
    stored.node.variables = vec![
        serde_json::from_value(json!({"name": "repo", "type": "string", "default": "dflt"}))
            .unwrap(),
    ];
    req.node = Some(Arc::new(stored));
    // No variables at all: the node's defaults and the owner's id still resolve.
    let outcome = s.calls.call(req).await.unwrap();
    assert_eq!(outcome.arguments["repo"], "dflt");
}

#[tokio::test]
async fn tools_outside_the_node_or_switched_off_are_not_found() {
    let s = setup();
    let mut off = selected("other", json!({}));
    off.enabled = false;
    let stored = Arc::new(node(&s.spec, vec![selected("contents", json!({})), off]));
    for tool in ["other", "absent"] {
        let mut req = request(&s, tool, json!({}));
        req.node = Some(Arc::clone(&stored));
        let error = s.calls.call(req).await.unwrap_err();
        assert_eq!(error.code(), ErrorCode::McpToolNotFound, "{tool}: {error}");
    }
    // Switched off on the server: not found, with or without a node.
    let mut spec = (*s.spec).clone();
    spec.disabled_tools.insert("contents".into());
    let req = ToolCallRequest::new(
        OwnerId::local(),
        CallerKind::Api,
        Arc::new(spec),
        "contents",
        args(json!({"owner": "o", "repo": "r"})),
    );
    let error = s.calls.call(req).await.unwrap_err();
    assert!(
        matches!(error, ToolCallError::ToolNotFound { .. }),
        "{error}"
    );
    assert!(s.backend.received().is_empty());
}

#[tokio::test]
async fn a_node_of_another_server_is_refused() {
    let s = setup();
    let mut stored = node(&s.spec, vec![selected("contents", json!({}))]);
    stored.node.server_id = switchboard_core::ServerId("elsewhere".into());
    let mut req = request(&s, "contents", json!({"owner": "o", "repo": "r"}));
    req.node = Some(Arc::new(stored));
    let error = s.calls.call(req).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::ValidationError);
    assert!(s.backend.received().is_empty());
}

#[tokio::test]
async fn resolved_arguments_are_checked_against_the_full_schema() {
    let s = setup();
    let mut req = request(&s, "contents", json!({"owner": "o"}));
    // A literal of the wrong type: the model cannot fix it, but it is still refused.
    req.node = Some(Arc::new(node(
        &s.spec,
        vec![selected("contents", json!({"repo": 7}))],
    )));
    let error = s.calls.call(req).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::McpInvalidParams, "{error}");
    // Without a node, a required parameter left out.
    let error = s
        .calls
        .call(request(&s, "contents", json!({"owner": "o"})))
        .await
        .unwrap_err();
    assert_eq!(error.code(), ErrorCode::McpInvalidParams, "{error}");
    assert!(s.backend.received().is_empty());
    assert_eq!(s.calls.audit(&OwnerId::local(), 10).await.unwrap().len(), 2);
    assert_eq!(s.audit.records.lock().unwrap().len(), 2);
}

#[test]
fn what_is_offered_hides_mapped_parameters_and_unselected_tools() {
    let spec = spec();
    let contents = tool(&spec, "contents", repo_schema(), false);
    let other = tool(&spec, "other", json!({"type": "object"}), false);
    assert_eq!(ToolCalls::offered(&contents, None), Some(contents.clone()));
    let stored = node(
        &spec,
        vec![selected("contents", json!({"owner": "{{user.name}}"}))],
    );
    let offered = ToolCalls::offered(&contents, Some(&stored.node)).unwrap();
    assert_eq!(
        Value::Object(offered.input_schema),
        json!({
            "type": "object",
            "properties": {
                "repo": {"type": "string"},
                "path": {"type": "string"},
                "limit": {"type": "integer"}
            },
            "required": ["repo"]
        })
    );
    assert_eq!(ToolCalls::offered(&other, Some(&stored.node)), None);
}

#[tokio::test]
async fn a_mapped_value_that_breaks_the_schema_is_named_but_never_quoted() {
    let spec = spec();
    let schema = json!({
        "type": "object",
        "properties": {
            "authorization": {"type": "string", "pattern": "^Token [a-z]+$"},
            "limit": {"type": "integer"}
        },
        "required": ["authorization"],
        "not": {"required": ["forbidden"]}
    });
    let backend = Arc::new(ScriptedBackend::new(
        vec![tool(&spec, "api", schema, false)],
        [],
    ));
    let calls = ToolCalls::with_audit(
        backend.clone(),
        Arc::new(MemoryAudit::default()),
        RetryPolicy::never(),
        &AuditConfig::default(),
    );
    let spec = Arc::new(spec);
    let mappings = json!({"authorization": "Bearer {{token}}", "forbidden": "{{token}}"});
    let mut req = ToolCallRequest::new(
        OwnerId::local(),
        CallerKind::Agent,
        Arc::clone(&spec),
        "api",
        args(json!({"limit": "many"})),
    );
    req.node = Some(Arc::new(node(&spec, vec![selected("api", mappings)])));
    req.variables = Some(variables(json!({"token": "sk-secret-value"})));
    let error = calls.call(req).await.unwrap_err();
    assert_eq!(error.code(), ErrorCode::McpInvalidParams, "{error}");
    let text = error.to_string();
    assert!(!text.contains("sk-secret"), "{text}");
    assert!(
        text.contains("the mapped parameter `authorization` does not fit its schema (pattern)"),
        "{text}"
    );
    // A parameter the model chose keeps the validator's own words.
    assert!(text.contains("\"many\""), "{text}");
    assert!(backend.received().is_empty());
}
