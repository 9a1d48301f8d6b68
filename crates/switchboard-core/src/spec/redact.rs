//! JSON made safe for logs: what Switchboard logs of MCP requests and responses.
//!
//! Two rules. A value under a key that names a credential (`password`, `token`, `secret`,
//! `apiKey`, `authorization`, ...) is replaced whole. And any string containing one of the
//! server's own secrets (its header values, secret env values, key or token) has it cut out, so
//! a tool that echoes a credential back does not put it in the log either.
//!
//! The second rule is also what keeps text coming back from outside clean: a [`Redactor`],
//! built from a spec's (or a provider's) secrets, cuts them out of error messages, status
//! events and logs, in the forms an upstream is likely to echo them: as sent, URL-encoded,
//! JSON-escaped and base64-encoded (HTTP Basic credentials, a key echoed in a token dump).

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use serde_json::Value;

use super::url_secrets::url_secret_values;
use super::{Auth, ServerSpec};

/// What a redacted value reads as.
pub const REDACTED: &str = "***";

/// Secrets shorter than this are not searched for inside strings: a one-letter "secret" would
/// blank out half the log.
const MIN_SECRET_LEN: usize = 4;

impl ServerSpec {
    /// The secret values of this spec, for [`redact_json`].
    pub fn secret_values(&self) -> Vec<&str> {
        let mut values: Vec<&str> = self.headers.values().map(String::as_str).collect();
        values.extend(
            self.secret_env
                .iter()
                .filter_map(|key| self.env.get(key).map(String::as_str)),
        );
        match &self.auth {
            Auth::None => {}
            Auth::ApiKey { key, .. } => values.push(key),
            Auth::Bearer { token } => values.push(token),
            Auth::OAuth { client_secret, .. } => values.extend(client_secret.as_deref()),
        }
        values.retain(|v| v.len() >= MIN_SECRET_LEN);
        values
    }
}

impl ServerSpec {
    /// What cuts this spec's secrets out of text: its header values, secret env values, key or
    /// token, and the password and query values of its URL.
    pub fn redactor(&self) -> Redactor {
        self.redactor_with(std::iter::empty())
    }

    /// [`ServerSpec::redactor`] with `more` secrets of the connection (the OAuth tokens it
    /// sends, which the spec never holds).
    pub fn redactor_with(&self, more: impl IntoIterator<Item = String>) -> Redactor {
        let mut values: Vec<String> = self
            .secret_values()
            .into_iter()
            .map(str::to_owned)
            .collect();
        if let Some(url) = &self.url {
            values.extend(url_secret_values(url));
        }
        values.extend(more);
        Redactor::new(values)
    }
}

/// Cuts a fixed set of secrets out of text, in every form listed in the module docs.
#[derive(Clone, Default)]
pub struct Redactor {
    /// Longest first, so a secret that contains another is replaced whole.
    needles: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} forms)", self.needles.len())
    }
}

impl Redactor {
    /// A redactor for `secrets` (values shorter than 4 characters are ignored).
    pub fn new(secrets: impl IntoIterator<Item = String>) -> Self {
        let mut needles = Vec::new();
        for secret in secrets {
            if secret.len() < MIN_SECRET_LEN {
                continue;
            }
            let encoded: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
            let json = serde_json::to_string(&secret).unwrap_or_default();
            let json = json
                .strip_prefix('"')
                .and_then(|j| j.strip_suffix('"'))
                .unwrap_or_default()
                .to_owned();
            let base64 = STANDARD.encode(secret.as_bytes());
            let base64_bare = base64.trim_end_matches('=').to_owned();
            let url_safe = URL_SAFE_NO_PAD.encode(secret.as_bytes());
            needles.extend([encoded, json, base64, base64_bare, url_safe]);
            needles.push(secret);
        }
        needles.retain(|n| n.len() >= MIN_SECRET_LEN);
        needles.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        needles.dedup();
        Self { needles }
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.needles.is_empty()
    }

    /// Whether `text` holds one of the secrets.
    pub fn finds(&self, text: &str) -> bool {
        self.needles.iter().any(|n| text.contains(n.as_str()))
    }

    /// `text` with every form of every secret replaced by [`REDACTED`].
    pub fn redact(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for needle in &self.needles {
            if out.contains(needle.as_str()) {
                out = out.replace(needle.as_str(), REDACTED);
            }
        }
        out
    }

