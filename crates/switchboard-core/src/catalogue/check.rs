//! What makes a catalogue entry complete: a name to add it by, words for a person, a launch
//! pinned to one version and fitting its transport, the tools it offers, and settings that
//! are each declared once, each used, and never a secret on a command line.

use std::collections::BTreeSet;

use thiserror::Error;

use super::template;
use super::{Entry, Launch, SettingKind};
use crate::spec::TransportKind;
use crate::spec::parse_http_url;

/// Why a catalogue file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum CatalogueError {
    /// Not JSON, or not the shape of a list of entries.
    #[error("the catalogue does not parse: {0}")]
    Parse(String),
    /// One entry is incomplete or inconsistent.
    #[error("catalogue entry {entry:?}: {problem}")]
    Entry {
        entry: String,
        problem: EntryProblem,
    },
}

/// What is wrong with one entry.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum EntryProblem {
    #[error("the name must be lowercase ASCII letters, digits and '-'")]
    BadName,
    #[error("another entry has the same name")]
    Duplicate,
    #[error("{0} must not be empty")]
    Empty(&'static str),
    #[error("the tool {0:?} is listed twice")]
    DuplicateTool(String),
    #[error("the setting name {0:?} must be lowercase letters, digits and '_'")]
    BadSettingName(String),
    #[error("the setting {0:?} is declared twice")]
    DuplicateSetting(String),
    #[error("{field}: {{{{{name}}}}} names no declared setting")]
    UndeclaredSetting { field: String, name: String },
    #[error("the setting {0:?} is declared but never used")]
    UnusedSetting(String),
    #[error("{0}: a secret setting may not be on the command line (use env)")]
    SecretInArgs(String),
    #[error("{field}: a placeholder is not closed or not a setting name")]
    Template { field: String },
    #[error("the launch does not fit the transport {0}")]
    TransportMismatch(TransportKind),
    #[error("the launch is not pinned to one version ({0})")]
    NotPinned(String),
    #[error("the URL is not an http(s) URL")]
    BadUrl,
}

/// Checks every entry, and that no two share a name.
pub(super) fn entries(entries: &[Entry]) -> Result<(), CatalogueError> {
    let mut names = BTreeSet::new();
    for entry in entries {
        let fail = |problem| CatalogueError::Entry {
            entry: entry.name.clone(),
            problem,
        };
        if !names.insert(entry.name.as_str()) {
            return Err(fail(EntryProblem::Duplicate));
        }
        entry_alone(entry).map_err(fail)?;
    }
    Ok(())
}

fn entry_alone(entry: &Entry) -> Result<(), EntryProblem> {
    let name_ok = !entry.name.is_empty()
        && entry
            .name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !name_ok {
        return Err(EntryProblem::BadName);
    }
    for (field, text) in [("title", &entry.title), ("description", &entry.description)] {
        if text.trim().is_empty() {
            return Err(EntryProblem::Empty(field));
        }
    }
    if entry.tools.is_empty() {
        return Err(EntryProblem::Empty("tools"));
    }
    let mut tools = BTreeSet::new();
    if let Some(twice) = entry.tools.iter().find(|tool| !tools.insert(tool.as_str())) {
        return Err(EntryProblem::DuplicateTool(twice.clone()));
    }
    settings(entry)?;
    launch(entry)
}

fn settings(entry: &Entry) -> Result<(), EntryProblem> {
    let mut declared = BTreeSet::new();
    for setting in &entry.settings {
        if !template::is_name(&setting.name) {
            return Err(EntryProblem::BadSettingName(setting.name.clone()));
        }
        if setting.label.trim().is_empty() {
            return Err(EntryProblem::Empty("settings[].label"));
        }
        if !declared.insert(setting.name.as_str()) {
            return Err(EntryProblem::DuplicateSetting(setting.name.clone()));
        }
    }
    let mut used = BTreeSet::new();
    for (field, text) in launch_strings(&entry.launch) {
        if template::pieces(text).is_err() {
            return Err(EntryProblem::Template { field });
        }
        for name in template::names(text) {
            let Some(setting) = entry.settings.iter().find(|s| s.name == name) else {
                return Err(EntryProblem::UndeclaredSetting {
                    field,
                    name: name.to_owned(),
                });
            };
            if setting.kind == SettingKind::Secret && field.starts_with("args") {
                return Err(EntryProblem::SecretInArgs(field));
            }
            used.insert(name);
        }
    }
    match declared.difference(&used).next() {
        Some(unused) => Err(EntryProblem::UnusedSetting((*unused).to_owned())),
        None => Ok(()),
    }
}

/// Every string of a launch that may hold placeholders, with its field name.
fn launch_strings(launch: &Launch) -> Vec<(String, &str)> {
    match launch {
        Launch::Process(process) => {
            let args = (process.args.iter().enumerate())
                .map(|(i, arg)| (format!("args[{i}]"), arg.as_str()));
            let env =
                (process.env.iter()).map(|(key, value)| (format!("env.{key}"), value.as_str()));
            args.chain(env).collect()
        }
        Launch::Remote(remote) => (remote.bearer.iter())
            .map(|bearer| ("bearer".to_owned(), bearer.as_str()))
            .collect(),
    }
}

/// A process launch runs one pinned package through `npx -y pkg@VERSION` or
/// `uvx pkg==VERSION`; a remote one is an http(s) URL on an HTTP transport.
fn launch(entry: &Entry) -> Result<(), EntryProblem> {
    match (&entry.launch, entry.transport) {
        (Launch::Process(process), TransportKind::Stdio) => {
            let package = match process.command.as_str() {
                "npx" => match process.args.as_slice() {
                    [yes, package, ..] if yes == "-y" => package,
                    _ => return Err(EntryProblem::NotPinned("npx needs -y and a package".into())),
                },
                "uvx" => match process.args.first() {
                    Some(package) => package,
                    None => return Err(EntryProblem::NotPinned("uvx needs a package".into())),
                },
                other => {
                    return Err(EntryProblem::NotPinned(format!(
                        "unknown launcher {other:?}"
                    )));
                }
            };
            if pinned(&process.command, package) {
                Ok(())
            } else {
                Err(EntryProblem::NotPinned(package.clone()))
            }
        }
        (Launch::Remote(remote), transport) if transport.is_http() => parse_http_url(&remote.url)
            .map(|_| ())
            .map_err(|_| EntryProblem::BadUrl),
        (_, transport) => Err(EntryProblem::TransportMismatch(transport)),
    }
}

/// `@scope/name@1.2.3` for npx, `name==1.2.3` for uvx: a version that starts with a digit.
fn pinned(launcher: &str, package: &str) -> bool {
    let version = match launcher {
        // The version's `@` is the last one, after a scope's leading `@`.
        "npx" => package
            .rsplit_once('@')
            .filter(|(name, _)| !name.is_empty())
            .map(|(_, version)| version),
        _ => package.split_once("==").map(|(_, version)| version),
    };
    version.is_some_and(|v| {
        v.starts_with(|c: char| c.is_ascii_digit())
            && v.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
    })
}
