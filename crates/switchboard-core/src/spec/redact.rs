//! JSON made safe for logs: what Switchboard logs of MCP requests and responses.
//!
//! Two rules. A value under a key that names a credential (`password`, `token`, `secret`,
//! `apiKey`, `authorization`, ...) is replaced whole. And any string containing one of the
//! server's own secrets (its header values, secret env values, key or token) has it cut out, so
//! a tool that echoes a credential back does not put it in the log either.

use serde_json::Value;

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
        }
        values.retain(|v| v.len() >= MIN_SECRET_LEN);
        values
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
fn names_a_credential(key: &str) -> bool {
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
