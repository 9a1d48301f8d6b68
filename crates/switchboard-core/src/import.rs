//! Reading the MCP server lists other clients keep, so people do not retype them.
//!
//! Three shapes are understood, told apart by their top-level key:
//! - Claude Desktop (`claude_desktop_config.json`) and Cursor (`mcp.json`):
//!   `{"mcpServers": {name: {command, args, env} | {url, headers?, type?}}}`;
//! - VS Code `mcp.json`: `{"servers": {name: {type: "stdio" | "http" | "sse", ...}}}`;
//! - VS Code `settings.json`: the same under `{"mcp": {"servers": ...}}`.
//!
//! VS Code files may contain comments and trailing commas ([`jsonc`]). Each entry becomes a
//! validated [`ServerSpec`] or an [`EntryError`] saying why not, so one bad entry is reported
//! and skipped while the rest are imported. Env variables whose names look like credentials
//! are marked secret ([`credentials`]). Fields we do not use (`envFile`, `inputs`, `gallery`
//! ...) are ignored; `${input:...}` placeholders are kept as written.
//!
//! Only the text is parsed here: the command line reads it from a file, the HTTP API takes it
//! in a request, and both store the entries their own way.
//!
//! ```
//! use switchboard_core::import::{self, Format};
//!
//! let text = r#"{"mcpServers": {
//!     "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem"],
//!               "env": {"API_KEY": "k"}},
//!     "old": {"url": "ftp://files.example.com/mcp"}
//! }}"#;
//! let imported = import::parse(text).unwrap();
//! assert_eq!(imported.format, Format::McpServers);
//! let files = imported.entries[0].outcome.as_ref().unwrap();
//! assert!(files.secret_env.contains("API_KEY"));
//! assert!(imported.entries[1].outcome.is_err());
//! ```

pub mod credentials;
pub mod jsonc;

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::{ErrorCode, ServerSpec, SpecError, TransportKind};

/// What a file without a server list should have had, for messages that name the file.
pub const EXPECTED_SERVER_LIST: &str = "expected `mcpServers` (Claude Desktop, Cursor), \
     `servers` (VS Code mcp.json) or `mcp.servers` (VS Code settings.json) holding an object";

/// Which client wrote the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Format {
    /// `mcpServers` (Claude Desktop, Cursor and others that copied it).
    McpServers,
    /// VS Code `mcp.json`.
    VsCode,
    /// VS Code `settings.json`.
    VsCodeSettings,
}

impl Format {
    pub fn describe(self) -> &'static str {
        match self {
            Format::McpServers => "mcpServers (Claude Desktop / Cursor)",
            Format::VsCode => "VS Code mcp.json",
            Format::VsCodeSettings => "VS Code settings.json",
        }
    }
}

/// One server of the file, ready to add or explained.
#[derive(Debug)]
pub struct Entry {
    pub name: String,
    pub outcome: Result<ServerSpec, EntryError>,
}

/// Everything read from one file.
#[derive(Debug)]
pub struct Imported {
    pub format: Format,
    /// Sorted by name, so reports do not depend on how `serde_json` orders objects.
    pub entries: Vec<Entry>,
}

/// Why a whole file cannot be imported. Callers that know the file's path match on it to say
/// which file, so it is not `#[non_exhaustive]`.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("the file is not valid JSON: {0}")]
    Json(#[source] serde_json::Error),
    #[error("the file has no server list: {EXPECTED_SERVER_LIST}")]
    NoServers,
}

impl ParseError {
    pub fn code(&self) -> ErrorCode {
        ErrorCode::ValidationError
    }
}

/// Why one entry was skipped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum EntryError {
    #[error("the entry is not a JSON object")]
    NotAnObject,
    #[error("`{field}` must be {expected}")]
    WrongType {
        field: String,
        expected: &'static str,
    },
    #[error("it has neither a `command` nor a `url`")]
    NoTarget,
    #[error("it has both a `command` and a `url`; set `type` to say which one to use")]
    BothTargets,
    #[error("unsupported transport type `{0}` (expected stdio, http, streamable_http or sse)")]
    UnsupportedType(String),
    #[error(transparent)]
    Invalid(#[from] SpecError),
}

impl EntryError {
    pub fn code(&self) -> ErrorCode {
        match self {
            EntryError::UnsupportedType(_) => ErrorCode::UnsupportedTransport,
            _ => ErrorCode::ValidationError,
        }
    }
}

