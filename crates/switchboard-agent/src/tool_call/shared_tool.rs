//! [`SharedTool`]: one tool of a server's list as the connection manager keeps it, read in
//! place rather than copied.

use std::ops::Deref;
use std::sync::Arc;

use switchboard_core::ToolInfo;

/// One tool of a server's tool list, by its place in the shared list. A call reads the tool
/// (its schema, its annotations) without a copy of it, which was a deep copy of the schema on
/// every call, and its validator is found by the list's identity
/// ([`super::validators`]).
#[derive(Debug, Clone)]
pub struct SharedTool {
    list: Arc<Vec<ToolInfo>>,
    index: usize,
}

impl SharedTool {
    /// The tool named `name` in `list`.
    pub(crate) fn find(list: Arc<Vec<ToolInfo>>, name: &str) -> Option<Self> {
        let index = list.iter().position(|tool| tool.name == name)?;
        Some(Self { list, index })
    }

    /// The list the tool is in.
    pub(crate) fn list(&self) -> &Arc<Vec<ToolInfo>> {
        &self.list
    }

    /// Its place in [`SharedTool::list`].
    pub(crate) fn index(&self) -> usize {
        self.index
    }
}

impl Deref for SharedTool {
    type Target = ToolInfo;

    fn deref(&self) -> &ToolInfo {
        // `find` only makes places that are in the list, which is never changed.
        &self.list[self.index]
    }
}
