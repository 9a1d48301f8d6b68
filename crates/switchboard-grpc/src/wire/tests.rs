use super::*;

fn round_trip(error: McpError) -> McpError {
    error_from_pb("box", error_to_pb(&error))
}

#[test]
fn errors_the_host_treats_specially_come_back_as_the_same_variant() {
    let lost = round_trip(McpError::LostAfterSend {
        server: "fs".into(),
        tool: "write".into(),
    });
    assert!(
        matches!(&lost, McpError::LostAfterSend { server, tool } if server == "fs" && tool == "write")
    );
    assert_eq!(lost.retry_safety(), RetrySafety::IfIdempotent);

    let timeout = round_trip(McpError::Timeout {
        server: "fs".into(),
        method: "tools/call".into(),
        timeout: Duration::from_millis(1500),
    });
    assert!(
        matches!(timeout, McpError::Timeout { timeout, .. } if timeout == Duration::from_millis(1500))
    );

    let invalid = round_trip(McpError::Server {
        server: "fs".into(),
        error: ErrorData::invalid_params("no such path", None),
    });
    assert_eq!(invalid.code(), ErrorCode::McpInvalidParams);
    assert!(matches!(
        round_trip(McpError::Cancelled),
        McpError::Cancelled
    ));
    assert!(
        matches!(round_trip(McpError::ShutDown), McpError::NodeUnreachable { node, .. } if node == "box")
    );
    // The error that shows the sign-in button, with the scope of a step-up and the
    // server's challenge (where the host's sign-in discovers its metadata).
    let challenge = Some(r#"Bearer resource_metadata="https://notes.example/meta""#.to_owned());
    for scope in [None, Some("repo:write".to_owned())] {
        let wanted = round_trip(McpError::SignInRequired {
            server: "notes".into(),
            scope: scope.clone(),
            challenge: challenge.clone(),
        });
        assert!(
            matches!(&wanted, McpError::SignInRequired { server, scope: back, challenge: heard } if server == "notes" && *back == scope && *heard == challenge),
            "{wanted:?}"
        );
    }
    // A task the server no longer knows: the caller stops polling it.
    let lost = round_trip(McpError::TaskLost {
        server: "jobs".into(),
    });
    assert!(
        matches!(&lost, McpError::TaskLost { server } if server == "jobs"),
        "{lost:?}"
    );
    assert_eq!(lost.code(), ErrorCode::TaskLost);
}

#[test]
fn any_other_error_keeps_its_code_text_and_retry_safety() {
    let refused = McpError::Refused {
        server: "x".into(),
        refusal: switchboard_core::Refusal::Launch(switchboard_core::LaunchRefusal::Program(
            "bash".into(),
        )),
    };
    let text = refused.to_string();
    let back = round_trip(refused);
    assert_eq!(back.code(), ErrorCode::LaunchNotAllowed);
    assert_eq!(back.to_string(), text);
    assert_eq!(back.retry_safety(), RetrySafety::Never);

    let unreachable = McpError::ConnectFailed {
        server: "x".into(),
        code: ErrorCode::McpUnreachable,
        message: "cannot reach".into(),
    };
    assert_eq!(round_trip(unreachable).retry_safety(), RetrySafety::Always);
}

#[test]
fn equal_specs_have_equal_versions_and_a_change_makes_a_new_one() {
    let owner = OwnerId("u1".into());
    let spec = ServerSpec::stdio("fs", "npx", ["-y", "server-filesystem"]);
    let a = server_ref(&owner, &spec, Admission::default()).unwrap();
    let b = server_ref(&owner, &spec, Admission::default()).unwrap();
    assert_eq!(a.spec_version, b.spec_version);
    let changed = spec.clone().with_env("ROOT", "/tmp");
    let c = server_ref(&owner, &changed, Admission::default()).unwrap();
    assert_ne!(a.spec_version, c.spec_version);
    let parsed: ServerSpec = serde_json::from_slice(&c.spec_json).unwrap();
    assert_eq!(parsed, changed);
}

#[test]
fn a_status_round_trips() {
    let snapshot = ConnectionSnapshot {
        status: ConnectionStatus::Error,
        last_error: Some("gone".into()),
        last_active_at: Some(42),
        server: None,
    };
    let (owner, server, back) = status_from_pb(status_to_pb(
        &OwnerId("u".into()),
        &ServerId("s".into()),
        &snapshot,
    ));
    assert_eq!((owner.0.as_str(), server.0.as_str()), ("u", "s"));
    assert_eq!(back.status, ConnectionStatus::Error);
    assert_eq!(back.last_error.as_deref(), Some("gone"));
    assert_eq!(back.last_active_at, Some(42));
}

#[test]
fn a_spec_version_is_the_first_twelve_digest_bytes_in_lowercase_hex() {
    use sha2::{Digest, Sha256};
    let json = br#"{"name":"one"}"#;
    let expected: String = Sha256::digest(json)[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let version = spec_version(json);
    assert_eq!(version, expected);
    assert_eq!(version.len(), 24);
}