    /// `text` redacted in place; whether anything changed.
    pub fn redact_in_place(&self, text: &mut String) -> bool {
        if self.finds(text) {
            *text = self.redact(text);
            true
        } else {
            false
        }
    }
}

/// `value` with credential-named fields and every occurrence of `secrets` replaced.
pub fn redact_json(value: &Value, secrets: &[&str]) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(key, inner)| {
                    let inner = if names_a_credential(key) && !inner.is_null() {
                        Value::String(REDACTED.to_owned())
                    } else {
                        redact_json(inner, secrets)
                    };
                    (key.clone(), inner)
                })
                .collect(),
        ),
        Value::Array(items) => {
            Value::Array(items.iter().map(|v| redact_json(v, secrets)).collect())
        }
        Value::String(text) => Value::String(redact_text(text, secrets)),
        other => other.clone(),
    }
}

/// `text` with every occurrence of `secrets` replaced.
pub fn redact_text(text: &str, secrets: &[&str]) -> String {
    let mut out = text.to_owned();
    for secret in secrets.iter().filter(|s| s.len() >= MIN_SECRET_LEN) {
        if out.contains(secret) {
            out = out.replace(secret, REDACTED);
        }
    }
    out
}

/// Whether a field name says its value is a credential.
pub(crate) fn names_a_credential(key: &str) -> bool {
    let key: String = key
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect::<String>()
        .to_ascii_lowercase();
    [
        "password",
        "passwd",
        "secret",
        "token",
        "apikey",
        "authorization",
        "credential",
        "privatekey",
        "cookie",
    ]
    .iter()
    .any(|word| key.contains(word))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn credential_fields_and_known_secrets_are_redacted() {
        let value = json!({
            "query": "select 1",
            "password": "p4ssw0rd",
            "nested": {"api_key": "abc123", "Authorization": "Bearer x", "tokens": null},
            "list": ["hunter2 is my key", 42, true],
            "note": "the header was hunter2",
        });
        let out = redact_json(&value, &["hunter2", "ab"]);
        assert_eq!(
            out,
            json!({
                "query": "select 1",
                "password": "***",
                "nested": {"api_key": "***", "Authorization": "***", "tokens": null},
                "list": ["*** is my key", 42, true],
                "note": "the header was ***",
            })
        );
    }

    #[test]
    fn a_redactor_finds_a_specs_secrets_in_the_forms_they_come_back_in() {
        let mut spec = ServerSpec::http(
            "s",
            "https://me:pass%2Fword@h.example/mcp?api_key=query-secret&format=json",
            None,
        );
        spec.headers.insert("X-Key".into(), "header secret".into());
        spec.auth = Auth::Bearer {
            token: "bearer-secret".into(),
        };
        let redactor = spec.redactor();
        let echoed = [
            "authorization: Bearer bearer-secret",
            "x-key: header+secret",
            "{\"x-key\":\"header secret\"}",
            "GET /mcp?api_key=query-secret&format=json",
            "authorization: Basic bWU6cGFzcy93b3Jk",
            "token as base64: YmVhcmVyLXNlY3JldA==",
            "password pass%2Fword and decoded pass/word",
        ];
        for text in echoed {
            let out = redactor.redact(text);
            for secret in [
                "bearer-secret",
                "header secret",
                "header+secret",
                "query-secret",
                "pass%2Fword",
                "pass/word",
                "bWU6cGFzcy93b3Jk",
                "YmVhcmVyLXNlY3JldA",
            ] {
                assert!(!out.contains(secret), "{secret} in {out}");
            }
        }
        assert!(redactor.redact("format=json").contains("json"));
        assert!(format!("{redactor:?}").starts_with("Redactor("));
    }

    #[test]
    fn a_specs_secrets_are_its_headers_secret_env_and_credentials() {
        let mut spec = ServerSpec::stdio("s", "cmd", ["a"])
            .with_secret_env("API_TOKEN", "tok-123456")
            .with_env("PLAIN", "visible-value");
        spec.headers.insert("X-Key".into(), "header-secret".into());
        spec.auth = Auth::Bearer {
            token: "bearer-secret".into(),
        };
        let mut secrets = spec.secret_values();
        secrets.sort_unstable();
        assert_eq!(secrets, ["bearer-secret", "header-secret", "tok-123456"]);
    }
}
