//! The servers file of earlier versions, brought into the store once.
//!
//! When `<data-dir>/servers.json` exists, its servers are offered to the store under the
//! marker `servers.json`: the first time, the store adds every one whose name and id are free,
//! in one transaction, and remembers that it did; every later time it adds nothing. The file
//! itself is never changed, moved or deleted, and after the import it is not read again. A file
//! that does not parse stops the command with the file's own error, so nothing is
//! half-imported.
//!
//! Earlier versions had no secret env variables; those whose names look like credentials are
//! marked secret on the way in, as `switchboard import` does.

use std::path::Path;

use anyhow::Context as _;
use switchboard_core::OwnerId;
use switchboard_core::import::credentials;
use switchboard_store::prelude::*;

use crate::server_file::ServerFile;

/// The marker the store keeps the import under.
const MARKER: &str = ServerFile::FILE_NAME;

/// Imports the servers file in `data_dir` into `store` for `owner`, unless that was done.
/// Says on stderr what it brought in.
pub async fn import_once(
    store: &dyn Store,
    owner: &OwnerId,
    data_dir: &Path,
) -> anyhow::Result<()> {
    let file = ServerFile::in_dir(data_dir);
    // Once imported, the file is not even read: a later edit or breakage is not our business.
    if store.imported(owner, MARKER).await? {
        return Ok(());
    }
    let Some(mut specs) = file.load()? else {
        return Ok(());
    };
    specs.iter_mut().for_each(credentials::mark_secret_env);
    let imported = store
        .import_servers_once(owner, MARKER, &specs)
        .await
        .with_context(|| format!("cannot import the servers of {}", file.path().display()))?;
    if let Some(count) = imported {
        let skipped = specs.len().saturating_sub(count);
        if count > 0 || skipped > 0 {
            errln!("{}", notice(count, skipped, file.path()));
        }
    }
    Ok(())
}

fn notice(count: usize, skipped: usize, path: &Path) -> String {
    let plural = if count == 1 { "" } else { "s" };
    let skipped = if skipped > 0 {
        format!(" ({skipped} skipped: their name or id was already taken)")
    } else {
        String::new()
    };
    format!(
        "imported {count} server{plural} from {}{skipped}; the file is no longer read",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notice_says_what_happened() {
        let path = Path::new("/d/servers.json");
        assert_eq!(
            notice(2, 0, path),
            "imported 2 servers from /d/servers.json; the file is no longer read"
        );
        assert_eq!(
            notice(1, 1, path),
            "imported 1 server from /d/servers.json (1 skipped: their name or id was already \
             taken); the file is no longer read"
        );
    }
}
