//! Every worded error says in `en-US` exactly what its `Display` says (the English answers
//! do not change), and in `zh-Hans` something else, with Chinese in it.

use std::time::Duration;

use switchboard_core::{
    ErrorCode, LaunchRefusal, Locale, ReachFailure, Refusal, SpecError, TransportKind,
};
use switchboard_mcp::McpError;
use switchboard_store::{Entity, Invalid, StoreError};

use super::*;
use crate::i18n::{ErrorText, LocaleTexts};

fn texts(error: &ApiError) -> (String, String) {
    let texts = LocaleTexts::embedded().unwrap();
    assert!(error.key.is_some(), "{error:?} has no key");
    let text = ErrorText {
        code: error.code,
        message: error.message.clone(),
        key: error.key,
        params: error.params.clone(),
        timestamp: String::new(),
        says_what_to_do: error.says_what_to_do,
        tasks: None,
    };
    (
        text.body(&texts, Locale::EnUs).message,
        text.body(&texts, Locale::ZhHans).message,
    )
}

fn same_english(error: ApiError) {
    let (english, chinese) = texts(&error);
    assert_eq!(english, error.message);
    assert_ne!(chinese, error.message);
    assert!(
        chinese
            .chars()
            .any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
        "{chinese}"
    );
}

fn spec_errors() -> Vec<SpecError> {
    let field = || "url".to_owned();
    vec![
        SpecError::Empty { field: field() },
        SpecError::Missing {
            field: field(),
            transport: TransportKind::Sse,
        },
        SpecError::InvalidUrl {
            field: field(),
            reason: url::Url::parse("nope").unwrap_err(),
        },
        SpecError::UnsupportedScheme {
            field: field(),
            scheme: "ftp".into(),
        },
        SpecError::InvalidHeaderName {
            field: "headers".into(),
            name: "a b".into(),
        },
        SpecError::TooLong {
            field: "name".into(),
            max: 200,
        },
        SpecError::ReservedHeader {
            field: "headers".into(),
            name: "Content-Length".into(),
        },
        SpecError::InvalidHeaderValue { field: field() },
        SpecError::InvalidEnvName {
            field: "env".into(),
            name: "A=B".into(),
        },
        SpecError::NulByte { field: field() },
        SpecError::InvalidId {
            field: "id".into(),
            id: "a/b".into(),
        },
        SpecError::ZeroTimeout { field: field() },
        SpecError::TimeoutOutOfRange { field: field() },
        SpecError::UnknownSecretEnv {
            field: "secret_env".into(),
            name: "T".into(),
        },
        SpecError::TooLarge {
            field: "maxRetries".into(),
            max: 10,
        },
        SpecError::Duplicate {
            field: "selectedTools[1].name".into(),
            name: "t".into(),
        },
        SpecError::InvalidVariableName {
            field: "variables[0].name".into(),
            name: "a b".into(),
        },
        SpecError::ReservedVariable {
            field: "variables[0].name".into(),
            name: "now".into(),
        },
        SpecError::DefaultType {
            field: "variables[0].default".into(),
            expected: "integer".into(),
        },
    ]
}

#[test]
fn spec_errors_keep_their_english() {
    for e in spec_errors() {
        same_english(store(&StoreError::InvalidSpec(e.clone())));
        same_english(mcp(&McpError::InvalidSpec(e.clone())));
        same_english(import_entry(&EntryError::Invalid(e)));
    }
}

