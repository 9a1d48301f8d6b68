//! The display form of a [`ServerSpec`]: every secret replaced by [`MASK`].
//!
//! What is secret is the same list the store encrypts: credentials in [`Auth`], every header
//! value, the env values named in `secret_env`, and the password and query values of the URL
//! ([`super::url_secrets`]). A form that shows a masked spec sends the
//! mask back for the secrets the user did not touch, so [`ServerSpec::keep_masked_secrets`]
//! turns a masked value back into the stored one, and a changed value replaces it.

use std::collections::BTreeMap;

use super::url_secrets::{mask_url, restore_masked_url, url_holds_mask};
use super::{Auth, ServerSpec};

/// What a secret reads as on display.
pub const MASK: &str = "********";

impl ServerSpec {
    /// This spec with every secret value replaced by [`MASK`] (empty secrets stay empty, so a
    /// reader can tell "not set" from "set").
    pub fn masked(&self) -> ServerSpec {
        let mut out = self.clone();
        for value in out.headers.values_mut() {
            mask(value);
        }
        for key in &self.secret_env {
            if let Some(value) = out.env.get_mut(key) {
                mask(value);
            }
        }
        match &mut out.auth {
            Auth::None => {}
            Auth::ApiKey { key, .. } => mask(key),
            Auth::Bearer { token } => mask(token),
            Auth::OAuth { client_secret, .. } => {
                if let Some(secret) = client_secret {
                    mask(secret);
                }
            }
        }
        out.url = out.url.as_deref().map(mask_url);
        out
    }

    /// Where this spec holds [`MASK`] for a secret that `stored` has under the same name,
    /// takes the stored value: the user left it unchanged. Any other value is kept as given.
    pub fn keep_masked_secrets(&mut self, stored: &ServerSpec) {
        if let (Some(url), Some(old)) = (&self.url, &stored.url) {
            self.url = Some(restore_masked_url(url, old));
        }
        restore_map(&mut self.headers, &stored.headers, |_| true);
        let secret_env = self.secret_env.clone();
        restore_map(&mut self.env, &stored.env, |key| {
            secret_env.contains(key) && stored.secret_env.contains(key)
        });
        match (&mut self.auth, &stored.auth) {
            (Auth::ApiKey { key, .. }, Auth::ApiKey { key: old, .. }) if key == MASK => {
                key.clone_from(old);
            }
            (Auth::Bearer { token }, Auth::Bearer { token: old }) if token == MASK => {
                token.clone_from(old);
            }
            (
                Auth::OAuth {
                    client_secret: Some(secret),
                    ..
                },
                Auth::OAuth {
                    client_secret: Some(old),
                    ..
                },
            ) if secret == MASK => {
                secret.clone_from(old);
            }
            _ => {}
        }
    }
}

impl ServerSpec {
    /// Whether any secret is given as [`MASK`] (a masked form sent back).
    pub fn holds_mask(&self) -> bool {
        let auth = match &self.auth {
            Auth::ApiKey { key, .. } => key == MASK,
            Auth::Bearer { token } => token == MASK,
            _ => false,
        };
        auth || self.url.as_deref().is_some_and(url_holds_mask)
            || self.headers.values().any(|v| v == MASK)
            || self
                .secret_env
                .iter()
                .any(|k| self.env.get(k).is_some_and(|v| v == MASK))
    }
}

fn mask(value: &mut String) {
    if !value.is_empty() {
        *value = MASK.to_owned();
    }
}

fn restore_map(
    current: &mut BTreeMap<String, String>,
    stored: &BTreeMap<String, String>,
    is_secret: impl Fn(&str) -> bool,
) {
    for (key, value) in current.iter_mut() {
        if let Some(old) = stored.get(key).filter(|_| value == MASK && is_secret(key)) {
            value.clone_from(old);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> ServerSpec {
        ServerSpec::http("docs", "https://example.com/mcp", None)
            .with_header("X-Key", "hdr-secret")
            .with_auth(Auth::Bearer {
                token: "tok-secret".into(),
            })
            .with_env("PLAIN", "visible")
            .with_secret_env("TOKEN", "env-secret")
    }

    #[test]
    fn masked_hides_every_secret_and_nothing_else() {
        let masked = spec().masked();
        let json = serde_json::to_string(&masked).unwrap();
        for secret in ["hdr-secret", "tok-secret", "env-secret"] {
            assert!(!json.contains(secret), "{secret} leaked: {json}");
        }
        assert_eq!(masked.env["PLAIN"], "visible");
        assert_eq!(masked.env["TOKEN"], MASK);
        assert_eq!(masked.headers["X-Key"], MASK);
    }

    #[test]
    fn a_masked_form_sent_back_keeps_the_stored_secrets() {
        let stored = spec();
        let mut edited = stored.masked();
        edited.name = "renamed".into();
        edited.keep_masked_secrets(&stored);
        let mut expected = stored.clone();
        expected.name = "renamed".into();
        assert_eq!(edited, expected);
    }

    #[test]
    fn a_changed_secret_replaces_the_stored_one() {
        let stored = spec();
        let mut edited = stored.masked();
        edited.headers.insert("X-Key".into(), "new".into());
        edited.keep_masked_secrets(&stored);
        assert_eq!(edited.headers["X-Key"], "new");
        assert_eq!(edited.env["TOKEN"], "env-secret");
    }
}
