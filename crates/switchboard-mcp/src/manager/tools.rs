//! The tool-list cache of one connection, and the translation of rmcp's `Tool` into ours.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{Icon, IconTheme, Tool};
use switchboard_core::{ServerId, TaskSupport, ToolAnnotations, ToolIcon, ToolInfo, ToolTasks};

use crate::tasks::TaskDialect;
use crate::transport::legacy_tasks;

/// A tool list as fetched from one connection instance.
#[derive(Debug, Clone)]
pub(crate) struct CachedTools {
    pub(crate) tools: Arc<Vec<ToolInfo>>,
    /// How the server runs each tool as a task, by name (a server that runs none: empty).
    tasks: Arc<HashMap<String, TaskSupport>>,
    fetched_at: Instant,
    /// The connection instance it came from, and that connection's list_changed generation.
    connection: u64,
    generation: u64,
}

impl CachedTools {
    /// The list `tools` (bounded already) of connection `connection`; `tasks` from every tool
    /// listed, those left out of the list included.
    pub(crate) fn new(
        tools: Vec<ToolInfo>,
        tasks: HashMap<String, TaskSupport>,
        connection: u64,
        generation: u64,
    ) -> Self {
        Self {
            tools: Arc::new(tools),
            tasks: Arc::new(tasks),
            fetched_at: Instant::now(),
            connection,
            generation,
        }
    }

    /// How the server runs `tool` as a task, as its list says; `None`: a tool it did not list.
    pub(crate) fn task_support(&self, tool: &str) -> Option<TaskSupport> {
        self.tasks.get(tool).copied()
    }

    pub(crate) fn is_fresh(&self, ttl: Duration, connection: u64, generation: u64) -> bool {
        self.connection == connection
            && self.generation == generation
            && self.fetched_at.elapsed() < ttl
    }
}

/// The largest schema (input and output together, as JSON text) a tool may have: real tools'
/// schemas are a few kilobytes; one of megabytes is parsed into ten or more times its size.
pub(crate) const MAX_TOOL_SCHEMA_BYTES: usize = 512 * 1024;
/// The schema bytes one server's tool list may hold in all.
pub(crate) const MAX_SERVER_SCHEMA_BYTES: usize = 8 * 1024 * 1024;
/// The tools one server's list may hold.
pub(crate) const MAX_SERVER_TOOLS: usize = 2_000;

/// `tools` within what one server's list may cost in memory, kept in order; how many were
/// left out is logged. A hostile server's list of huge or countless schemas would otherwise
/// stay cached for as long as its connection lives.
pub(crate) fn bounded(server: &str, tools: Vec<ToolInfo>) -> Vec<ToolInfo> {
    let listed = tools.len();
    let mut total = 0;
    let kept: Vec<ToolInfo> = tools
        .into_iter()
        .filter(|tool| {
            let size = schema_bytes(tool);
            if size > MAX_TOOL_SCHEMA_BYTES || total + size > MAX_SERVER_SCHEMA_BYTES {
                return false;
            }
            total += size;
            true
        })
        .take(MAX_SERVER_TOOLS)
        .collect();
    if kept.len() < listed {
        tracing::warn!(
            server,
            listed,
            kept = kept.len(),
            "a server's tool list is larger than a server's share; the tools over it are left out"
        );
    }
    kept
}

/// The JSON size of a tool's schemas and `_meta`.
fn schema_bytes(tool: &ToolInfo) -> usize {
    /// Counts bytes without keeping them.
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Writing to a counter cannot fail; were it to, the tool counts as too large.
    let written = serde_json::to_writer(&mut count, &tool.input_schema)
        .and_then(|()| serde_json::to_writer(&mut count, &tool.output_schema))
        .and_then(|()| serde_json::to_writer(&mut count, &tool.meta));
    if written.is_err() {
        usize::MAX
    } else {
        count.0
    }
}

/// How the server runs `tool` as a task, in `dialect` (`None`: it runs no tasks). A
/// 2025-11-25 server says it per tool (`execution.taskSupport`, kept in the tool's `_meta` by
/// [`crate::transport::legacy_tasks`]; absent: `forbidden`); on the extension the server
/// decides per call, so every tool may become one.
pub(crate) fn tool_tasks(tool: &Tool, dialect: Option<TaskDialect>) -> Option<ToolTasks> {
    let support = match dialect? {
        TaskDialect::Extension => TaskSupport::Optional,
        TaskDialect::Legacy => legacy_support(tool),
    };
    Some(ToolTasks { support })
}

fn legacy_support(tool: &Tool) -> TaskSupport {
    let support = tool
        .meta
        .as_ref()
        .and_then(|meta| meta.0.get(legacy_tasks::EXECUTION))
        .and_then(|execution| execution.get("taskSupport"))
        .and_then(|support| support.as_str());
    match support {
        Some("optional") => TaskSupport::Optional,
        Some("required") => TaskSupport::Required,
        _ => TaskSupport::Forbidden,
    }
}

