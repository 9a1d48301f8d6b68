//! What each protocol revision knows of a tool, a resource, a prompt and a tool's result: a
//! field a later revision added is left out for a client of an earlier one, to which it means
//! nothing (and a strict client may refuse an object with a field its schema does not have).
//!
//! - 2025-03-26 added tool `annotations`;
//! - 2025-06-18 added `title` and `_meta` on tools, resources and prompts, a tool's
//!   `outputSchema` and a result's `structuredContent`;
//! - 2025-11-25 added `icons`.

use rmcp::model::{CallToolResult, Prompt, ProtocolVersion, Resource, ResourceTemplate, Tool};

/// The revision a client negotiated; `None` (not known) is taken as the newest.
#[derive(Debug, Clone, Default)]
pub(crate) struct Revision(Option<ProtocolVersion>);

impl Revision {
    pub(crate) fn of(version: Option<ProtocolVersion>) -> Self {
        Self(version)
    }

    /// Whether the client's revision is older than `added`, the one a field came with. Dated
    /// revisions order as their text does.
    fn lacks(&self, added: &ProtocolVersion) -> bool {
        self.0.as_ref().is_some_and(|version| version < added)
    }

    /// Whether anything is left out for this client: for the newest revisions, nothing is
    /// copied.
    pub(crate) fn strips(&self) -> bool {
        self.lacks(&ProtocolVersion::V_2025_11_25)
    }

    pub(crate) fn tool(&self, mut tool: Tool) -> Tool {
        if self.lacks(&ProtocolVersion::V_2025_03_26) {
            tool.annotations = None;
        }
        if self.lacks(&ProtocolVersion::V_2025_06_18) {
            tool.title = None;
            tool.output_schema = None;
            tool.meta = None;
        }
        if self.lacks(&ProtocolVersion::V_2025_11_25) {
            tool.icons = None;
        }
        tool
    }

    pub(crate) fn resource(&self, mut resource: Resource) -> Resource {
        if self.lacks(&ProtocolVersion::V_2025_06_18) {
            resource.title = None;
            resource.meta = None;
        }
        if self.lacks(&ProtocolVersion::V_2025_11_25) {
            resource.icons = None;
        }
        resource
    }

    pub(crate) fn template(&self, mut template: ResourceTemplate) -> ResourceTemplate {
        if self.lacks(&ProtocolVersion::V_2025_06_18) {
            template.title = None;
            template.meta = None;
        }
        if self.lacks(&ProtocolVersion::V_2025_11_25) {
            template.icons = None;
        }
        template
    }

    pub(crate) fn prompt(&self, mut prompt: Prompt) -> Prompt {
        if self.lacks(&ProtocolVersion::V_2025_06_18) {
            prompt.title = None;
            prompt.meta = None;
        }
        if self.lacks(&ProtocolVersion::V_2025_11_25) {
            prompt.icons = None;
        }
        prompt
    }

    /// A tool's result: `structuredContent` only for a client that knows it (a server that
    /// sends it also sends its text in `content`, as the specification asks).
    pub(crate) fn result(&self, mut result: CallToolResult) -> CallToolResult {
        if self.lacks(&ProtocolVersion::V_2025_06_18) {
            result.structured_content = None;
        }
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rich() -> Tool {
        serde_json::from_value(serde_json::json!({
            "name": "rich", "title": "Rich", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true},
            "icons": [{"src": "https://example.com/i.png"}], "_meta": {"k": 1},
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn version_of(text: &str) -> ProtocolVersion {
        serde_json::from_value(serde_json::json!(text)).unwrap_or_else(|e| panic!("{e}"))
    }

    fn fields(tool: Tool) -> Vec<String> {
        let value = serde_json::to_value(tool).unwrap_or_default();
        let mut keys: Vec<String> = value
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        keys.sort();
        keys
    }

    #[test]
    fn each_revision_gets_the_fields_it_knows() {
        let at = |version: &str| Revision::of(Some(version_of(version)));
        assert_eq!(
            fields(at("2024-11-05").tool(rich())),
            ["inputSchema", "name"]
        );
        assert_eq!(
            fields(at("2025-03-26").tool(rich())),
            ["annotations", "inputSchema", "name"]
        );
        assert_eq!(
            fields(at("2025-06-18").tool(rich())),
            [
                "_meta",
                "annotations",
                "inputSchema",
                "name",
                "outputSchema",
                "title"
            ]
        );
        let all = [
            "_meta",
            "annotations",
            "icons",
            "inputSchema",
            "name",
            "outputSchema",
            "title",
        ];
        assert_eq!(fields(at("2025-11-25").tool(rich())), all);
        assert_eq!(fields(at("2026-07-28").tool(rich())), all);
        assert_eq!(fields(Revision::of(None).tool(rich())), all);
        assert!(at("2025-06-18").strips());
        assert!(!at("2025-11-25").strips());
    }

    #[test]
    fn structured_content_only_for_a_client_that_knows_it() {
        let result = || CallToolResult::structured(serde_json::json!({"ok": true}));
        let at = |version: &str| Revision::of(Some(version_of(version)));
        assert!(
            at("2025-03-26")
                .result(result())
                .structured_content
                .is_none()
        );
        assert!(
            at("2025-06-18")
                .result(result())
                .structured_content
                .is_some()
        );
    }
}
