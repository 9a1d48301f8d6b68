//! What names one setting in each layer: its key in the file, its environment variable, its
//! command-line flag, and its default written as text (so the default is read by the same
//! parser as every other layer, and shown exactly as the README gives it).

/// One setting's names and default. `section` is the file's table (`manager.retry` for
/// `[manager.retry]`).
#[derive(Debug, Clone, Copy)]
pub struct Key {
    pub section: &'static str,
    pub name: &'static str,
    pub env: Option<&'static str>,
    pub flag: Option<&'static str>,
    pub default: &'static str,
    /// A credential: `config show` prints that it is set, never the value.
    pub secret: bool,
}

impl Key {
    pub const fn new(section: &'static str, name: &'static str, default: &'static str) -> Self {
        Self {
            section,
            name,
            env: None,
            flag: None,
            default,
            secret: false,
        }
    }

    pub const fn env(mut self, variable: &'static str) -> Self {
        self.env = Some(variable);
        self
    }

    pub const fn flag(mut self, flag: &'static str) -> Self {
        self.flag = Some(flag);
        self
    }

    /// The dotted name, as `config show` and error messages write it.
    pub fn path(&self) -> String {
        format!("{}.{}", self.section, self.name)
    }
}
