//! The tools one run may use: every enabled tool of the assistant's enabled servers, each with
//! the name the model sees.

use std::sync::Arc;

use switchboard_core::{NameTable, OwnerId, ServerSpec, ToolInfo};
use switchboard_mcp::ToolBackend;

/// One tool the model may call.
#[derive(Debug, Clone)]
pub struct CatalogTool {
    pub server: Arc<ServerSpec>,
    pub tool: ToolInfo,
    /// `mcp__{server}__{tool}`, unique in the catalog.
    pub display_name: String,
}

/// A server whose tools could not be listed; the run goes on without them.
#[derive(Debug, Clone)]
pub struct UnavailableServer {
    pub server: String,
    pub reason: String,
}

/// Every tool of a run, found by the name the model uses or by server and tool name.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    tools: Vec<CatalogTool>,
    pub unavailable: Vec<UnavailableServer>,
}

impl Catalog {
    /// Lists the tools of `servers` through `backend` (disabled servers and tools left out).
    pub async fn gather(
        backend: &dyn ToolBackend,
        owner: &OwnerId,
        servers: &[ServerSpec],
    ) -> Catalog {
        let mut found = Vec::new();
        let mut unavailable = Vec::new();
        for (spec, tools) in backend.tools(owner, servers).await {
            match tools {
                Ok(tools) => {
                    let spec = Arc::new(spec);
                    found.extend(tools.iter().map(|t| (Arc::clone(&spec), t.clone())));
                }
                Err(e) => unavailable.push(UnavailableServer {
                    server: spec.name.clone(),
                    reason: e.to_string(),
                }),
            }
        }
        Catalog::from_tools(found, unavailable)
    }

    /// A catalog of known tools (tests, and callers that listed tools themselves).
    pub fn from_tools(
        tools: Vec<(Arc<ServerSpec>, ToolInfo)>,
        unavailable: Vec<UnavailableServer>,
    ) -> Catalog {
        let names = NameTable::new(
            tools
                .iter()
                .map(|(server, tool)| (server.id.0.clone(), tool.name.clone())),
        );
        let tools = tools
            .into_iter()
            .map(|(server, tool)| {
                let display_name = names
                    .mangled(&server.id.0, &tool.name)
                    .map(str::to_owned)
                    .unwrap_or_else(|| {
                        switchboard_core::naming::mangle_one(&server.id.0, &tool.name)
                    });
                CatalogTool {
                    server,
                    tool,
                    display_name,
                }
            })
            .collect();
        Catalog { tools, unavailable }
    }

    pub fn tools(&self) -> &[CatalogTool] {
        &self.tools
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tool the model called by its display name.
    pub fn by_display_name(&self, name: &str) -> Option<&CatalogTool> {
        self.tools.iter().find(|t| t.display_name == name)
    }

    /// The tool named `tool` on the server a model referred to by name or id (prompt and
    /// meta modes, where the model writes both).
    pub fn by_server_and_tool(&self, server: &str, tool: &str) -> Option<&CatalogTool> {
        // Exact name first, then id, then a name in another case: two servers whose names
        // differ only in case are told apart when the model writes the name exactly.
        let of_tool = || self.tools.iter().filter(move |t| t.tool.name == tool);
        of_tool()
            .find(|t| t.server.name == server)
            .or_else(|| of_tool().find(|t| t.server.id.0 == server))
            .or_else(|| of_tool().find(|t| t.server.name.eq_ignore_ascii_case(server)))
    }

    /// The servers in the catalog, in first-seen order, with their tools.
    pub fn by_server(&self) -> Vec<(&ServerSpec, Vec<&CatalogTool>)> {
        let mut grouped: Vec<(&ServerSpec, Vec<&CatalogTool>)> = Vec::new();
        for tool in &self.tools {
            match grouped.iter_mut().find(|(s, _)| s.id == tool.server.id) {
                Some((_, list)) => list.push(tool),
                None => grouped.push((&tool.server, vec![tool])),
            }
        }
        grouped
    }
}