#[test]
fn store_rules_keep_their_english() {
    let rules = [
        Invalid::Empty { field: "name" },
        Invalid::OutOfRange {
            field: "maxRounds",
            min: 1,
            max: 1000,
        },
        Invalid::TooLong { field: "timeout" },
        Invalid::LongerThan {
            field: "title",
            max: 500,
        },
        Invalid::BaseUrl(SpecError::UnsupportedScheme {
            field: "url".into(),
            scheme: "file".into(),
        }),
        Invalid::AuthKind,
        Invalid::CwdNotUtf8,
        Invalid::MaskOnCreate {
            entity: Entity::Server,
        },
        Invalid::MaskOnCreate {
            entity: Entity::Provider,
        },
        Invalid::MaskForNewDestination {
            entity: Entity::Server,
            field: "URL",
        },
        Invalid::MaskForNewDestination {
            entity: Entity::Provider,
            field: "baseUrl",
        },
        Invalid::IdChanged {
            entity: Entity::ToolCall,
        },
        Invalid::ImportMarker,
        Invalid::Nul { at: String::new() },
        Invalid::Nul {
            at: "the server.env.A".into(),
        },
    ];
    for rule in rules {
        same_english(store(&StoreError::Invalid(rule)));
    }
}

#[test]
fn launch_refusals_keep_their_english() {
    let refusals = [
        LaunchRefusal::WorkingDirectory,
        LaunchRefusal::ForbiddenEnv("NODE_OPTIONS".into()),
        LaunchRefusal::InvalidEnvName("A=B".into()),
        LaunchRefusal::Program("bash".into()),
        LaunchRefusal::Arguments {
            program: "npx".into(),
            allowed: "npx -y a-*".into(),
        },
        LaunchRefusal::Env {
            program: "npx".into(),
            name: "X".into(),
        },
        LaunchRefusal::NoCommand,
    ];
    for refusal in refusals {
        let english = refusal.to_string();
        same_english(
            ApiError::new(ErrorCode::LaunchNotAllowed, english.clone())
                .words(spec::launch(&refusal)),
        );
    }
}

#[test]
fn store_and_agent_errors_keep_their_english() {
    for entity in [
        Entity::User,
        Entity::ApiToken,
        Entity::Server,
        Entity::Provider,
        Entity::Assistant,
        Entity::Conversation,
        Entity::Message,
        Entity::ToolCall,
        Entity::ToolNode,
        Entity::Task,
    ] {
        same_english(store(&StoreError::NotFound {
            entity,
            id: "x".into(),
        }));
        same_english(store(&StoreError::Conflict {
            entity,
            name: "x".into(),
        }));
        same_english(store(&StoreError::QuotaExceeded { entity, limit: 3 }));
    }
    same_english(agent(&AgentError::Busy {
        conversation_id: "c".into(),
    }));
    same_english(agent(&AgentError::NotPending {
        call_id: "c".into(),
        status: "done".into(),
    }));
    same_english(agent(&AgentError::Stopping));
    same_english(agent(&AgentError::NoUserMessage));
    same_english(agent(&AgentError::UnsupportedProvider {
        name: "p".into(),
        kind: "k".into(),
    }));
    same_english(agent(&AgentError::NothingToRetry {
        conversation_id: "c".into(),
    }));
    let message_id = || "m".to_owned();
    same_english(agent(&AgentError::NotAnAnswer {
        message_id: message_id(),
    }));
    same_english(agent(&AgentError::NothingAnswered {
        message_id: message_id(),
    }));
    same_english(agent(&AgentError::NotThePersons {
        message_id: message_id(),
    }));
}