/// Our view of `tool`, of a server running tasks in `dialect`. The `execution` the wire
/// adapter kept in its `_meta` is taken out: it is read into [`ToolInfo::tasks`]
/// ([`tool_tasks`]), and the `_meta` is relayed as the server sent it.
pub(crate) fn tool_info(server: &ServerId, tool: Tool, dialect: Option<TaskDialect>) -> ToolInfo {
    let tasks = tool_tasks(&tool, dialect);
    let annotations = tool
        .annotations
        .map(|a| ToolAnnotations {
            title: a.title,
            read_only_hint: a.read_only_hint,
            destructive_hint: a.destructive_hint,
            idempotent_hint: a.idempotent_hint,
            open_world_hint: a.open_world_hint,
        })
        .unwrap_or_default();
    ToolInfo {
        server_id: server.clone(),
        name: tool.name.into_owned(),
        title: tool.title,
        description: tool.description.map(|d| d.into_owned()),
        input_schema: Arc::unwrap_or_clone(tool.input_schema),
        output_schema: tool.output_schema.map(Arc::unwrap_or_clone),
        annotations,
        icons: tool
            .icons
            .unwrap_or_default()
            .into_iter()
            .map(tool_icon)
            .collect(),
        meta: tool.meta.and_then(|meta| {
            let mut meta = meta.0;
            meta.remove(legacy_tasks::EXECUTION);
            (!meta.is_empty()).then_some(meta)
        }),
        tasks,
    }
}

fn tool_icon(icon: Icon) -> ToolIcon {
    ToolIcon {
        theme: icon.theme.and_then(|theme| match theme {
            IconTheme::Light => Some("light".to_owned()),
            IconTheme::Dark => Some("dark".to_owned()),
            _ => None,
        }),
        src: icon.src,
        mime_type: icon.mime_type,
        sizes: icon.sizes,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::*;

    fn tool(name: &str, properties: usize) -> ToolInfo {
        let properties: Map<String, Value> = (0..properties)
            .map(|i| (format!("p{i:06}"), json!({"type": "string"})))
            .collect();
        serde_json::from_value(json!({
            "serverId": "s",
            "name": name,
            "inputSchema": {"type": "object", "properties": properties},
        }))
        .unwrap()
    }

    fn names(tools: &[ToolInfo]) -> Vec<&str> {
        tools.iter().map(|t| t.name.as_str()).collect()
    }

    fn listed(execution: Option<Value>) -> Tool {
        let mut tool = json!({"name": "t", "inputSchema": {"type": "object"}});
        if let Some(execution) = execution {
            tool["_meta"] = json!({legacy_tasks::EXECUTION: execution, "ui": 1});
        }
        serde_json::from_value(tool).unwrap()
    }

    #[test]
    fn task_support_is_read_from_either_dialect() {
        let server = ServerId("s".to_owned());
        let support = |tool: Tool, dialect| tool_info(&server, tool, dialect).tasks;
        let required = || listed(Some(json!({"taskSupport": "required"})));
        assert_eq!(support(required(), None), None);
        assert_eq!(
            support(required(), Some(TaskDialect::Legacy)),
            Some(ToolTasks {
                support: TaskSupport::Required
            })
        );
        assert_eq!(
            support(listed(None), Some(TaskDialect::Legacy)),
            Some(ToolTasks {
                support: TaskSupport::Forbidden
            })
        );
        assert_eq!(
            support(listed(None), Some(TaskDialect::Extension)),
            Some(ToolTasks {
                support: TaskSupport::Optional
            })
        );
        let info = tool_info(&server, required(), Some(TaskDialect::Legacy));
        let meta = info.meta.expect("the server's own _meta");
        assert!(!meta.contains_key(legacy_tasks::EXECUTION), "{meta:?}");
        assert_eq!(meta["ui"], json!(1));
    }

    #[test]
    fn a_wide_schema_is_left_out_and_the_rest_kept_in_order() {
        // 100,000 properties: about 2.8 MB of schema.
        let kept = bounded(
            "hostile",
            vec![tool("a", 2), tool("wide", 100_000), tool("b", 2)],
        );
        assert_eq!(names(&kept), ["a", "b"]);
    }

    #[test]
    fn a_servers_list_is_bounded_in_bytes_and_in_tools() {
        // Each about 300 KB: the server's share holds 27 of them.
        let many: Vec<ToolInfo> = (0..40).map(|i| tool(&format!("t{i}"), 11_000)).collect();
        let kept = bounded("big", many);
        assert!(kept.len() < 40 && kept.len() > 20, "{}", kept.len());
        let total: usize = kept.iter().map(schema_bytes).sum();
        assert!(total <= MAX_SERVER_SCHEMA_BYTES);
        let countless: Vec<ToolInfo> = (0..MAX_SERVER_TOOLS + 10)
            .map(|i| tool(&format!("t{i}"), 0))
            .collect();
        assert_eq!(bounded("countless", countless).len(), MAX_SERVER_TOOLS);
    }
}
