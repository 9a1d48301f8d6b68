//! The layers one value is looked up in, highest first: a flag, an environment variable, the
//! settings file, the default. Each lookup is recorded for `config show`, and each file key
//! read is crossed off, so whatever is left in the file afterwards is a key nobody reads: a
//! typo, reported rather than ignored.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::error::SettingsError;
use super::key::Key;
use super::origin::Origin;
use super::value::SettingValue;

/// Where the settings file is.
#[derive(Debug, Clone)]
pub enum FileChoice {
    /// Named with `--config` (or `SWITCHBOARD_CONFIG`): it must exist.
    Given(PathBuf),
    /// `<data-dir>/switchboard.toml`: read when it exists.
    Default(PathBuf),
}

/// The settings file, flattened to dotted keys (`manager.retry.max_retries`).
#[derive(Debug)]
pub struct SettingsFile {
    path: PathBuf,
    values: BTreeMap<String, toml::Value>,
}

impl SettingsFile {
    /// Reads the chosen file; `None` when the default file does not exist.
    pub fn read(choice: &FileChoice) -> Result<Option<Self>, SettingsError> {
        let (path, required) = match choice {
            FileChoice::Given(path) => (path, true),
            FileChoice::Default(path) => (path, false),
        };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(error) if !required && error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(source) => {
                return Err(SettingsError::Read {
                    path: path.clone(),
                    source,
                });
            }
        };
        Self::parse(path, &text).map(Some)
    }

    pub fn parse(path: &Path, text: &str) -> Result<Self, SettingsError> {
        let table: toml::Table =
            text.parse()
                .map_err(|e: toml::de::Error| SettingsError::Syntax {
                    path: path.to_owned(),
                    message: e.to_string().trim().to_owned(),
                })?;
        let mut values = BTreeMap::new();
        flatten("", table, &mut values);
        Ok(Self {
            path: path.to_owned(),
            values,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

fn flatten(prefix: &str, table: toml::Table, into: &mut BTreeMap<String, toml::Value>) {
    for (name, value) in table {
        let key = if prefix.is_empty() {
            name
        } else {
            format!("{prefix}.{name}")
        };
        match value {
            toml::Value::Table(inner) => flatten(&key, inner, into),
            leaf => {
                into.insert(key, leaf);
            }
        }
    }
}

/// One effective value, as `config show` prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    pub key: String,
    /// TOML syntax; `"***"` for a secret that is set.
    pub value: String,
    pub origin: Origin,
    pub env: Option<&'static str>,
    pub flag: Option<&'static str>,
}

/// The lookup of every value, with what was found recorded.
pub struct Layers<'a> {
    file: Option<SettingsFile>,
    env: &'a dyn Fn(&str) -> Option<String>,
    shown: Vec<Shown>,
}

impl<'a> Layers<'a> {
    pub fn new(file: Option<SettingsFile>, env: &'a dyn Fn(&str) -> Option<String>) -> Self {
        Self {
            file,
            env,
            shown: Vec::new(),
        }
    }

    /// The value of `key`: from `flag` (what clap collected; empty when not given), its
    /// environment variable, the file or the default, in that order. An empty environment
    /// variable counts as unset.
    pub fn take<T: SettingValue>(
        &mut self,
        key: &Key,
        flag: &[String],
    ) -> Result<T, SettingsError> {
        let path = key.path();
        let in_file = self
            .file
            .as_mut()
            .and_then(|file| file.values.remove(&path).map(|v| (file.path.clone(), v)));
        let from_env = key
            .env
            .and_then(|name| (self.env)(name).map(|value| (name, value)))
            .filter(|(_, value)| !value.trim().is_empty());
        let (read, origin) = match (key.flag, from_env, in_file) {
            (Some(name), _, _) if !flag.is_empty() => (T::from_flags(flag), Origin::Flag(name)),
            (_, Some((name, text)), _) => (T::from_text(&text), Origin::Env(name)),
            (_, None, Some((file, value))) => (T::from_toml(&value), Origin::File(file)),
            _ => (T::from_text(key.default), Origin::Default),
        };
        let value = read.map_err(|reason| SettingsError::BadValue {
            key: path.clone(),
            origin: origin.clone(),
            reason,
            expected: T::EXPECTED,
        })?;
        self.note(key, value.to_toml(), origin);
        Ok(value)
    }

    /// Records a value read elsewhere (the global options), for `config show`.
    pub fn note(&mut self, key: &Key, value: String, origin: Origin) {
        let value = if key.secret && value != "\"\"" {
            "\"***\"".to_owned()
        } else {
            value
        };
        self.shown.push(Shown {
            key: key.path(),
            value,
            origin,
            env: key.env,
            flag: key.flag,
        });
    }

    /// The names of the file's tables under `section` (`build-box` for `[nodes.build-box]`
    /// under `nodes`): sections whose tables are named by the user, so no static [`Key`]
    /// names their keys. A value directly under `section` is no table; it stays unread and
    /// [`Layers::finish`] reports it.
    pub fn tables_in(&self, section: &str) -> Vec<String> {
        let prefix = format!("{section}.");
        let mut names: Vec<String> = self
            .file
            .iter()
            .flat_map(|file| file.values.keys())
            .filter_map(|key| {
                let (name, rest) = key.strip_prefix(&prefix)?.split_once('.')?;
                (!rest.is_empty()).then(|| name.to_owned())
            })
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// The settings file's path, when there is one.
    pub fn file_path(&self) -> Option<&Path> {
        self.file.as_ref().map(SettingsFile::path)
    }

    /// Takes the file's value at the dotted `path` (a key of a user-named table, see
    /// [`Layers::tables_in`]); crossed off like [`Layers::take`]'s.
    pub fn take_file(&mut self, path: &str) -> Option<toml::Value> {
        self.file.as_mut()?.values.remove(path)
    }

    /// Records a value read with [`Layers::take_file`], for `config show` (`value` is TOML, and
    /// `"***"` already for a secret).
    pub fn note_file(&mut self, path: String, value: String, file: PathBuf) {
        self.shown.push(Shown {
            key: path,
            value,
            origin: Origin::File(file),
            env: None,
            flag: None,
        });
    }

    /// Ends the lookup: an error for the first key in the file that nothing read.
    pub fn finish(self) -> Result<Vec<Shown>, SettingsError> {
        if let Some(file) = self.file
            && let Some(key) = file.values.keys().next()
        {
            return Err(SettingsError::UnknownKey {
                key: key.clone(),
                path: file.path,
            });
        }
        Ok(self.shown)
    }
}