/// Converts the text of a file (JSON, or VS Code's JSON with comments) entry by entry.
pub fn parse(text: &str) -> Result<Imported, ParseError> {
    let root: Value = serde_json::from_str(&jsonc::strip(text)).map_err(ParseError::Json)?;
    let (format, servers) = find_servers(&root).ok_or(ParseError::NoServers)?;
    let mut entries: Vec<Entry> = servers
        .iter()
        .map(|(name, value)| Entry {
            name: name.clone(),
            outcome: convert(name, value),
        })
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(Imported { format, entries })
}

fn find_servers(root: &Value) -> Option<(Format, &Map<String, Value>)> {
    if let Some(servers) = root.get("mcpServers").and_then(Value::as_object) {
        return Some((Format::McpServers, servers));
    }
    if let Some(servers) = root.get("servers").and_then(Value::as_object) {
        return Some((Format::VsCode, servers));
    }
    let nested = root.get("mcp")?.get("servers")?.as_object()?;
    Some((Format::VsCodeSettings, nested))
}

fn convert(name: &str, value: &Value) -> Result<ServerSpec, EntryError> {
    let entry = value.as_object().ok_or(EntryError::NotAnObject)?;
    let kind = string(entry, "type")?;
    let command = string(entry, "command")?;
    let url = string(entry, "url")?;
    let transport = match kind.as_deref() {
        Some(kind) => Some(transport_of(kind)?),
        None => None,
    };
    let use_stdio = match (transport, &command, &url) {
        (Some(TransportKind::Stdio), _, _) => true,
        (Some(_), _, _) => false,
        (None, Some(_), Some(_)) => return Err(EntryError::BothTargets),
        (None, Some(_), None) => true,
        (None, None, Some(_)) => false,
        (None, None, None) => return Err(EntryError::NoTarget),
    };
    // A missing command or URL is left missing, so `validate` says which one is needed.
    let mut spec = if use_stdio {
        let mut spec = ServerSpec::stdio(name, "", string_list(entry, "args")?);
        spec.command = command;
        spec.env = string_map(entry, "env")?;
        credentials::mark_secret_env(&mut spec);
        spec.cwd = string(entry, "cwd")?.map(PathBuf::from);
        spec
    } else {
        let mut spec = ServerSpec::http(name, url.clone().unwrap_or_default(), transport);
        spec.url = url;
        spec.headers = string_map(entry, "headers")?;
        spec
    };
    // Cline and a few others mark switched-off servers this way.
    if let Some(disabled) = entry.get("disabled") {
        spec.enabled = !disabled.as_bool().ok_or_else(|| EntryError::WrongType {
            field: "disabled".into(),
            expected: "true or false",
        })?;
    }
    spec.validate()?;
    Ok(spec)
}

/// The spellings of transport types found in the wild.
fn transport_of(kind: &str) -> Result<TransportKind, EntryError> {
    match kind {
        "stdio" => Ok(TransportKind::Stdio),
        "http" | "streamable_http" | "streamable-http" | "streamableHttp" => {
            Ok(TransportKind::StreamableHttp)
        }
        "sse" => Ok(TransportKind::Sse),
        other => Err(EntryError::UnsupportedType(other.to_owned())),
    }
}

fn string(entry: &Map<String, Value>, field: &str) -> Result<Option<String>, EntryError> {
    match entry.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(EntryError::WrongType {
            field: field.to_owned(),
            expected: "a string",
        }),
    }
}

fn string_list(entry: &Map<String, Value>, field: &str) -> Result<Vec<String>, EntryError> {
    let wrong = || EntryError::WrongType {
        field: field.to_owned(),
        expected: "an array of strings",
    };
    match entry.get(field) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_owned).ok_or_else(wrong))
            .collect(),
        Some(_) => Err(wrong()),
    }
}

fn string_map(
    entry: &Map<String, Value>,
    field: &str,
) -> Result<BTreeMap<String, String>, EntryError> {
    let wrong = || EntryError::WrongType {
        field: field.to_owned(),
        expected: "an object of strings",
    };
    match entry.get(field) {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(items)) => items
            .iter()
            .map(|(k, v)| Ok((k.clone(), v.as_str().ok_or_else(wrong)?.to_owned())))
            .collect(),
        Some(_) => Err(wrong()),
    }
}

#[cfg(test)]
mod tests;
