//! An entry with its settings filled in becomes a [`ServerSpec`], ready for the same checked
//! save as any other server (member rules, quotas, destinations are the caller's business).
//!
//! A value left out or empty is unset: a required setting then fails, an optional one drops
//! the argument, variable or token that names it. Values are checked for what could change
//! their meaning on the way to the process: no control characters, a path is absolute, and a
//! value that starts an argument cannot start with `-` (it would become an option).

use std::collections::BTreeMap;
use std::path::Path;

use thiserror::Error;

use super::template::{self, Piece};
use super::{Entry, Launch, Setting, SettingKind};
use crate::spec::{Auth, ServerSpec, SpecError};

/// The longest value a setting takes.
const MAX_VALUE: usize = 4096;

/// Why an entry's settings do not make a server. Never quotes a value (it may be a secret).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum FillError {
    #[error("this catalogue entry has no setting {0:?}")]
    UnknownSetting(String),
    #[error("the setting {0:?} is required")]
    MissingSetting(String),
    #[error("the setting {setting:?} {problem}")]
    BadValue {
        setting: String,
        problem: ValueProblem,
    },
    /// The server made does not validate (a bad URL after filling in, say).
    #[error(transparent)]
    Spec(#[from] SpecError),
}

impl FillError {
    /// The setting at fault, if one is.
    pub fn setting(&self) -> Option<&str> {
        match self {
            FillError::UnknownSetting(name) | FillError::MissingSetting(name) => Some(name),
            FillError::BadValue { setting, .. } => Some(setting),
            FillError::Spec(_) => None,
        }
    }
}

/// What is wrong with one value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ValueProblem {
    #[error("contains a control character (such as a line break)")]
    ControlCharacter,
    #[error("is longer than 4096 characters")]
    TooLong,
    #[error("must be an absolute path")]
    NotAbsolute,
    #[error("may not start with '-' (it would be read as an option)")]
    LeadingDash,
}

impl Entry {
    /// The server this entry makes with `values` filled in, called `name` (the entry's name
    /// when `None`).
    pub fn server_spec(
        &self,
        name: Option<&str>,
        values: &BTreeMap<String, String>,
    ) -> Result<ServerSpec, FillError> {
        let values = self.checked_values(values)?;
        let name = name.unwrap_or(&self.name);
        let mut spec = match &self.launch {
            Launch::Process(process) => {
                let mut args = Vec::with_capacity(process.args.len());
                for arg in &process.args {
                    if let Some(arg) = fill(arg, &values, true)? {
                        args.push(arg);
                    }
                }
                let mut spec = ServerSpec::stdio(name, process.command.clone(), args);
                for (key, value) in &process.env {
                    let Some(filled) = fill(value, &values, false)? else {
                        continue;
                    };
                    spec = if self.names_secret(value) {
                        spec.with_secret_env(key.clone(), filled)
                    } else {
                        spec.with_env(key.clone(), filled)
                    };
                }
                spec
            }
            Launch::Remote(remote) => {
                let mut spec = ServerSpec::http(name, &remote.url, Some(self.transport));
                if let Some(bearer) = &remote.bearer
                    && let Some(token) = fill(bearer, &values, false)?
                {
                    spec.auth = Auth::Bearer { token };
                }
                spec
            }
        };
        spec.transport = self.transport;
        spec.validate()?;
        Ok(spec)
    }

    /// The values that are set (non-empty), each checked for its kind; every required
    /// setting among them.
    fn checked_values<'a>(
        &'a self,
        values: &'a BTreeMap<String, String>,
    ) -> Result<BTreeMap<&'a str, (&'a Setting, &'a str)>, FillError> {
        if let Some(unknown) = values
            .keys()
            .find(|key| !self.settings.iter().any(|s| &s.name == *key))
        {
            return Err(FillError::UnknownSetting(unknown.clone()));
        }
        let mut set = BTreeMap::new();
        for setting in &self.settings {
            match values.get(&setting.name).filter(|v| !v.is_empty()) {
                Some(value) => {
                    check_value(setting, value)?;
                    set.insert(setting.name.as_str(), (setting, value.as_str()));
                }
                None if setting.required => {
                    return Err(FillError::MissingSetting(setting.name.clone()));
                }
                None => {}
            }
        }
        Ok(set)
    }

    fn names_secret(&self, text: &str) -> bool {
        template::names(text).into_iter().any(|name| {
            (self.settings.iter()).any(|s| s.name == name && s.kind == SettingKind::Secret)
        })
    }
}

fn check_value(setting: &Setting, value: &str) -> Result<(), FillError> {
    let bad = |problem| FillError::BadValue {
        setting: setting.name.clone(),
        problem,
    };
    if value.chars().any(char::is_control) {
        return Err(bad(ValueProblem::ControlCharacter));
    }
    if value.len() > MAX_VALUE {
        return Err(bad(ValueProblem::TooLong));
    }
    if setting.kind == SettingKind::Path && !Path::new(value).is_absolute() {
        return Err(bad(ValueProblem::NotAbsolute));
    }
    Ok(())
}

/// `text` with its placeholders filled in, or `None` when one names an unset setting. In an
/// argument, a value at its start may not start with `-`.
fn fill(
    text: &str,
    values: &BTreeMap<&str, (&Setting, &str)>,
    is_arg: bool,
) -> Result<Option<String>, FillError> {
    // The catalogue was checked when read, so every placeholder parses and is declared.
    let pieces = template::pieces(text).unwrap_or_else(|_| vec![Piece::Text(text)]);
    let mut out = String::with_capacity(text.len());
    for (i, piece) in pieces.into_iter().enumerate() {
        match piece {
            Piece::Text(text) => out.push_str(text),
            Piece::Setting(name) => {
                let Some((setting, value)) = values.get(name) else {
                    return Ok(None);
                };
                if is_arg && i == 0 && value.starts_with('-') {
                    return Err(FillError::BadValue {
                        setting: setting.name.clone(),
                        problem: ValueProblem::LeadingDash,
                    });
                }
                out.push_str(value);
            }
        }
    }
    Ok(Some(out))
}
