//! The servers file of earlier versions: a JSON array of [`ServerSpec`] in
//! `<data-dir>/servers.json`.
//!
//! The store replaced it. It is only read, once, to bring its servers into the store (see
//! `cli::legacy`), and never written, moved or deleted: it stays as the user left it. A file
//! that does not parse is an error naming the file; the user fixes or moves it.

use std::path::{Path, PathBuf};

use switchboard_core::{ErrorCode, ServerSpec};

/// The servers file inside a data directory.
#[derive(Debug, Clone)]
pub struct ServerFile {
    path: PathBuf,
}

/// Why the servers file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ServerFileError {
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{} is not a valid servers file ({source}); it was left untouched, fix or move it",
        .path.display()
    )]
    Corrupt {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

impl ServerFileError {
    pub fn code(&self) -> ErrorCode {
        match self {
            // The user can fix the file; nothing is wrong inside Switchboard.
            ServerFileError::Corrupt { .. } => ErrorCode::ValidationError,
            ServerFileError::Read { .. } => ErrorCode::InternalError,
        }
    }
}

impl ServerFile {
    pub const FILE_NAME: &'static str = "servers.json";

    pub fn in_dir(data_dir: &Path) -> Self {
        Self {
            path: data_dir.join(Self::FILE_NAME),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The servers in the file, in its order; `None` when there is no file.
    pub fn load(&self) -> Result<Option<Vec<ServerSpec>>, ServerFileError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(ServerFileError::Read {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        serde_json::from_str(&text)
            .map(Some)
            .map_err(|source| ServerFileError::Corrupt {
                path: self.path.clone(),
                source,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let file = ServerFile::in_dir(&dir.path().join("nested/data"));
        assert!(file.load().unwrap().is_none());
        assert!(!dir.path().join("nested").exists());
    }

    #[test]
    fn servers_are_read_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let file = ServerFile::in_dir(dir.path());
        let specs = [
            ServerSpec::stdio("one", "switchboard", ["demo-server"]),
            ServerSpec::http("two", "https://h.example/mcp", None),
        ];
        std::fs::write(file.path(), serde_json::to_string(&specs).unwrap()).unwrap();
        let back = file.load().unwrap().unwrap();
        assert_eq!(back, specs);
    }

    #[test]
    fn a_corrupt_file_is_an_error_and_stays_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let file = ServerFile::in_dir(dir.path());
        std::fs::write(file.path(), "[{\"name\": oops").unwrap();
        let error = file.load().unwrap_err();
        assert!(matches!(error, ServerFileError::Corrupt { .. }), "{error}");
        assert!(error.to_string().contains("servers.json"), "{error}");
        assert_eq!(error.code(), ErrorCode::ValidationError);
        assert_eq!(
            std::fs::read_to_string(file.path()).unwrap(),
            "[{\"name\": oops"
        );
    }
}
