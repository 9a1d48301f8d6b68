//! The catalogue of ready servers: seed 002's `MODELSCOPE_MCP_PRESETS` and the well-known
//! reference servers, kept as data (`catalogue/servers.json` at the repository's root) rather
//! than code, so an entry is added or a version bumped without touching a line of Rust.
//!
//! An entry says how the server is launched, pinned (`npx -y @scope/pkg@VERSION`,
//! `uvx pkg==VERSION`, or a URL), what it offers (its tools, checked against the real servers
//! by the peer tests) and what a person must fill in before it can run (a root folder, an API
//! key). Settings reach the launch through `{{name}}` placeholders in `args`, `env` values and
//! the remote `bearer` token; an argument or variable naming an optional setting left empty is
//! dropped whole. A secret setting may only reach `env` or `bearer`, never an argument: the
//! command line is shown on cards and in process lists, and env and tokens are sealed at rest.
//!
//! The file is checked when it is read ([`Catalogue::parse`]), and a unit test reads the
//! embedded one, so a broken entry fails the build's tests, not a person's click.
//!
//! ```
//! use std::collections::BTreeMap;
//! use switchboard_core::catalogue::Catalogue;
//!
//! let catalogue = Catalogue::embedded().unwrap();
//! let entry = catalogue.entry("filesystem").unwrap();
//! let settings = BTreeMap::from([("root".to_owned(), "/srv/notes".to_owned())]);
//! let spec = entry.server_spec(None, &settings).unwrap();
//! assert_eq!(spec.args.last().map(String::as_str), Some("/srv/notes"));
//! ```

mod check;
mod fill;
mod template;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::spec::TransportKind;

pub use check::{CatalogueError, EntryProblem};
pub use fill::{FillError, ValueProblem};

/// The catalogue as shipped with this build.
const EMBEDDED: &str = include_str!("../../../catalogue/servers.json");

/// Every entry of the catalogue, in the file's order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalogue {
    entries: Vec<Entry>,
}

impl Catalogue {
    /// The catalogue shipped with this build.
    pub fn embedded() -> Result<Catalogue, CatalogueError> {
        Catalogue::parse(EMBEDDED)
    }

    /// Reads and checks a catalogue file: a JSON array of [`Entry`].
    pub fn parse(text: &str) -> Result<Catalogue, CatalogueError> {
        let entries: Vec<Entry> =
            serde_json::from_str(text).map_err(|e| CatalogueError::Parse(e.to_string()))?;
        check::entries(&entries)?;
        Ok(Catalogue { entries })
    }

    /// A catalogue of `entries`, checked as a file is (tests point entries at local peers).
    pub fn from_entries(entries: Vec<Entry>) -> Result<Catalogue, CatalogueError> {
        check::entries(&entries)?;
        Ok(Catalogue { entries })
    }

    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// The entry called `name`.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.entries.iter().find(|entry| entry.name == name)
    }
}

/// One ready server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = CatalogueEntry))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Entry {
    /// The entry's key (`filesystem`, `modelscope-fetch`), and the server's default name.
    pub name: String,
    pub title: String,
    pub description: String,
    pub source: Source,
    pub transport: TransportKind,
    pub launch: Launch,
    /// The tools the server offers (checked against the real servers by the peer tests).
    pub tools: Vec<String>,
    /// What a person fills in before adding the server.
    #[serde(default)]
    pub settings: Vec<Setting>,
}

/// Where an entry comes from; a server added from it is marked with this as its
/// `presetType`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = CatalogueSource))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Source {
    /// The MCP project's reference servers.
    Reference,
    /// Seed 002's ModelScope presets.
    Modelscope,
}

impl Source {
    /// The name written in JSON, and stored as a server's `presetType`.
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Reference => "reference",
            Source::Modelscope => "modelscope",
        }
    }
}

/// How the server is reached: a process started on the host, or a URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = CatalogueLaunch))]
#[serde(untagged)]
pub enum Launch {
    Process(ProcessLaunch),
    Remote(RemoteLaunch),
}

/// A stdio server's command line, pinned to one version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct ProcessLaunch {
    pub command: String,
    /// May hold `{{setting}}` placeholders (never a secret's).
    #[serde(default)]
    pub args: Vec<String>,
    /// Environment variables; values may hold `{{setting}}` placeholders.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
}

/// A remote server's URL.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct RemoteLaunch {
    pub url: String,
    /// Sent as `Authorization: Bearer ...`, usually one secret setting (`{{api_key}}`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer: Option<String>,
}

/// One value a person fills in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = CatalogueSetting))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Setting {
    /// The placeholder's name (`root`, `api_key`).
    pub name: String,
    /// What a form calls it.
    pub label: String,
    pub kind: SettingKind,
    #[serde(default)]
    pub required: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// What a setting holds, which decides how it is checked and shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "openapi", schema(as = CatalogueSettingKind))]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum SettingKind {
    /// An absolute path on the host.
    Path,
    /// A key or token: masked in forms, sealed at rest, never on a command line.
    Secret,
    /// Plain text.
    Text,
}
