//! Where an effective value came from, for `config show` and for error messages.

use std::fmt;
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    Default,
    File(PathBuf),
    Env(&'static str),
    Flag(&'static str),
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File(path) => write!(f, "file {}", path.display()),
            Origin::Env(name) => write!(f, "env {name}"),
            Origin::Flag(flag) => write!(f, "flag {flag}"),
        }
    }
}
