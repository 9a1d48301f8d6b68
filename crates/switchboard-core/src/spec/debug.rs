//! `Debug` for [`ServerSpec`] that is safe to log.
//!
//! Specs end up in tracing spans, panic messages of tests and error reports, so their `Debug`
//! must never show a secret. What counts as secret: every env value and header value (keys stay
//! visible, they are what a reader needs to debug), the credentials in [`Auth`](super::Auth), and the parts
//! of a URL that commonly carry keys: the password and the query values (hosted MCP servers
//! often take `?api_key=`). A URL that does not parse is not shown at all, since nothing can be
//! said about where its secrets are.

use std::collections::BTreeMap;
use std::fmt;

use super::ServerSpec;

const HIDDEN: &str = "***";

impl fmt::Debug for ServerSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServerSpec")
            .field("id", &self.id)
            .field("name", &self.name)
            .field("transport", &self.transport)
            .field("url", &self.url.as_deref().map(RedactedUrl))
            .field("command", &self.command)
            .field("args", &self.args)
            .field("env", &KeysOnly(&self.env))
            .field("secret_env", &self.secret_env)
            .field("cwd", &self.cwd)
            .field("headers", &KeysOnly(&self.headers))
            .field("auth", &self.auth)
            .field("timeout", &self.timeout)
            .field("enabled", &self.enabled)
            .field("disabled_tools", &self.disabled_tools)
            .field("auto_approved_tools", &self.auto_approved_tools)
            .finish()
    }
}

/// A map shown with its keys and every value replaced by `***`.
struct KeysOnly<'a>(&'a BTreeMap<String, String>);

impl fmt::Debug for KeysOnly<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.0.keys().map(|k| (k, Hidden)))
            .finish()
    }
}

struct Hidden;

impl fmt::Debug for Hidden {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(HIDDEN)
    }
}

/// A URL with its password and query values replaced by `***`.
struct RedactedUrl<'a>(&'a str);

impl fmt::Debug for RedactedUrl<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", redact_url(self.0))
    }
}

/// `raw` with its password and query values replaced by `***`, safe for logs and error
/// messages; `<unparseable url>` when it does not parse.
pub fn redact_url(raw: &str) -> String {
    let Ok(mut url) = url::Url::parse(raw) else {
        return "<unparseable url>".to_owned();
    };
    if url.password().is_some() {
        // Only fails for URLs that cannot have credentials, which have no password either.
        let _ = url.set_password(Some(HIDDEN));
    }
    if url.query().is_some() {
        let keys: Vec<String> = url.query_pairs().map(|(k, _)| k.into_owned()).collect();
        let mut pairs = url.query_pairs_mut();
        pairs.clear();
        for key in &keys {
            pairs.append_pair(key, HIDDEN);
        }
        drop(pairs);
    }
    url.into()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::spec::{Auth, ServerSpec};

    #[test]
    fn debug_hides_env_and_header_values_but_shows_keys() {
        let spec = ServerSpec::stdio("Files", "npx", ["server"])
            .with_env("GITHUB_TOKEN", "ghp_secret_env")
            .with_header("X-Api-Key", "secret-header");
        let shown = format!("{spec:?}");
        assert!(shown.contains("GITHUB_TOKEN"), "{shown}");
        assert!(shown.contains("X-Api-Key"), "{shown}");
        assert!(!shown.contains("ghp_secret_env"), "{shown}");
        assert!(!shown.contains("secret-header"), "{shown}");
        assert!(shown.contains("***"), "{shown}");
        assert!(shown.contains("npx"), "{shown}");
    }

    #[test]
    fn debug_hides_auth_secrets() {
        let api_key =
            ServerSpec::http("R", "https://h.example/mcp", None).with_auth(Auth::ApiKey {
                header: "X-Key".into(),
                key: "k-secret".into(),
            });
        let shown = format!("{api_key:?}");
        assert!(
            shown.contains("X-Key") && !shown.contains("k-secret"),
            "{shown}"
        );

        let bearer = ServerSpec::http("R", "https://h.example/mcp", None).with_auth(Auth::Bearer {
            token: "b-secret".into(),
        });
        let shown = format!("{bearer:#?}");
        assert!(!shown.contains("b-secret"), "{shown}");
    }

    #[test]
    fn debug_hides_url_password_and_query_values() {
        let spec = ServerSpec::http(
            "R",
            "https://user:pw-secret@h.example/mcp?api_key=q-secret&region=eu",
            None,
        )
        .with_timeout(Duration::from_secs(5));
        let shown = format!("{spec:?}");
        assert!(!shown.contains("pw-secret"), "{shown}");
        assert!(!shown.contains("q-secret"), "{shown}");
        assert!(
            shown.contains("https://user:***@h.example/mcp?api_key=***&region=***"),
            "{shown}"
        );
    }

    #[test]
    fn debug_does_not_echo_unparseable_urls() {
        let spec = ServerSpec::http("R", "not a url with hunter2", None);
        let shown = format!("{spec:?}");
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(shown.contains("<unparseable url>"), "{shown}");
    }
}
