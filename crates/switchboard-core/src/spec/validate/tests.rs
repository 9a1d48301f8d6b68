//! One test per validation rule, then the URL properties of seed 002.

use std::time::Duration;

use proptest::prelude::*;

use super::{SpecError, parse_http_url};
use crate::spec::{Auth, ServerId, ServerSpec, TransportKind};

fn remote() -> ServerSpec {
    ServerSpec::http("Remote", "https://mcp.example.com/mcp", None)
}

fn local() -> ServerSpec {
    ServerSpec::stdio("Local", "uvx", ["mcp-server-time"])
}

fn field_of(spec: &ServerSpec) -> String {
    match spec.validate() {
        Ok(()) => panic!("expected {spec:?} to be rejected"),
        Err(e) => e.field().to_owned(),
    }
}

#[test]
fn well_formed_specs_are_accepted() {
    assert_eq!(remote().validate(), Ok(()));
    assert_eq!(local().validate(), Ok(()));
    let full = remote()
        .with_header("X-Team", "blue\tgreen ünïcode")
        .with_auth(Auth::Bearer {
            token: "abc.def".into(),
        })
        .with_timeout(Duration::from_millis(1));
    assert_eq!(full.validate(), Ok(()));
}

#[test]
fn name_must_not_be_blank() {
    let mut spec = local();
    spec.name = "  ".into();
    assert_eq!(
        spec.validate(),
        Err(SpecError::Empty {
            field: "name".into()
        })
    );
}

#[test]
fn id_must_be_non_empty_and_url_safe() {
    let mut spec = local();
    spec.id = ServerId(String::new());
    assert_eq!(field_of(&spec), "id");
    spec.id = ServerId("a/b".into());
    assert!(matches!(spec.validate(), Err(SpecError::InvalidId { .. })));
    spec.id = ServerId("3f2a9c1e-uuid_like.v1~x".into());
    assert_eq!(spec.validate(), Ok(()));
    for dots in [".", "..", "..."] {
        spec.id = ServerId(dots.into());
        assert!(
            matches!(spec.validate(), Err(SpecError::InvalidId { .. })),
            "{dots}"
        );
    }
    spec.id = ServerId("..v1".into());
    assert_eq!(spec.validate(), Ok(()));
}

#[test]
fn stdio_needs_a_command() {
    let mut spec = local();
    spec.command = None;
    assert_eq!(
        spec.validate(),
        Err(SpecError::Missing {
            field: "command".into(),
            transport: TransportKind::Stdio
        })
    );
    spec.command = Some(" ".into());
    assert_eq!(field_of(&spec), "command");
    let message = ServerSpec::stdio("x", "", Vec::<String>::new())
        .validate()
        .map_err(|e| e.to_string());
    assert_eq!(message, Err("command must not be empty".to_owned()));
}

#[test]
fn stdio_ignores_a_leftover_url() {
    let mut spec = local();
    spec.url = Some("not a url".into());
    assert_eq!(spec.validate(), Ok(()));
}

#[test]
fn process_fields_must_not_hold_nul_bytes() {
    let mut spec = local();
    spec.args.push("ok\0no".into());
    assert_eq!(field_of(&spec), "args[1]");
    let spec = local().with_env("KEY", "va\0lue");
    assert_eq!(field_of(&spec), "env.KEY");
}

#[test]
fn env_names_must_be_valid() {
    for bad in ["", "A=B", "NU\0L"] {
        let spec = local().with_env(bad, "v");
        assert!(
            matches!(spec.validate(), Err(SpecError::InvalidEnvName { ref name, .. }) if name == bad),
            "{bad:?}"
        );
    }
}

#[test]
fn http_transports_need_a_url() {
    for transport in [TransportKind::StreamableHttp, TransportKind::Sse] {
        let mut spec = remote();
        spec.transport = transport;
        spec.url = None;
        assert_eq!(
            spec.validate(),
            Err(SpecError::Missing {
                field: "url".into(),
                transport
            })
        );
        spec.url = Some(String::new());
        assert_eq!(field_of(&spec), "url");
    }
    let message = ServerSpec {
        url: None,
        ..remote()
    }
    .validate()
    .map_err(|e| e.to_string());
    assert_eq!(
        message,
        Err("a streamable_http server needs a url".to_owned())
    );
}

