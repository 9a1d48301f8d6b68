//! Where the command line keeps its servers until the storage crate lands: a JSON array of
//! [`ServerSpec`] in `<data-dir>/servers.json`.
//!
//! The file holds credentials and is the only copy of the user's configuration, so:
//! - it is replaced atomically (written to a temporary file in the same directory, flushed,
//!   then renamed over the old one), so a crash leaves either the old or the new list;
//! - on Unix the temporary file is created readable by its owner only, and the rename keeps
//!   that;
//! - a file that does not parse is an error naming the file, and is never overwritten: the
//!   user fixes or moves it. A missing file is simply an empty list.
//!
//! Two commands racing can still lose one update (last rename wins); the storage crate, with
//! its transactions, replaces this file.

use std::io::Write;
use std::path::{Path, PathBuf};

use switchboard_core::{ErrorCode, ServerSpec};

/// The servers file inside a data directory.
#[derive(Debug, Clone)]
pub struct ServerFile {
    path: PathBuf,
}

/// Why the servers file could not be read or written.
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
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl ServerFileError {
    pub fn code(&self) -> ErrorCode {
        match self {
            // The user can fix the file; nothing is wrong inside Switchboard.
            ServerFileError::Corrupt { .. } => ErrorCode::ValidationError,
            ServerFileError::Read { .. } | ServerFileError::Write { .. } => {
                ErrorCode::InternalError
            }
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

    /// Every configured server, in the order they were added; empty if the file does not
    /// exist yet.
    pub fn load(&self) -> Result<ServerList, ServerFileError> {
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(ServerList::default());
            }
            Err(source) => {
                return Err(ServerFileError::Read {
                    path: self.path.clone(),
                    source,
                });
            }
        };
        let servers = serde_json::from_str(&text).map_err(|source| ServerFileError::Corrupt {
            path: self.path.clone(),
            source,
        })?;
        Ok(ServerList(servers))
    }

    /// Replaces the file with `servers`, creating the data directory if needed.
    pub fn save(&self, servers: &ServerList) -> Result<(), ServerFileError> {
        let write_error = |source| ServerFileError::Write {
            path: self.path.clone(),
            source,
        };
        let dir = match self.path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => dir,
            _ => Path::new("."),
        };
        std::fs::create_dir_all(dir).map_err(write_error)?;
        let mut json = serde_json::to_string_pretty(&servers.0)
            .map_err(|error| write_error(std::io::Error::other(error)))?;
        json.push('\n');

        let mut temp = tempfile::Builder::new()
            .prefix(".servers.json.")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(write_error)?;
        temp.write_all(json.as_bytes()).map_err(write_error)?;
        temp.as_file().sync_all().map_err(write_error)?;
        temp.persist(&self.path)
            .map_err(|error| write_error(error.error))?;
        // Make the rename itself durable; not every platform can open a directory, and the
        // data is already safe in either name, so a failure here is only logged.
        if let Err(error) = std::fs::File::open(dir).and_then(|d| d.sync_all()) {
            tracing::debug!(%error, "could not sync the data directory");
        }
        Ok(())
    }
}

/// The configured servers, looked up by name (or, failing that, by id).
#[derive(Debug, Clone, Default)]
pub struct ServerList(Vec<ServerSpec>);

/// What [`ServerList::put`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Put {
    Added,
    Replaced,
}

/// Why [`ServerList::put`] refused a server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Clash {
    #[error("a server named `{0}` already exists")]
    SameName(String),
    #[error("the name `{name}` has the id `{id}`, which server `{other}` already uses")]
    SameId {
        name: String,
        id: String,
        other: String,
    },
}

