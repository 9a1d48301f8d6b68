//! Finding a stdio server's program before it is started under the [guard](crate::guard).
//!
//! Started directly, a program that does not exist fails the spawn, which is reported as
//! [`McpError::Spawn`](crate::McpError::Spawn) and not retried. Under a guard the spawn of the
//! guard succeeds and the guard fails to start the program; without this check that would
//! look like a server closing the connection during the handshake, which is retried. So the
//! program is looked up first, as `execvp` in the guard will look it up: a name with a `/`
//! relative to the working directory, any other name in the `PATH` it will have.

use std::ffi::OsStr;
use std::io::Error;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use nix::errno::Errno;

/// `execvp`'s search path when `PATH` is not set (glibc's `_CS_PATH`).
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// Whether `program` can be found as an executable file, with `path` the `PATH` of its
/// environment and `cwd` the directory it starts in (`None`: ours).
pub fn find(program: &str, path: Option<&OsStr>, cwd: Option<&Path>) -> Result<(), Error> {
    let within_cwd = |candidate: PathBuf| match cwd {
        Some(cwd) => cwd.join(candidate),
        None => candidate,
    };
    let candidates: Vec<PathBuf> = if program.contains('/') {
        vec![within_cwd(PathBuf::from(program))]
    } else {
        let path = path.unwrap_or(OsStr::new(DEFAULT_PATH));
        std::env::split_paths(path)
            .map(|dir| within_cwd(dir.join(program)))
            .collect()
    };
    let mut found = false;
    for candidate in candidates {
        let Ok(metadata) = std::fs::metadata(&candidate) else {
            continue;
        };
        if metadata.is_file() && metadata.permissions().mode() & 0o111 != 0 {
            return Ok(());
        }
        found = true;
    }
    // As the spawn would have said it.
    Err(Error::from(if found {
        Errno::EACCES
    } else {
        Errno::ENOENT
    }))
}

#[cfg(test)]
mod tests {
    use std::io::ErrorKind;

    use super::*;

    #[test]
    fn programs_are_found_as_execvp_finds_them() {
        let dir = tempfile::tempdir().expect("temp dir");
        let tool = dir.path().join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").expect("write");
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "not a program").expect("write");
        let path = std::env::join_paths(["/nowhere".as_ref(), dir.path()]).expect("join");

        assert!(find("tool", Some(&path), None).is_ok());
        assert!(find("./tool", None, Some(dir.path())).is_ok());
        assert!(find(tool.to_str().expect("utf-8"), None, None).is_ok());
        assert!(find("sh", None, None).is_ok(), "the default PATH");

        let kind = |result: Result<(), Error>| result.map_err(|error| error.kind());
        assert_eq!(
            kind(find("missing", Some(&path), None)),
            Err(ErrorKind::NotFound)
        );
        assert_eq!(kind(find("./tool", None, None)), Err(ErrorKind::NotFound));
        assert_eq!(
            kind(find("plain", Some(&path), None)),
            Err(ErrorKind::PermissionDenied)
        );
        assert_eq!(
            kind(find("subdir", Some(dir.path().as_os_str()), None)),
            Err(ErrorKind::NotFound)
        );
    }
}