#[test]
fn urls_must_parse() {
    let spec = ServerSpec::http("R", "example.com/mcp", None);
    assert!(matches!(
        spec.validate(),
        Err(SpecError::InvalidUrl { ref field, .. }) if field == "url"
    ));
    let spec = ServerSpec::http("R", "http://", None);
    assert!(matches!(spec.validate(), Err(SpecError::InvalidUrl { .. })));
}

#[test]
fn urls_must_be_http_or_https() {
    for (url, scheme) in [
        ("ftp://example.com/mcp", "ftp"),
        ("file:///etc/passwd", "file"),
        ("javascript:alert(1)", "javascript"),
        ("ws://example.com/mcp", "ws"),
        ("data:text/plain,hi", "data"),
    ] {
        assert_eq!(
            ServerSpec::http("R", url, None).validate(),
            Err(SpecError::UnsupportedScheme {
                field: "url".into(),
                scheme: scheme.into()
            }),
            "{url}"
        );
    }
    assert!(parse_http_url("HTTPS://Example.COM/mcp").is_ok());
}

#[test]
fn header_names_must_be_tokens() {
    for bad in ["", "X Team", "X-Team:", "Ünï", "X\r\nInjected"] {
        let spec = remote().with_header(bad, "v");
        assert!(
            matches!(spec.validate(), Err(SpecError::InvalidHeaderName { ref name, .. }) if name == bad),
            "{bad:?}"
        );
    }
    assert_eq!(remote().with_header("X-Api_Key.v2", "v").validate(), Ok(()));
}

#[test]
fn a_name_is_at_most_two_hundred_characters() {
    let mut spec = local();
    spec.name = "é".repeat(super::MAX_NAME_CHARS);
    assert_eq!(spec.validate(), Ok(()));
    spec.name = "x".repeat(1_000_000);
    assert!(matches!(
        spec.validate(),
        Err(SpecError::TooLong { ref field, max: 200 }) if field == "name"
    ));
}

#[test]
fn framing_hop_by_hop_and_host_headers_are_reserved() {
    for reserved in [
        "Content-Length",
        "transfer-encoding",
        "Host",
        "Connection",
        "Upgrade",
        "Expect",
        "TE",
        "Keep-Alive",
        "Trailer",
        "Proxy-Authorization",
        "proxy-connection",
    ] {
        let spec = remote().with_header(reserved, "1");
        assert!(
            matches!(spec.validate(), Err(SpecError::ReservedHeader { ref name, .. }) if name == reserved),
            "{reserved}"
        );
    }
    for allowed in [
        "X-Content-Length",
        "Content-Type",
        "Hostname",
        "Authorization",
    ] {
        assert_eq!(
            remote().with_header(allowed, "1").validate(),
            Ok(()),
            "{allowed}"
        );
    }
}

#[test]
fn header_values_must_not_hold_control_characters() {
    for bad in ["a\r\nX-Evil: 1", "a\nb", "a\rb", "nul\0", "del\x7f"] {
        let spec = remote().with_header("X-Team", bad);
        assert_eq!(
            spec.validate(),
            Err(SpecError::InvalidHeaderValue {
                field: "headers.X-Team".into()
            }),
            "{bad:?}"
        );
    }
}

#[test]
fn api_key_auth_needs_header_and_key() {
    let with = |header: &str, key: &str| {
        remote().with_auth(Auth::ApiKey {
            header: header.into(),
            key: key.into(),
        })
    };
    assert_eq!(with("X-API-Key", "k").validate(), Ok(()));
    assert_eq!(field_of(&with("", "k")), "auth.header");
    assert_eq!(field_of(&with("Bad Header", "k")), "auth.header");
    assert_eq!(field_of(&with("X-API-Key", "")), "auth.key");
    assert_eq!(field_of(&with("X-API-Key", "k\r\n")), "auth.key");
}

#[test]
fn bearer_auth_needs_a_token() {
    let with = |token: &str| {
        remote().with_auth(Auth::Bearer {
            token: token.into(),
        })
    };
    assert_eq!(with("t").validate(), Ok(()));
    assert_eq!(field_of(&with(" ")), "auth.token");
    assert_eq!(field_of(&with("t\nX-Evil: 1")), "auth.token");
}

