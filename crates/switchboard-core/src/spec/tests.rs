//! Transport inference, constructors, ids and the JSON form of a spec.

use super::*;

#[test]
fn infer_streamable_http_for_mcp_paths() {
    for url in [
        "https://example.com/mcp",
        "https://example.com/mcp/",
        "http://localhost:8080/v1/mcp?key=1",
        "https://example.com/mcp#frag",
    ] {
        assert_eq!(
            TransportKind::infer_from_url(url),
            TransportKind::StreamableHttp,
            "{url}"
        );
    }
}

#[test]
fn infer_sse_for_other_paths() {
    for url in [
        "https://example.com/sse",
        "https://example.com/",
        "https://example.com",
        "https://example.com/mcpx",
        "https://example.com/notmcp",
        "https://example.com/mcp/sse",
        "https://example.com/MCP",
        "https://example.com/sse?path=/mcp",
    ] {
        assert_eq!(
            TransportKind::infer_from_url(url),
            TransportKind::Sse,
            "{url}"
        );
    }
}

#[test]
fn infer_looks_at_raw_text_when_unparseable() {
    assert_eq!(
        TransportKind::infer_from_url("example.com/mcp?x"),
        TransportKind::StreamableHttp
    );
    assert_eq!(TransportKind::infer_from_url(""), TransportKind::Sse);
}

#[test]
fn http_constructor_infers_or_keeps_transport() {
    let inferred = ServerSpec::http("Remote", "https://h.example/mcp", None);
    assert_eq!(inferred.transport, TransportKind::StreamableHttp);
    assert_eq!(inferred.url.as_deref(), Some("https://h.example/mcp"));
    let sse = ServerSpec::http("Remote", "https://h.example/events", None);
    assert_eq!(sse.transport, TransportKind::Sse);
    let forced = ServerSpec::http("Remote", "https://h.example/mcp", Some(TransportKind::Sse));
    assert_eq!(forced.transport, TransportKind::Sse);
    assert!(forced.enabled);
}

#[test]
fn stdio_constructor_fills_command_and_args() {
    let spec = ServerSpec::stdio("Files", "npx", ["-y", "@mcp/server-filesystem"]);
    assert_eq!(spec.id, ServerId::from("files"));
    assert_eq!(spec.transport, TransportKind::Stdio);
    assert_eq!(spec.command.as_deref(), Some("npx"));
    assert_eq!(spec.args, vec!["-y", "@mcp/server-filesystem"]);
    assert!(spec.url.is_none());
}

#[test]
fn id_is_a_slug_of_the_name() {
    assert_eq!(ServerId::from_name("My Files (local)").0, "my-files-local");
    assert_eq!(ServerId::from_name("  GitHub__MCP  ").0, "github-mcp");
    assert_eq!(ServerId::from_name("café").0, "caf");
    let long = ServerId::from_name(&"a".repeat(200));
    assert_eq!(long.0.len(), 64);
}

#[test]
fn id_of_a_name_without_ascii_is_hashed() {
    let a = ServerId::from_name("日本語");
    let b = ServerId::from_name("中文");
    assert!(a.0.starts_with("server-") && a.0.len() == "server-".len() + 6);
    assert_ne!(a, b);
    assert_eq!(a, ServerId::from_name("日本語"));
    assert!(ServerId::from_name("").0.starts_with("server-"));
}

#[test]
fn transport_serde_names_and_seed_aliases() {
    let json = serde_json::to_string(&TransportKind::StreamableHttp).ok();
    assert_eq!(json.as_deref(), Some("\"streamable_http\""));
    for alias in ["\"streamable_http\"", "\"streamableHttp\"", "\"http\""] {
        let kind: TransportKind = serde_json::from_str(alias).unwrap();
        assert_eq!(kind, TransportKind::StreamableHttp);
    }
    for kind in [
        TransportKind::Stdio,
        TransportKind::StreamableHttp,
        TransportKind::Sse,
    ] {
        let json = serde_json::to_string(&kind).unwrap();
        assert_eq!(json, format!("\"{kind}\""));
    }
}

#[test]
fn spec_round_trips_through_json() {
    let spec = ServerSpec::http("Remote", "https://h.example/mcp", None)
        .with_auth(Auth::Bearer {
            token: "t0k".into(),
        })
        .with_header("X-Team", "blue")
        .with_timeout(Duration::from_millis(2500));
    let json = serde_json::to_value(&spec).unwrap();
    assert_eq!(json["timeout"], serde_json::json!(2.5));
    assert_eq!(json["auth"]["type"], "bearer");
    let back: ServerSpec = serde_json::from_value(json).unwrap();
    assert_eq!(back, spec);
}

#[test]
fn minimal_json_gets_defaults() {
    let spec: ServerSpec =
        serde_json::from_str(r#"{"id":"x","name":"X","transport":"stdio","command":"server"}"#)
            .unwrap();
    assert!(spec.enabled);
    assert_eq!(spec.auth, Auth::None);
    assert!(spec.timeout.is_none());
    assert!(spec.validate().is_ok());
}

#[test]
fn a_tool_is_offered_on_an_enabled_server_unless_switched_off() {
    let mut spec = ServerSpec::stdio("s", "server", Vec::<String>::new());
    spec.disabled_tools.insert("off".into());
    spec.auto_approved_tools.insert("read".into());
    assert!(spec.offers("read"));
    assert!(!spec.offers("off"));
    assert!(spec.auto_approves("read"));
    assert!(!spec.auto_approves("write"));
    spec.enabled = false;
    assert!(!spec.offers("read"));
}
