//! Launch templates: what a member may start as a stdio server.
//!
//! A stdio server runs a program on the host, so a member may only start one an admin has
//! described as a template, never "any arguments to `npx`": `npx -c '...'`, `node -e`,
//! `python -c`, `uvx --from git+...` all run whatever the member writes. A template is the
//! program, one rule per argument and the environment names a member may set:
//!
//! ```text
//! npx -y @modelcontextprotocol/server-* env=GITHUB_TOKEN,BRAVE_API_KEY
//! ```
//!
//! - The first word is the program, matched exactly (`npx` is found on the host's `PATH`, which
//!   members cannot change; `/opt/tools/uvx` is that file).
//! - Every further word is one argument. A word without `*` must be given exactly; a word with one
//!   `*` matches that word with the `*` replaced by a *name*: ASCII letters, digits, `.`, `_`, `-`,
//!   and at most one `@` for a version (`everything`, `fetch@1.2.0`). A name starts with a letter
//!   or digit, has no `..`, no `/`, `:` or `=` (so no path, URL, `git+`, `file:` or `npm:`
//!   spec), and does not end like a local file (`.tgz`, `.tar`, `.gz`, `.zip`, `.whl`, `.js`,
//!   `.mjs`, `.cjs`, `.py`, `.sh`), which npm and uv would read from disk instead of a registry.
//! - The number of arguments is exact: nothing may be added before, between or after, so no
//!   `--node-options`, `-e`, `-c`, `--call`, `-p` or trailing argument slips in. An admin who
//!   wants variants writes several templates.
//! - The last word may be `env=NAME,NAME`: the variables a member may set, matched exactly. A
//!   template may never allow a loader or interpreter variable ([`is_forbidden_env`]); such a
//!   template is refused when it is read.
//!
//! Members may not set `cwd` (a working directory decides which `.npmrc`, `node_modules` or
//! Python module is picked up). Admins are not held to templates at all.
//!
//! Several templates are separated by `;` where one setting holds them all.
//!
//! ```
//! use switchboard_core::{LaunchRules, ServerSpec};
//!
//! let rules: LaunchRules = "npx -y @modelcontextprotocol/server-* env=GITHUB_TOKEN".parse().unwrap();
//! let good = ServerSpec::stdio("gh", "npx", ["-y", "@modelcontextprotocol/server-github"])
//!     .with_env("GITHUB_TOKEN", "ghp_x");
//! assert!(rules.check(&good).is_ok());
//! let bad = ServerSpec::stdio("x", "npx", ["-c", "cat ~/.ssh/id_ed25519 >&2"]);
//! assert!(rules.check(&bad).is_err());
//! let bad = good.clone().with_env("NODE_OPTIONS", "--require /tmp/x.js");
//! assert!(rules.check(&bad).is_err());
//! ```

use std::collections::BTreeSet;
use std::fmt;
use std::str::FromStr;

use crate::spec::{ServerSpec, TransportKind};

mod env;

pub use env::is_forbidden_env;

/// The word that lists the environment names a template allows.
const ENV_WORD: &str = "env=";
/// The longest name a `*` matches.
const MAX_NAME: usize = 128;
/// Endings npm, pip and uv read as a file on disk rather than a package name.
const FILE_ENDINGS: &[&str] = &[
    ".tgz", ".tar", ".gz", ".zip", ".whl", ".js", ".mjs", ".cjs", ".py", ".sh",
];

/// The admin's launch templates; empty means members may start no stdio server.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaunchRules {
    templates: Vec<LaunchTemplate>,
}

/// One template: a program, a rule per argument and the env names a member may set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaunchTemplate {
    program: String,
    args: Vec<ArgRule>,
    env: BTreeSet<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum ArgRule {
    Exact(String),
    /// `prefix*suffix`: the `*` stands for one name.
    Name {
        prefix: String,
        suffix: String,
    },
}

/// A template that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("launch template {template:?}: {reason}")]
pub struct TemplateError {
    pub template: String,
    pub reason: String,
}

/// Why a member's stdio server may not be started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LaunchRefusal {
    #[error("members may not set the working directory of a stdio server")]
    WorkingDirectory,
    #[error("members may never set {0}: it changes what the program loads or runs")]
    ForbiddenEnv(String),
    #[error("{0:?} is not a valid environment variable name")]
    InvalidEnvName(String),
    #[error("`{0}` is not the program of any launch template the admin allows")]
    Program(String),
    #[error(
        "its arguments do not fit a launch template for `{program}` (allowed: {allowed}); \
         nothing may be added or changed"
    )]
    Arguments { program: String, allowed: String },
    #[error("the launch template for `{program}` does not let members set {name}")]
    Env { program: String, name: String },
    #[error("a stdio server needs a command")]
    NoCommand,
}

impl LaunchRules {
    /// Rules made of these templates.
    pub fn new(templates: Vec<LaunchTemplate>) -> Self {
        Self { templates }
    }

    /// Reads each text as one or more `;`-separated templates.
    pub fn parse_all<S: AsRef<str>>(texts: &[S]) -> Result<Self, TemplateError> {
        let mut templates = Vec::new();
        for text in texts {
            templates.extend(text.as_ref().parse::<LaunchRules>()?.templates);
        }
        Ok(Self { templates })
    }

    pub fn is_empty(&self) -> bool {
        self.templates.is_empty()
    }

    pub fn templates(&self) -> &[LaunchTemplate] {
        &self.templates
    }