#[test]
fn timeout_must_be_positive() {
    let spec = local().with_timeout(Duration::ZERO);
    assert_eq!(
        spec.validate(),
        Err(SpecError::ZeroTimeout {
            field: "timeout".into()
        })
    );
    assert_eq!(
        local().with_timeout(Duration::from_millis(1)).validate(),
        Ok(())
    );
}

#[test]
fn timeout_is_whole_milliseconds_up_to_a_day() {
    let out_of_range = Err(SpecError::TimeoutOutOfRange {
        field: "timeout".into(),
    });
    assert_eq!(
        local().with_timeout(Duration::from_micros(1500)).validate(),
        out_of_range
    );
    assert_eq!(
        local().with_timeout(Duration::from_secs(86_401)).validate(),
        out_of_range
    );
    assert_eq!(
        local().with_timeout(Duration::from_secs(86_400)).validate(),
        Ok(())
    );
}

#[test]
fn secret_env_names_a_set_variable() {
    let mut spec = local().with_secret_env("TOKEN", "t");
    assert_eq!(spec.validate(), Ok(()));
    spec.secret_env.insert("MISSING".into());
    assert_eq!(field_of(&spec), "secretEnv");
}

#[test]
fn messages_never_quote_secrets() {
    let spec = remote()
        .with_header("X-Token", "hunter2\n")
        .with_env("API", "x");
    let message = spec.validate().map_err(|e| e.to_string());
    assert!(
        matches!(&message, Err(m) if !m.contains("hunter2")),
        "{message:?}"
    );
    let spec = remote().with_auth(Auth::Bearer {
        token: "hunter2\r".into(),
    });
    let message = spec.validate().map_err(|e| e.to_string());
    assert!(
        matches!(&message, Err(m) if !m.contains("hunter2")),
        "{message:?}"
    );
}

fn other_scheme() -> impl Strategy<Value = String> {
    "[a-zA-Z][a-zA-Z0-9+.-]{0,12}".prop_filter("not http(s)", |s| {
        let lower = s.to_ascii_lowercase();
        lower != "http" && lower != "https"
    })
}

fn host() -> impl Strategy<Value = String> {
    prop_oneof![
        "([a-z0-9]([a-z0-9-]{0,12}[a-z0-9])?\\.){0,3}[a-z]{2,8}",
        any::<[u8; 4]>().prop_map(|[a, b, c, d]| format!("{a}.{b}.{c}.{d}")),
        Just("[::1]".to_owned()),
        Just("localhost".to_owned()),
    ]
}

proptest! {
    /// Seed 002, property 2: whatever follows it, a scheme other than http(s) is refused.
    #[test]
    fn non_http_schemes_are_always_rejected(
        scheme in other_scheme(),
        sep in prop_oneof![Just("://"), Just(":"), Just(":/")],
        rest in "\\PC{0,40}",
    ) {
        let url = format!("{scheme}{sep}{rest}");
        let spec = ServerSpec::http("R", url.clone(), None);
        let err = spec.validate().err();
        prop_assert!(err.is_some(), "{url} was accepted");
        prop_assert_eq!(err.as_ref().map(SpecError::field), Some("url"));
        prop_assert!(parse_http_url(&url).is_err());
    }

    /// Seed 002, property 2, the other half: http(s) URLs with any host, port and path pass.
    #[test]
    fn http_urls_with_random_hosts_and_paths_are_accepted(
        https in any::<bool>(),
        host in host(),
        port in proptest::option::of(1u16..),
        path in "(/\\PC{0,12}){0,4}",
        query in proptest::option::of("[a-z]{1,5}=\\PC{0,8}"),
    ) {
        let scheme = if https { "https" } else { "http" };
        let port = port.map(|p| format!(":{p}")).unwrap_or_default();
        let query = query.map(|q| format!("?{q}")).unwrap_or_default();
        let url = format!("{scheme}://{host}{port}{path}{query}");
        let spec = ServerSpec::http("R", url.clone(), None);
        prop_assert_eq!(spec.validate(), Ok(()), "{}", url);
    }

    /// Seed 002, property 2, as the seed states it: for any string, acceptance implies an
    /// http(s) URL.
    #[test]
    fn any_accepted_string_is_an_http_url(input in "\\PC{0,60}") {
        if let Ok(url) = parse_http_url(&input) {
            prop_assert!(matches!(url.scheme(), "http" | "https"));
            prop_assert!(url.host().is_some());
        }
    }
}
