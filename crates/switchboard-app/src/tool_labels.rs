//! Tool names as metric labels. A tool's name is the upstream's to choose, so a hostile
//! server could name its tools with ten thousand characters, control characters, or a new
//! name per call, and so blow up every scrape and the process's memory. A label is the name
//! on one line, plain, cut to [`MAX_LABEL_CHARS`] (as errors quote upstream text), and each
//! server gets at most [`MAX_TOOLS_PER_SERVER`] tool labels; the calls of its other tools
//! count under [`OTHER_TOOLS`].

use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, PoisonError};

/// The longest tool label, in characters.
pub(crate) const MAX_LABEL_CHARS: usize = 128;
/// The tool labels one server may have.
pub(crate) const MAX_TOOLS_PER_SERVER: usize = 256;
/// The label of a server's tools past [`MAX_TOOLS_PER_SERVER`].
pub(crate) const OTHER_TOOLS: &str = "_other";
/// The servers whose tools are tracked; past it, tools of new servers count under
/// [`OTHER_TOOLS`] too (server labels are ids, which the store keeps short and URL-safe).
const MAX_SERVERS: usize = 10_000;

/// The tool labels given so far, per server.
#[derive(Debug, Default)]
pub(crate) struct ToolLabels(Mutex<HashMap<String, HashSet<String>>>);

impl ToolLabels {
    /// The label of `tool` of `server`.
    pub(crate) fn label(&self, server: &str, tool: &str) -> String {
        let label = switchboard_core::upstream_text::short_text(tool, MAX_LABEL_CHARS);
        let mut seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(tools) = seen.get_mut(server) {
            if tools.contains(&label) {
                return label;
            }
            if tools.len() < MAX_TOOLS_PER_SERVER {
                tools.insert(label.clone());
                return label;
            }
            return OTHER_TOOLS.to_owned();
        }
        if seen.len() >= MAX_SERVERS {
            return OTHER_TOOLS.to_owned();
        }
        seen.insert(server.to_owned(), HashSet::from([label.clone()]));
        label
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_and_control_characters_are_bounded() {
        let labels = ToolLabels::default();
        let hostile = format!("a\0b\x1b[31m{}", "x".repeat(10_000));
        let label = labels.label("s", &hostile);
        assert_eq!(label.chars().count(), MAX_LABEL_CHARS + "...".len());
        assert!(!label.chars().any(char::is_control), "{label:?}");
        assert_eq!(labels.label("s", "read"), "read");
    }

    #[test]
    fn a_server_gets_a_bounded_number_of_tool_labels() {
        let labels = ToolLabels::default();
        let mut distinct = HashSet::new();
        for i in 0..MAX_TOOLS_PER_SERVER + 50 {
            distinct.insert(labels.label("s", &format!("tool_{i}")));
        }
        assert_eq!(distinct.len(), MAX_TOOLS_PER_SERVER + 1);
        assert!(distinct.contains(OTHER_TOOLS));
        // Known tools keep their label, and another server has its own share.
        assert_eq!(labels.label("s", "tool_0"), "tool_0");
        assert_eq!(labels.label("t", "tool_999"), "tool_999");
    }
}
