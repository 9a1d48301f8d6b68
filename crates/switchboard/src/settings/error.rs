//! Why the settings could not be loaded. Each message names what to fix: the file, the key,
//! the layer the bad value came from and what was expected.

use std::path::PathBuf;

use switchboard_core::ErrorCode;

use super::origin::Origin;

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read the settings file {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("the settings file {} is not valid TOML: {message}", .path.display())]
    Syntax { path: PathBuf, message: String },
    #[error("unknown key `{key}` in the settings file {} (see `switchboard config show` for every key)", .path.display())]
    UnknownKey { key: String, path: PathBuf },
    #[error("bad `{key}` in the settings file {}: {reason}", .path.display())]
    BadNode {
        key: String,
        path: PathBuf,
        reason: String,
    },
    #[error("cannot read {} named by `{key}` in the settings file: {source}", .file.display())]
    NodeFile {
        key: String,
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("bad value for `{key}` from {origin}: {reason}; expected {expected}")]
    BadValue {
        key: String,
        origin: Origin,
        reason: String,
        expected: &'static str,
    },
}

impl SettingsError {
    pub fn code(&self) -> ErrorCode {
        ErrorCode::ValidationError
    }
}