#[test]
fn mcp_errors_keep_their_english() {
    let server = || "s".to_owned();
    let errors = [
        McpError::InvalidHeader {
            field: "headers.X".into(),
            reason: "bad".into(),
        },
        McpError::Disabled { server: server() },
        McpError::Spawn {
            command: "x".into(),
            cause: std::io::Error::other("gone"),
        },
        McpError::Spawn {
            command: "npx".into(),
            cause: std::io::ErrorKind::NotFound.into(),
        },
        McpError::Spawn {
            command: "uvx".into(),
            cause: std::io::ErrorKind::NotFound.into(),
        },
        McpError::Spawn {
            command: "my-server".into(),
            cause: std::io::ErrorKind::NotFound.into(),
        },
        McpError::Spawn {
            command: "./bin/server".into(),
            cause: std::io::ErrorKind::NotFound.into(),
        },
        McpError::Spawn {
            command: "/srv/server".into(),
            cause: std::io::ErrorKind::PermissionDenied.into(),
        },
        McpError::Unreachable {
            url: "http://h/mcp".into(),
            reason: ReachFailure::Other,
            detail: "the MCP server answered HTTP 503".into(),
        },
        McpError::Unreachable {
            url: "http://h/mcp".into(),
            reason: ReachFailure::NameNotResolved,
            detail: "dns error".into(),
        },
        McpError::Unreachable {
            url: "http://h/mcp".into(),
            reason: ReachFailure::Refused,
            detail: "refused".into(),
        },
        McpError::Unreachable {
            url: "http://h/mcp".into(),
            reason: ReachFailure::TimedOut,
            detail: "timed out".into(),
        },
        McpError::Unreachable {
            url: "https://h/mcp".into(),
            reason: ReachFailure::Certificate,
            detail: "invalid peer certificate".into(),
        },
        McpError::Unreachable {
            url: "https://h/mcp".into(),
            reason: ReachFailure::Tls,
            detail: "received corrupt message".into(),
        },
        McpError::Denied {
            server: server(),
            status: 401,
        },
        McpError::Denied {
            server: server(),
            status: 403,
        },
        McpError::Denied {
            server: server(),
            status: 407,
        },
        McpError::AuthFailed {
            server: server(),
            detail: "401".into(),
        },
        McpError::Handshake {
            server: server(),
            source: "bad".into(),
        },
        McpError::ConnectTimeout {
            server: server(),
            timeout: Duration::from_secs(30),
            stderr: None,
        },
        McpError::ConnectTimeout {
            server: server(),
            timeout: Duration::from_millis(2500),
            stderr: Some("npm ERR! 404\n".into()),
        },
        McpError::ClosedDuringHandshake {
            server: server(),
            stderr: None,
        },
        McpError::ClosedDuringHandshake {
            server: server(),
            stderr: Some("Error: missing argument".into()),
        },
        McpError::ConnectionLost { server: server() },
        McpError::LostAfterSend {
            server: server(),
            tool: "t".into(),
        },
        McpError::Timeout {
            server: server(),
            method: "tools/call".into(),
            timeout: Duration::from_millis(1500),
        },
        McpError::Cancelled,
        McpError::ShutDown,
        McpError::ToolNotFound {
            server: server(),
            tool: "t".into(),
        },
        McpError::Protocol {
            server: server(),
            detail: "bad".into(),
        },
        McpError::Refused {
            server: server(),
            refusal: Refusal::Destination {
                host: "10.0.0.1".into(),
            },
        },
        McpError::Refused {
            server: server(),
            refusal: Refusal::ListingServers {
                max: 100,
                left_out: 3,
            },
        },
        McpError::Refused {
            server: server(),
            refusal: Refusal::ListingFull {
                tools: 2000,
                bytes: 4096,
                left_out: 3,
            },
        },
        McpError::Refused {
            server: server(),
            refusal: Refusal::ListingTooLarge {
                tools: 2000,
                bytes: 4096,
            },
        },
        McpError::Refused {
            server: server(),
            refusal: Refusal::Launch(LaunchRefusal::Program("bash".into())),
        },
        McpError::Refused {
            server: server(),
            refusal: Refusal::LaunchOnNode(LaunchRefusal::Program("bash".into())),
        },
        McpError::Refused {
            server: server(),
            refusal: Refusal::UnknownOwner {
                detail: "gone".into(),
            },
        },
        McpError::Refused {
            server: server(),
            refusal: Refusal::UnknownNode {
                node: "far".into(),
                known: "build-box".into(),
            },
        },
        McpError::NodeUnreachable {
            node: "build-box".into(),
            detail: "connection refused".into(),
        },
        McpError::UnknownNode {
            node: "build-box".into(),
        },
    ];
    for e in errors {
        same_english(mcp(&e));
    }
    let refused = mcp(&McpError::Refused {
        server: server(),
        refusal: Refusal::Destination {
            host: "10.0.0.1".into(),
        },
    });
    let (_, chinese) = texts(&refused);
    assert!(chinese.contains("成员不能访问 `10.0.0.1`"), "{chinese}");
    // A refused spawn: the launch rule that refused it is worded too, not only the frame.
    let refused = mcp(&McpError::Refused {
        server: server(),
        refusal: Refusal::Launch(LaunchRefusal::Program("bash".into())),
    });
    let (english, chinese) = texts(&refused);
    assert_eq!(english, refused.message);
    let rule = texts(
        &ApiError::new(ErrorCode::LaunchNotAllowed, "")
            .words(spec::launch(&LaunchRefusal::Program("bash".into()))),
    )
    .1;
    assert!(chinese.contains(&rule), "{chinese} lacks {rule}");
}