    /// Whether a member may start `spec`. Remote servers are not launched, so always pass.
    pub fn check(&self, spec: &ServerSpec) -> Result<(), LaunchRefusal> {
        if spec.transport != TransportKind::Stdio {
            return Ok(());
        }
        if spec.cwd.is_some() {
            return Err(LaunchRefusal::WorkingDirectory);
        }
        for name in spec.env.keys().chain(&spec.secret_env) {
            if !env::is_valid_name(name) {
                return Err(LaunchRefusal::InvalidEnvName(shorten(name)));
            }
            if is_forbidden_env(name) {
                return Err(LaunchRefusal::ForbiddenEnv(name.clone()));
            }
        }
        let program = spec.command.as_deref().ok_or(LaunchRefusal::NoCommand)?;
        let for_program: Vec<&LaunchTemplate> = self
            .templates
            .iter()
            .filter(|t| t.program == program)
            .collect();
        if for_program.is_empty() {
            return Err(LaunchRefusal::Program(shorten(program)));
        }
        let fitting: Vec<&LaunchTemplate> = for_program
            .iter()
            .copied()
            .filter(|t| t.fits_args(&spec.args))
            .collect();
        if fitting.is_empty() {
            return Err(LaunchRefusal::Arguments {
                program: shorten(program),
                allowed: for_program
                    .iter()
                    .map(|t| t.to_string())
                    .collect::<Vec<_>>()
                    .join(" | "),
            });
        }
        let unallowed = |t: &LaunchTemplate| spec.env.keys().find(|name| !t.env.contains(*name));
        if fitting.iter().any(|t| unallowed(t).is_none()) {
            return Ok(());
        }
        let name = fitting
            .iter()
            .find_map(|t| unallowed(t))
            .cloned()
            .unwrap_or_default();
        Err(LaunchRefusal::Env {
            program: shorten(program),
            name,
        })
    }
}

impl FromStr for LaunchRules {
    type Err = TemplateError;

    /// One or more templates separated by `;`; blank parts are skipped.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let templates = text
            .split(';')
            .filter(|part| !part.trim().is_empty())
            .map(str::parse)
            .collect::<Result<_, _>>()?;
        Ok(Self { templates })
    }
}

impl LaunchTemplate {
    fn fits_args(&self, args: &[String]) -> bool {
        args.len() == self.args.len()
            && self.args.iter().zip(args).all(|(rule, arg)| rule.fits(arg))
    }
}

impl FromStr for LaunchTemplate {
    type Err = TemplateError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = |reason: String| TemplateError {
            template: text.trim().to_owned(),
            reason,
        };
        let mut words: Vec<&str> = text.split_ascii_whitespace().collect();
        let mut env = BTreeSet::new();
        if let Some(list) = words.last().and_then(|w| w.strip_prefix(ENV_WORD)) {
            for name in list.split(',').filter(|n| !n.is_empty()) {
                if !env::is_valid_name(name) {
                    return Err(error(format!(
                        "{name:?} is not an environment variable name"
                    )));
                }
                if is_forbidden_env(name) {
                    return Err(error(format!(
                        "members may never set {name}: it changes what a program loads or runs"
                    )));
                }
                env.insert(name.to_owned());
            }
            words.pop();
        }
        let Some((program, args)) = words.split_first() else {
            return Err(error("it names no program".to_owned()));
        };
        if program.contains('*') || program.starts_with(ENV_WORD) {
            return Err(error("the program must be named exactly".to_owned()));
        }
        let args = args
            .iter()
            .map(|word| {
                if word.starts_with(ENV_WORD) {
                    return Err(error(format!("{ENV_WORD} must be the last word")));
                }
                match word.split_once('*') {
                    None => Ok(ArgRule::Exact((*word).to_owned())),
                    Some((_, suffix)) if suffix.contains('*') => {
                        Err(error(format!("{word:?} has more than one *")))
                    }
                    Some((prefix, suffix)) => Ok(ArgRule::Name {
                        prefix: prefix.to_owned(),
                        suffix: suffix.to_owned(),
                    }),
                }
            })
            .collect::<Result<_, _>>()?;
        Ok(Self {
            program: (*program).to_owned(),
            args,
            env,
        })
    }
}

impl fmt::Display for LaunchTemplate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.program)?;
        for rule in &self.args {
            match rule {
                ArgRule::Exact(word) => write!(f, " {word}")?,
                ArgRule::Name { prefix, suffix } => write!(f, " {prefix}*{suffix}")?,
            }
        }
        if !self.env.is_empty() {
            let names: Vec<&str> = self.env.iter().map(String::as_str).collect();
            write!(f, " {ENV_WORD}{}", names.join(","))?;
        }
        Ok(())
    }
}

impl ArgRule {
    fn fits(&self, arg: &str) -> bool {
        match self {
            ArgRule::Exact(word) => word == arg,
            ArgRule::Name { prefix, suffix } => {
                arg
                .strip_prefix(prefix.as_str())
                .and_then(|rest| rest.strip_suffix(suffix.as_str()))
                .is_some_and(is_name)
                // Never an option, whatever the admin's prefix.
                && !arg.starts_with('-')
            }
        }
    }
}

/// What a `*` stands for: a package or module name, maybe with one `@version`.
fn is_name(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    !text.is_empty()
        && text.len() <= MAX_NAME
        && text.starts_with(|c: char| c.is_ascii_alphanumeric())
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-' | '@'))
        && text.matches('@').count() <= 1
        && !text.contains("..")
        && !text.ends_with(['.', '@'])
        && !FILE_ENDINGS.iter().any(|ending| lower.ends_with(ending))
}

/// Member text quoted in an error, cut to a readable length.
fn shorten(text: &str) -> String {
    const MAX: usize = 80;
    match text.char_indices().nth(MAX) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests;
