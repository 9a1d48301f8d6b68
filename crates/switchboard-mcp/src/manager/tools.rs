//! The tool-list cache of one connection, and the translation of rmcp's `Tool` into ours.

use std::sync::Arc;
use std::time::{Duration, Instant};

use rmcp::model::{Icon, IconTheme, Tool};
use switchboard_core::{ServerId, ToolAnnotations, ToolIcon, ToolInfo};

/// A tool list as fetched from one connection instance.
#[derive(Debug, Clone)]
pub(crate) struct CachedTools {
    pub(crate) tools: Arc<Vec<ToolInfo>>,
    fetched_at: Instant,
    /// The connection instance it came from, and that connection's list_changed generation.
    connection: u64,
    generation: u64,
}

impl CachedTools {
    pub(crate) fn new(tools: Vec<ToolInfo>, connection: u64, generation: u64) -> Self {
        Self {
            tools: Arc::new(tools),
            fetched_at: Instant::now(),
            connection,
            generation,
        }
    }

    pub(crate) fn is_fresh(&self, ttl: Duration, connection: u64, generation: u64) -> bool {
        self.connection == connection
            && self.generation == generation
            && self.fetched_at.elapsed() < ttl
    }
}

pub(crate) fn tool_info(server: &ServerId, tool: Tool) -> ToolInfo {
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