#[test]
fn a_server_left_out_is_worded_with_why_in_the_same_language() {
    let left_out = |cause: McpError| McpError::Unavailable {
        server: "GitHub".into(),
        cause: std::sync::Arc::new(cause),
        retry_in: Duration::from_millis(1500),
    };
    let refused = mcp(&left_out(McpError::Unreachable {
        url: "http://127.0.0.1:9/mcp".into(),
        reason: ReachFailure::Refused,
        detail: "connection refused".into(),
    }));
    same_english(refused.clone());
    let (english, chinese) = texts(&refused);
    assert!(english.ends_with("in the background in 2s"), "{english}");
    assert!(
        chinese.contains("无法访问 http://127.0.0.1:9/mcp：连接被拒绝") && chinese.contains("2 秒"),
        "the reason in Chinese too: {chinese}"
    );
    // A missing npx is worded with what to install, inside the left-out sentence too.
    let (_, chinese) = texts(&mcp(&left_out(McpError::Spawn {
        command: "npx".into(),
        cause: std::io::ErrorKind::NotFound.into(),
    })));
    assert!(chinese.contains("Node.js"), "{chinese}");
    // A cause without words of its own is quoted as it is.
    same_english(mcp(&left_out(McpError::ClosedDuringHandshake {
        server: "GitHub".into(),
        stderr: None,
    })));
}

#[test]
fn recall_and_import_errors_keep_their_english() {
    same_english(recall(&RecallError::UnsupportedSource("\"tool\"".into())));
    same_english(recall(&RecallError::MissingField("mcp_id")));
    same_english(recall(&RecallError::UnknownParameter {
        tool: "t".into(),
        parameter: "p".into(),
    }));
    same_english(tool_call(&ToolCallError::ToolNotFound {
        server: "s".into(),
        tool: "t".into(),
    }));
    same_english(tool_call(&ToolCallError::NotSelected {
        node: "n".into(),
        tool: "t".into(),
    }));
    same_english(tool_call(&ToolCallError::OtherServer {
        node: "n".into(),
        server: "s".into(),
    }));
    same_english(tool_call(&ToolCallError::MissingVariable(
        ResolveError::MissingVariable {
            tool: "t".into(),
            parameter: "owner".into(),
            variable: "user.email".into(),
        },
    )));
    same_english(tool_call(&ToolCallError::MissingVariable(
        ResolveError::WrongType {
            tool: "t".into(),
            parameter: "limit".into(),
            variable: "limit".into(),
            expected: switchboard_core::VariableType::Integer,
        },
    )));
    same_english(tool_call(&ToolCallError::MissingVariable(
        ResolveError::TooLong {
            tool: "t".into(),
            parameter: "body".into(),
        },
    )));
    for e in [
        EntryError::NotAnObject,
        EntryError::WrongType {
            field: "args".into(),
            expected: "a list of strings",
        },
        EntryError::NoTarget,
        EntryError::BothTargets,
        EntryError::UnsupportedType("ws".into()),
    ] {
        same_english(import_entry(&e));
    }
    let json = serde_json::from_str::<serde_json::Value>("{").unwrap_err();
    same_english(import_file(&ParseError::Json(json)));
    same_english(import_file(&ParseError::NoServers));
}

