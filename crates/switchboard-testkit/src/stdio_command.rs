//! How to start a stdio MCP server: plain data, so each test can hand it to whatever it tests
//! (a `ServerSpec`, an rmcp child-process transport, a raw `Command`).

use std::fmt;

/// A program, its arguments and the environment variables to set on top of the inherited
/// environment. The program is an absolute path, so no `PATH` lookup is involved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioCommand {
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

impl StdioCommand {
    /// A `tokio` command with the program, arguments and environment set and nothing else
    /// (no piping, no process group): for tests that drive the process themselves.
    pub fn to_tokio(&self) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.program);
        command.args(&self.args).envs(self.env.iter().cloned());
        command
    }
}

impl fmt::Display for StdioCommand {
    /// The command as a shell would show it, environment first: handy in assertion messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (key, value) in &self.env {
            write!(f, "{key}={value} ")?;
        }
        write!(f, "{}", self.program)?;
        for arg in &self.args {
            write!(f, " {arg}")?;
        }
        Ok(())
    }
}
