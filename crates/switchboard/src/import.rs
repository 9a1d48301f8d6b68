//! Reading another client's MCP server list from disk; the parsing itself is
//! [`switchboard_core::import`], shared with the HTTP API's import.

use std::path::{Path, PathBuf};

use switchboard_core::ErrorCode;
use switchboard_core::import::{EXPECTED_SERVER_LIST, Imported, ParseError};

/// Why a whole file cannot be imported.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not valid JSON: {source}", .path.display())]
    Parse {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
    #[error("{} has no server list: {EXPECTED_SERVER_LIST}", .path.display())]
    NoServers { path: PathBuf },
}

impl ImportError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ImportError::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
                ErrorCode::NotFound
            }
            ImportError::Read { .. } => ErrorCode::InternalError,
            ImportError::Parse { .. } | ImportError::NoServers { .. } => ErrorCode::ValidationError,
        }
    }
}

/// Reads and converts the file at `path`.
pub fn read_file(path: &Path) -> Result<Imported, ImportError> {
    let text = std::fs::read_to_string(path).map_err(|source| ImportError::Read {
        path: path.to_owned(),
        source,
    })?;
    switchboard_core::import::parse(&text).map_err(|error| match error {
        ParseError::Json(source) => ImportError::Parse {
            path: path.to_owned(),
            source,
        },
        ParseError::NoServers => ImportError::NoServers {
            path: path.to_owned(),
        },
    })
}