#[test]
fn a_failed_listing_of_models_and_a_key_for_another_origin_keep_their_english() {
    use std::time::Duration;
    use switchboard_llm::ModelsError;

    for models in [
        ModelsError::NameNotResolved {
            host: "api.example.invalid".into(),
        },
        ModelsError::Refused {
            address: "127.0.0.1:11434".into(),
        },
        ModelsError::Timeout {
            after: Duration::from_millis(1500),
        },
        ModelsError::Auth {
            status: 401,
            message: "Incorrect API key provided.".into(),
        },
        ModelsError::NotFound {
            path: "/v2/models".into(),
        },
        ModelsError::Status {
            status: 503,
            message: "Service Unavailable".into(),
        },
        ModelsError::NotAList {
            path: "/models".into(),
        },
        ModelsError::TooLarge { limit: 1024 },
        ModelsError::Unsupported,
    ] {
        same_english(app::app(switchboard_app::AppError::Models(models)));
    }
    same_english(store(&StoreError::Invalid(Invalid::KeyForNewOrigin {
        from: "https://api.example.com".into(),
        to: "http://127.0.0.1:11434".into(),
    })));
}

/// Each cause of a failed connection has its own words and what to do, in both languages.
#[test]
fn connect_failures_say_what_to_do_for_their_cause() {
    let spawn = |command: &str| {
        texts(&mcp(&McpError::Spawn {
            command: command.into(),
            cause: std::io::ErrorKind::NotFound.into(),
        }))
    };
    let (english, chinese) = spawn("npx");
    assert!(english.contains("install Node.js"), "{english}");
    assert!(
        chinese.contains("Node.js") && chinese.contains("安装"),
        "{chinese}"
    );
    let (english, chinese) = spawn("uvx");
    assert!(english.contains("install uv"), "{english}");
    assert!(chinese.contains("安装 uv"), "{chinese}");
    let (english, _) = spawn("my-server");
    assert!(english.contains("was not found on PATH"), "{english}");
    assert!(!english.contains("os error"), "{english}");

    let unreachable = |reason| {
        texts(&mcp(&McpError::Unreachable {
            url: "https://example.invalid/mcp".into(),
            reason,
            detail: "error sending request".into(),
        }))
    };
    let (english, chinese) = unreachable(ReachFailure::NameNotResolved);
    assert_eq!(
        english,
        "cannot reach https://example.invalid/mcp: the name does not resolve; check the address"
    );
    assert!(chinese.contains("无法解析"), "{chinese}");
    let (english, _) = unreachable(ReachFailure::Refused);
    assert!(english.contains("refused"), "{english}");
    let (english, _) = unreachable(ReachFailure::Tls);
    assert!(english.contains("http://"), "{english}");
    let (english, _) = unreachable(ReachFailure::TimedOut);
    assert!(english.contains("timed out"), "{english}");
    let (english, _) = unreachable(ReachFailure::Other);
    assert!(english.ends_with("error sending request"), "{english}");

    // A message that says what to do comes without the code's general hint; one that only
    // quotes what happened keeps it.
    let hint = |error: McpError| {
        let error = mcp(&error);
        let texts = LocaleTexts::embedded().unwrap();
        ErrorText {
            code: error.code,
            message: error.message.clone(),
            key: error.key,
            params: error.params.clone(),
            timestamp: String::new(),
            says_what_to_do: error.says_what_to_do,
            tasks: None,
        }
        .body(&texts, Locale::EnUs)
        .hint
    };
    let missing_npx = McpError::Spawn {
        command: "npx".into(),
        cause: std::io::ErrorKind::NotFound.into(),
    };
    assert_eq!(hint(missing_npx), None);
    let unknown = McpError::Unreachable {
        url: "http://h/mcp".into(),
        reason: ReachFailure::Other,
        detail: "the MCP server answered HTTP 503".into(),
    };
    assert!(hint(unknown).is_some());

    let denied = |status| {
        texts(&mcp(&McpError::Denied {
            server: "s".into(),
            status,
        }))
        .0
    };
    assert!(denied(401).contains("401 Unauthorized"));
    assert!(denied(403).contains("403 Forbidden"));
}
