//! The environment a stdio server starts with.
//!
//! Not Switchboard's whole environment: that holds Switchboard's own secrets
//! (`SWITCHBOARD_SECRET_KEY`, which opens every stored credential, `DATABASE_URL`, provider API
//! keys), and a stdio server is often third-party code fetched by `npx` or `uvx`. A server
//! inherits only what a program needs to run, the list the official MCP SDKs use (`HOME`,
//! `LOGNAME`, `PATH`, `SHELL`, `TERM`, `USER`) plus the locale, time zone and temp directory,
//! and then gets its configured `env` on top. A server that needs more says so in its `env`.

use std::collections::BTreeMap;
use std::ffi::OsString;

const INHERITED: &[&str] = &[
    "HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR",
    "TZ",
];

/// The child's environment: the inherited subset of `parent`, then `configured` over it.
pub(crate) fn child_env(
    parent: impl IntoIterator<Item = (OsString, OsString)>,
    configured: &BTreeMap<String, String>,
) -> Vec<(OsString, OsString)> {
    let mut env: BTreeMap<OsString, OsString> = parent
        .into_iter()
        .filter(|(key, _)| INHERITED.iter().any(|name| key == name))
        .collect();
    for (key, value) in configured {
        env.insert(key.into(), value.into());
    }
    env.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        list.iter()
            .map(|(k, v)| ((*k).into(), (*v).into()))
            .collect()
    }

    #[test]
    fn only_the_basics_are_inherited_and_configured_values_win() {
        let parent = pairs(&[
            ("PATH", "/usr/bin"),
            ("HOME", "/root"),
            ("SWITCHBOARD_SECRET_KEY", "k"),
            ("DATABASE_URL", "postgres://u:p@db/x"),
            ("OPENAI_API_KEY", "sk"),
            ("LANG", "C.UTF-8"),
        ]);
        let configured = BTreeMap::from([
            ("GITHUB_TOKEN".to_owned(), "ghp".to_owned()),
            ("LANG".to_owned(), "de_DE.UTF-8".to_owned()),
        ]);
        let env = child_env(parent, &configured);
        assert_eq!(
            env,
            pairs(&[
                ("GITHUB_TOKEN", "ghp"),
                ("HOME", "/root"),
                ("LANG", "de_DE.UTF-8"),
                ("PATH", "/usr/bin"),
            ])
        );
    }
}
