//! Credentials inside a URL: `user:password@` and query values (`?api_key=...`).
//!
//! Hosted MCP servers and LLM gateways often take their key in the URL, so a URL is treated
//! like a header: its password and every query value are secrets, masked on display
//! ([`mask_url`]), encrypted at rest when present ([`url_has_secrets`]), and a masked form sent
//! back keeps the stored values ([`restore_masked_url`]). The user name, host, path and query
//! keys stay visible: they are what a reader needs to recognise the server.

use super::mask::MASK;
use super::redact::names_a_credential;

/// Whether `raw` carries a password or query values (and so is stored sealed).
pub fn url_has_secrets(raw: &str) -> bool {
    match url::Url::parse(raw) {
        Ok(url) => url.password().is_some() || url.query().is_some_and(|q| !q.is_empty()),
        Err(_) => false,
    }
}

/// `raw` with its password and every query value replaced by [`MASK`]; a URL that does not
/// parse is returned as it is (validation refuses it before it is stored or used).
pub fn mask_url(raw: &str) -> String {
    let Ok(mut url) = url::Url::parse(raw) else {
        return raw.to_owned();
    };
    if !url_has_secrets(raw) {
        return raw.to_owned();
    }
    if url.password().is_some() {
        // Only fails for URLs that cannot have credentials, which have no password either.
        let _ = url.set_password(Some(MASK));
    }
    let keys: Vec<String> = url.query_pairs().map(|(k, _)| k.into_owned()).collect();
    if !keys.is_empty() {
        let mut pairs = url.query_pairs_mut();
        pairs.clear();
        for key in &keys {
            pairs.append_pair(key, MASK);
        }
    }
    url.into()
}

/// `given` with every part that reads [`MASK`] (the password, a query value) replaced by the
/// same part of `stored`, when both point at the same origin and path: a form that showed the
/// masked URL sends it back unchanged. Anything else is returned as given.
pub fn restore_masked_url(given: &str, stored: &str) -> String {
    let (Ok(mut url), Ok(old)) = (url::Url::parse(given), url::Url::parse(stored)) else {
        return given.to_owned();
    };
    // A kept secret must never travel to another destination.
    if url.origin() != old.origin() || url.path() != old.path() {
        return given.to_owned();
    }
    if url.password() == Some(MASK) {
        let _ = url.set_password(old.password());
    }
    let old_pairs: Vec<(String, String)> = old.query_pairs().into_owned().collect();
    let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    if pairs.iter().any(|(_, v)| v == MASK) {
        let mut seen: Vec<&str> = Vec::new();
        let restored: Vec<(String, String)> = pairs
            .iter()
            .map(|(key, value)| {
                // The n-th `key` of the given URL takes the n-th `key` of the stored one.
                let nth = seen.iter().filter(|k| **k == key.as_str()).count();
                seen.push(key);
                let old_value = old_pairs.iter().filter(|(k, _)| k == key).nth(nth);
                match old_value {
                    Some((_, old_value)) if value == MASK => (key.clone(), old_value.clone()),
                    _ => (key.clone(), value.clone()),
                }
            })
            .collect();
        url.query_pairs_mut().clear().extend_pairs(restored);
    }
    url.into()
}

/// Whether `raw` holds [`MASK`] as its password or a query value.
pub fn url_holds_mask(raw: &str) -> bool {
    url::Url::parse(raw)
        .is_ok_and(|url| url.password() == Some(MASK) || url.query_pairs().any(|(_, v)| v == MASK))
}

/// Query values shorter than this are searched for in text only under a key that names a
/// credential: `?format=json` must not blank out every "json" of an error message.
const MIN_PLAIN_QUERY_VALUE: usize = 8;

/// The secret values of `raw` worth searching for in text: its password (as written and
/// decoded), the `user:password` pair a client sends as HTTP Basic credentials, and its query
/// values (short ones only under a credential-named key).
pub fn url_secret_values(raw: &str) -> Vec<String> {
    let Ok(url) = url::Url::parse(raw) else {
        return Vec::new();
    };
    let mut values = Vec::new();
    if let Some(password) = url.password() {
        values.push(password.to_owned());
        let decoded = percent_decode(password);
        values.push(format!("{}:{decoded}", percent_decode(url.username())));
        values.push(decoded);
    }
    values.extend(
        url.query_pairs()
            .filter(|(k, v)| v.len() >= MIN_PLAIN_QUERY_VALUE || names_a_credential(k))
            .map(|(_, v)| v.into_owned()),
    );
    values
}

fn percent_decode(text: &str) -> String {
    url::form_urlencoded::parse(format!("x={}", text.replace('+', "%2B")).as_bytes())
        .next()
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| text.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    const URL: &str = "https://user:pw-secret@h.example/mcp?api_key=q-secret&region=eu";

    #[test]
    fn masking_hides_the_password_and_query_values_only() {
        let masked = mask_url(URL);
        assert_eq!(
            masked,
            "https://user:********@h.example/mcp?api_key=********&region=********"
        );
        assert_eq!(
            mask_url("https://h.example/mcp"),
            "https://h.example/mcp",
            "nothing to hide"
        );
        assert!(url_has_secrets(URL));
        assert!(!url_has_secrets("https://user@h.example/mcp"));
        assert!(url_holds_mask(&masked));
        assert!(!url_holds_mask(URL));
    }

    #[test]
    fn a_masked_url_sent_back_is_the_stored_one() {
        assert_eq!(restore_masked_url(&mask_url(URL), URL), URL);
        let edited = "https://user:********@h.example/mcp?api_key=new-key&region=********";
        assert_eq!(
            restore_masked_url(edited, URL),
            "https://user:pw-secret@h.example/mcp?api_key=new-key&region=eu"
        );
    }

    #[test]
    fn a_masked_url_for_another_destination_keeps_nothing() {
        let moved = "https://user:********@evil.example/mcp?api_key=********";
        assert_eq!(restore_masked_url(moved, URL), moved);
    }

    #[test]
    fn secret_values_include_the_basic_credentials() {
        let values = url_secret_values("https://me:p%40ss@h.example/?token=v1&format=json");
        assert!(values.contains(&"p%40ss".to_owned()), "{values:?}");
        assert!(values.contains(&"p@ss".to_owned()), "{values:?}");
        assert!(values.contains(&"me:p@ss".to_owned()), "{values:?}");
        assert!(values.contains(&"v1".to_owned()), "{values:?}");
        assert!(!values.contains(&"json".to_owned()), "{values:?}");
    }
}
