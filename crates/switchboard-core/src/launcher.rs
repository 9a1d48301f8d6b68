//! The program a stdio server is started with, and what to install when it is missing.
//!
//! Most ready-made servers are launched through a package runner: `npx` (which comes with
//! Node.js) or `uvx` (which comes with uv). When one of those is missing, "No such file or
//! directory" tells a person nothing; "install Node.js, which provides npx" does. The same
//! words serve a failed start, the catalogue's notice before anyone clicks Set up, and the
//! command line's warning when a server is added.

use std::fmt;
use std::path::Path;

/// What provides a program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Launcher {
    /// `npx`, `npm` or `node`: Node.js.
    Node,
    /// `uvx` or `uv`: uv.
    Uv,
    /// Any other program.
    Other,
}

impl Launcher {
    /// The launcher `command` is (a path is judged by its file name).
    pub fn of(command: &str) -> Launcher {
        let name = Path::new(command)
            .file_name()
            .and_then(|name| name.to_str())
            .unwrap_or(command);
        match name {
            "npx" | "npm" | "node" => Launcher::Node,
            "uvx" | "uv" => Launcher::Uv,
            _ => Launcher::Other,
        }
    }

    /// A short stable name, for locale keys and JSON (`node`, `uv`, `other`).
    pub fn as_str(self) -> &'static str {
        match self {
            Launcher::Node => "node",
            Launcher::Uv => "uv",
            Launcher::Other => "other",
        }
    }
}

/// A program that cannot be found where it would be started, said with what to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MissingProgram {
    pub command: String,
}

impl MissingProgram {
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
        }
    }

    pub fn launcher(&self) -> Launcher {
        Launcher::of(&self.command)
    }
}

/// What to do about a missing program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Advice {
    /// Install Node.js, which provides `npx`, `npm` and `node`.
    InstallNode,
    /// Install uv, which provides `uvx` and `uv`.
    InstallUv,
    /// A path was given: check it, or install the program there.
    CheckPath,
    /// A name looked up on `PATH`: install the program, or give its full path.
    Install,
}

impl MissingProgram {
    /// What the person can do about it.
    pub fn advice(&self) -> Advice {
        match self.launcher() {
            Launcher::Node => Advice::InstallNode,
            Launcher::Uv => Advice::InstallUv,
            Launcher::Other if self.command.contains('/') => Advice::CheckPath,
            Launcher::Other => Advice::Install,
        }
    }
}

impl fmt::Display for MissingProgram {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let command = &self.command;
        match self.advice() {
            Advice::InstallNode => write!(
                f,
                "`{command}` was not found on this machine; install Node.js, which provides it"
            ),
            Advice::InstallUv => write!(
                f,
                "`{command}` was not found on this machine; install uv, which provides it"
            ),
            Advice::CheckPath => write!(
                f,
                "`{command}` was not found; check the path, or install the program"
            ),
            Advice::Install => write!(
                f,
                "`{command}` was not found on PATH; install it, or give its full path"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launchers_are_known_by_their_file_name() {
        assert_eq!(Launcher::of("npx"), Launcher::Node);
        assert_eq!(Launcher::of("/usr/local/bin/npx"), Launcher::Node);
        assert_eq!(Launcher::of("uvx"), Launcher::Uv);
        assert_eq!(Launcher::of("uv"), Launcher::Uv);
        assert_eq!(Launcher::of("python3"), Launcher::Other);
        assert_eq!(Launcher::of("npx-like"), Launcher::Other);
    }

    #[test]
    fn each_launcher_says_what_to_install() {
        assert!(MissingProgram::new("npx").to_string().contains("Node.js"));
        assert!(
            MissingProgram::new("uvx")
                .to_string()
                .contains("install uv")
        );
        let other = MissingProgram::new("my-server").to_string();
        assert!(other.contains("not found on PATH"), "{other}");
        let path = MissingProgram::new("./bin/server").to_string();
        assert!(path.contains("check the path"), "{path}");
    }
}
