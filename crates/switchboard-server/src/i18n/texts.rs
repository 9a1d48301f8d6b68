//! The locale files (`locales/<tag>.json` at the repository root) as one set of texts: each file
//! a flat JSON object of key to text, with `{name}` placeholders that [`LocaleTexts::render`]
//! fills. The files are data, embedded with `include_str!` and parsed once when the server
//! state is built; a malformed file fails `tests/it/locales.rs`, and at run time leaves that
//! language empty (the caller's English text is sent instead) rather than stopping the
//! server.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use switchboard_core::Locale;
use thiserror::Error;

/// The text of every locale, as embedded in the binary.
const FILES: &[(Locale, &str)] = &[
    (Locale::EnUs, include_str!("../../../../locales/en-US.json")),
    (
        Locale::ZhHans,
        include_str!("../../../../locales/zh-Hans.json"),
    ),
];

/// A locale file that could not be read.
#[derive(Debug, Error)]
#[error("locales/{locale}.json is not a flat JSON object of strings: {source}")]
pub struct CatalogError {
    pub locale: Locale,
    #[source]
    pub source: serde_json::Error,
}

/// Every locale's texts by key.
#[derive(Debug, Default)]
pub struct LocaleTexts {
    texts: HashMap<Locale, BTreeMap<String, String>>,
}

impl LocaleTexts {
    /// The embedded locale files, or the first that does not parse.
    pub fn embedded() -> Result<LocaleTexts, CatalogError> {
        let mut texts = HashMap::new();
        for &(locale, text) in FILES {
            let parsed: BTreeMap<String, String> =
                serde_json::from_str(text).map_err(|source| CatalogError { locale, source })?;
            texts.insert(locale, parsed);
        }
        Ok(LocaleTexts { texts })
    }

    /// The embedded files; a file that does not parse is logged and left empty (its
    /// language then falls back to the English text the code wrote).
    pub fn embedded_or_empty() -> LocaleTexts {
        LocaleTexts::embedded().unwrap_or_else(|error| {
            tracing::error!(%error, "the locale files are broken; messages stay in English");
            LocaleTexts::default()
        })
    }

    /// Every key and text of `locale`.
    pub fn texts(&self, locale: Locale) -> Option<&BTreeMap<String, String>> {
        self.texts.get(&locale)
    }

    /// The text of `key` in `locale` with `params` filled in, if the locale has the key.
    pub fn render(&self, locale: Locale, key: &str, params: &[(&str, String)]) -> Option<String> {
        let template = self.texts.get(&locale)?.get(key)?;
        Some(fill(template, params))
    }
}

/// `template` with each `{name}` of `params` replaced by its value, in one pass (a value
/// that itself holds `{name}` is not replaced again). Unknown names stay as they are.
pub fn fill(template: &str, params: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let value = after.find('}').and_then(|close| {
            let name = &after[..close];
            params
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (v, close))
        });
        match value {
            Some((value, close)) => {
                out.push_str(value);
                rest = &after[close + 1..];
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The `{name}` placeholders of a template.
pub fn placeholders(template: &str) -> BTreeSet<&str> {
    let mut names = BTreeSet::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close) => {
                let name = &after[..close];
                if !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                {
                    names.insert(name);
                }
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_filled_once_and_unknown_ones_kept() {
        let params = [("a", "{b}".to_owned()), ("b", "2".to_owned())];
        assert_eq!(fill("x {a} y {b} {c} {", &params), "x {b} y 2 {c} {");
        assert_eq!(fill("未找到：{a}", &params), "未找到：{b}");
        assert_eq!(
            placeholders("{detail} and {limit}, not {} or { x }"),
            BTreeSet::from(["detail", "limit"])
        );
    }

    #[test]
    fn the_embedded_files_parse_and_render() {
        let texts = LocaleTexts::embedded().unwrap();
        let params = [("path", "/api/x".to_owned())];
        assert_eq!(
            texts.render(Locale::EnUs, "error.msg.no_route", &params),
            Some("there is no route /api/x".to_owned())
        );
        assert_eq!(
            texts.render(Locale::ZhHans, "error.msg.no_route", &params),
            Some("不存在路由 /api/x".to_owned())
        );
        assert_eq!(texts.render(Locale::EnUs, "no.such.key", &params), None);
    }
}