impl ServerList {
    pub fn iter(&self) -> impl Iterator<Item = &ServerSpec> {
        self.0.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The server called `name`, or else the one whose id is `name`.
    pub fn get(&self, name: &str) -> Option<&ServerSpec> {
        self.position(name).and_then(|i| self.0.get(i))
    }

    /// Adds `spec`, or replaces the server of the same name when `replace` is set. Names and
    /// ids are both unique; a new name whose id another server has is always refused, since
    /// replacing that server would be a surprise.
    pub fn put(&mut self, spec: ServerSpec, replace: bool) -> Result<Put, Clash> {
        let same_name = self.0.iter().position(|s| s.name == spec.name);
        let other_with_id = self
            .0
            .iter()
            .enumerate()
            .find(|(i, s)| s.id == spec.id && Some(*i) != same_name);
        if let Some((_, other)) = other_with_id {
            return Err(Clash::SameId {
                name: spec.name.clone(),
                id: spec.id.0.clone(),
                other: other.name.clone(),
            });
        }
        match same_name {
            Some(_) if !replace => Err(Clash::SameName(spec.name)),
            Some(index) => {
                if let Some(slot) = self.0.get_mut(index) {
                    *slot = spec;
                }
                Ok(Put::Replaced)
            }
            None => {
                self.0.push(spec);
                Ok(Put::Added)
            }
        }
    }

    /// Removes and returns the server called (or with the id) `name`.
    pub fn remove(&mut self, name: &str) -> Option<ServerSpec> {
        self.position(name).map(|i| self.0.remove(i))
    }

    fn position(&self, name: &str) -> Option<usize> {
        self.0
            .iter()
            .position(|s| s.name == name)
            .or_else(|| self.0.iter().position(|s| s.id.0 == name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo(name: &str) -> ServerSpec {
        ServerSpec::stdio(name, "switchboard", ["demo-server"])
    }

    #[test]
    fn missing_file_is_an_empty_list_and_save_creates_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = ServerFile::in_dir(&dir.path().join("nested/data"));
        assert!(file.load().unwrap().is_empty());

        let mut list = ServerList::default();
        list.put(demo("one"), false).unwrap();
        list.put(demo("two"), false).unwrap();
        file.save(&list).unwrap();

        let back = file.load().unwrap();
        let names: Vec<&str> = back.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["one", "two"]);
        // Only the file itself is left behind, no temporary files.
        let entries = std::fs::read_dir(dir.path().join("nested/data"))
            .unwrap()
            .count();
        assert_eq!(entries, 1);
    }

    #[cfg(unix)]
    #[test]
    fn the_file_is_private_to_its_owner() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = ServerFile::in_dir(dir.path());
        file.save(&ServerList::default()).unwrap();
        let mode = std::fs::metadata(file.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
    }

    #[test]
    fn a_corrupt_file_is_an_error_and_stays_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let file = ServerFile::in_dir(dir.path());
        std::fs::write(file.path(), "[{\"name\": oops").unwrap();
        let error = file.load().unwrap_err();
        assert!(matches!(error, ServerFileError::Corrupt { .. }), "{error}");
        assert!(error.to_string().contains("servers.json"), "{error}");
        assert_eq!(
            std::fs::read_to_string(file.path()).unwrap(),
            "[{\"name\": oops"
        );
    }

    #[test]
    fn names_and_ids_are_unique() {
        let mut list = ServerList::default();
        assert_eq!(list.put(demo("Files"), false), Ok(Put::Added));
        assert_eq!(
            list.put(demo("Files"), false),
            Err(Clash::SameName("Files".into()))
        );
        assert_eq!(list.put(demo("Files"), true), Ok(Put::Replaced));
        // "files" slugs to the same id as "Files".
        assert!(matches!(
            list.put(demo("files"), true),
            Err(Clash::SameId { .. })
        ));
        assert_eq!(list.iter().count(), 1);
    }

    #[test]
    fn lookup_by_name_then_id() {
        let mut list = ServerList::default();
        list.put(demo("My Files"), false).unwrap();
        assert!(list.get("My Files").is_some());
        assert!(list.get("my-files").is_some());
        assert!(list.get("nope").is_none());
        assert_eq!(
            list.remove("my-files").map(|s| s.name),
            Some("My Files".into())
        );
        assert!(list.is_empty());
    }
}
