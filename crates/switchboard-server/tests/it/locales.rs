//! The locale files are complete: both parse; every error code has its message
//! and hint in every language; every key of one file is in the other with the same
//! placeholders; every key the server's code names (`.key("...")`) and every UI string the
//! web UI asks for (`t('ui....')`) is in both.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use switchboard_core::{ErrorCode, Locale};
use switchboard_server::i18n::{LocaleTexts, placeholders};

/// Texts written the same in both languages: each language's own name, and "URL".
const SAME_IN_BOTH: &[&str] = &["ui.lang.en-US", "ui.lang.zh-Hans", "ui.server.url"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn locale_texts() -> LocaleTexts {
    LocaleTexts::embedded().unwrap()
}

fn texts(locale_texts: &LocaleTexts, locale: Locale) -> &BTreeMap<String, String> {
    locale_texts.texts(locale).unwrap()
}

/// The files on disk parse as the server parses them (and are what it embedded).
#[test]
fn every_locale_file_is_a_flat_object_of_strings() {
    let locale_texts = locale_texts();
    for &locale in Locale::ALL {
        let path = root().join(format!("locales/{locale}.json"));
        let on_disk: BTreeMap<String, String> =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(&on_disk, texts(&locale_texts, locale), "{locale}");
        for (key, text) in &on_disk {
            assert!(!text.trim().is_empty(), "{locale}: {key} is empty");
        }
    }
}

#[test]
fn every_error_code_has_a_message_and_a_hint_in_every_language() {
    let locale_texts = locale_texts();
    let mut missing = Vec::new();
    for &locale in Locale::ALL {
        for &code in ErrorCode::ALL {
            for part in ["message", "hint"] {
                let key = format!("error.{code}.{part}");
                if !texts(&locale_texts, locale).contains_key(&key) {
                    missing.push(format!("{locale}: {key}"));
                }
            }
            let template = &texts(&locale_texts, locale)[&format!("error.{code}.message")];
            assert!(
                template.contains("{detail}"),
                "{locale}: {code}: {template}"
            );
        }
    }
    assert!(missing.is_empty(), "missing: {missing:#?}");
}

#[test]
fn both_languages_have_the_same_keys_and_placeholders() {
    let locale_texts = locale_texts();
    let english = texts(&locale_texts, Locale::EnUs);
    let chinese = texts(&locale_texts, Locale::ZhHans);
    let only_english: Vec<&String> = english
        .keys()
        .filter(|k| !chinese.contains_key(*k))
        .collect();
    let only_chinese: Vec<&String> = chinese
        .keys()
        .filter(|k| !english.contains_key(*k))
        .collect();
    assert!(only_english.is_empty(), "not in zh-Hans: {only_english:?}");
    assert!(only_chinese.is_empty(), "not in en-US: {only_chinese:?}");
    for (key, text) in english {
        assert_eq!(
            placeholders(text),
            placeholders(&chinese[key]),
            "{key}: {text:?} / {:?}",
            chinese[key]
        );
    }
    // A Chinese text equal to the English one is a missing translation, but for the
    // messages that are only `{detail}` in English and the texts that are the same on purpose.
    for (key, text) in chinese {
        if english[key] != "{detail}" && !SAME_IN_BOTH.contains(&key.as_str()) {
            assert_ne!(text, &english[key], "{key} is not translated");
        }
    }
}

/// Every `"error.msg.…"` the server's code names, found by reading its sources.
#[test]
fn every_key_the_server_names_is_in_both_files() {
    let locale_texts = locale_texts();
    let mut used = BTreeSet::new();
    for file in files_under(&root().join("crates/switchboard-server/src"), "rs") {
        let source = std::fs::read_to_string(&file).unwrap();
        used.extend(quoted_after(&source, "\"error.msg."));
    }
    assert!(used.len() >= 20, "found only {used:?}");
    for key in &used {
        let key = format!("error.msg.{key}");
        for &locale in Locale::ALL {
            assert!(
                texts(&locale_texts, locale).contains_key(&key),
                "{locale} lacks {key}"
            );
        }
    }
}

/// Every `t('ui.…')` (or `t("ui.…")`) of the web UI is in both files.
#[test]
fn every_ui_string_the_web_ui_asks_for_is_in_both_files() {
    let locale_texts = locale_texts();
    let mut used = BTreeSet::new();
    for file in files_under(&root().join("web/js"), "js") {
        let source = std::fs::read_to_string(&file).unwrap();
        for quote in ["t('ui.", "t(\"ui.", "t(`ui."] {
            used.extend(
                quoted_after(&source, quote)
                    .into_iter()
                    .map(|k| (k, file.clone())),
            );
        }
    }
    assert!(used.len() >= 20, "found only {used:?}");
    for (key, file) in &used {
        let key = format!("ui.{key}");
        for &locale in Locale::ALL {
            assert!(
                texts(&locale_texts, locale).contains_key(&key),
                "{locale} lacks {key} ({})",
                file.display()
            );
        }
    }
}

/// Words the web UI shows as they are in every language: the product's name and examples.
const NOT_TRANSLATED: &[&str] = &["Switchboard", "npx"];

/// No English is written into the web UI's templates: no text between tags and no label,
/// title, placeholder, hint, legend or alt attribute spelled out (each comes from `t(...)`).
#[test]
fn the_web_uis_templates_hold_no_english_of_their_own() {
    let mut found = Vec::new();
    for file in files_under(&root().join("web/js"), "js") {
        let source = std::fs::read_to_string(&file).unwrap();
        let name = file.display().to_string();
        // Text nodes: `>Words<`.
        for (at, _) in source.match_indices('>') {
            let rest = &source[at + 1..];
            let Some(end) = rest.find('<') else { continue };
            let text = rest[..end].trim();
            let words = text
                .chars()
                .all(|c| c.is_ascii_alphabetic() || " ,.'!?…-".contains(c));
            if words
                && text.chars().any(|c| c.is_ascii_alphabetic())
                && !NOT_TRANSLATED.contains(&text)
            {
                found.push(format!("{name}: >{text}<"));
            }
        }
        // Attributes a person reads.
        for attribute in [
            "label",
            "title",
            "placeholder",
            "aria-label",
            "hint",
            "legend",
            "alt",
        ] {
            for (at, _) in source.match_indices(&format!(" {attribute}=\"")) {
                let rest = &source[at + attribute.len() + 3..];
                let value = &rest[..rest.find('"').unwrap_or(0)];
                let example = value.starts_with("http") || NOT_TRANSLATED.contains(&value);
                if value.chars().any(|c| c.is_ascii_alphabetic()) && !example {
                    found.push(format!("{name}: {attribute}=\"{value}\""));
                }
            }
        }
    }
    assert!(found.is_empty(), "English written into the UI: {found:#?}");
}

/// The rest of each key after `prefix`, up to its closing quote.
fn quoted_after(source: &str, prefix: &str) -> Vec<String> {
    let close = prefix
        .chars()
        .find(|c| matches!(c, '\'' | '"' | '`'))
        .unwrap();
    source
        .match_indices(prefix)
        .filter_map(|(at, _)| {
            let rest = &source[at + prefix.len()..];
            let end = rest.find(close)?;
            let key = &rest[..end];
            key.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'_' || b == b'-')
                .then(|| key.to_owned())
        })
        .collect()
}

fn files_under(dir: &Path, extension: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            found.extend(files_under(&path, extension));
        } else if path.extension().is_some_and(|e| e == extension) {
            found.push(path);
        }
    }
    found
}
