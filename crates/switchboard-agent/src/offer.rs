//! The one owner of the offer: which tools a person (or an assistant) is offered, each under
//! its exported name (`mcp__{server id}__{tool}`, unique in the offer), with the schema the
//! model sees and the tool node that fills it; whether a call of it needs a person is the
//! server spec's to say ([`ServerSpec::auto_approves`], asked by [`crate::approval`]). A run,
//! the REST API's tool listings and the command line all gather their tools here, so a name
//! is the same wherever it appears (the gateway names by the same [`NameTable`] rule).
//!
//! Every enabled tool of the enabled servers is offered, refined by the assistant's tool nodes.
//! A server that has a tool node offers only the tools its nodes select (and leave enabled),
//! and each of those carries its node: the parameters the node maps are hidden from the
//! schema the model sees ([`OfferedTool::schema`]) and filled from the run's variables when
//! the call is made. A server without a node offers every enabled tool, as before nodes. Two
//! nodes of one server that both select a tool: the first (in the store's order) is the one
//! the tool carries, so the model sees one tool, not two of the same name.

use std::sync::Arc;

use serde_json::{Map, Value};
use switchboard_core::{NameTable, OwnerId, ServerSpec, ToolInfo, hide_mapped};
use switchboard_mcp::ToolBackend;
use switchboard_store::StoredToolNode;

/// One tool the model may call.
#[derive(Debug, Clone)]
pub struct OfferedTool {
    pub server: Arc<ServerSpec>,
    /// The tool as its server lists it (the full input schema, which the resolved arguments
    /// are checked against).
    pub tool: ToolInfo,
    /// `mcp__{server}__{tool}`, unique in the offer.
    pub display_name: String,
    /// The tool node the tool is offered through, if its server has one.
    pub node: Option<Arc<StoredToolNode>>,
    /// The input schema the model sees: the tool's, less the parameters its node maps. Every
    /// mode (native functions, the `mcp_query` description, the prompt listing) offers this.
    pub schema: Map<String, Value>,
}

/// One tool to put in an offer: its server, the tool as listed, and its node.
pub type Offered = (Arc<ServerSpec>, ToolInfo, Option<Arc<StoredToolNode>>);

/// A server whose tools could not be listed; the run goes on without them (and says so:
/// [`crate::left_out`]).
#[derive(Debug, Clone)]
pub struct UnavailableServer {
    pub server_id: switchboard_core::ServerId,
    /// Its name.
    pub server: String,
    /// The documented code of the failure.
    pub code: switchboard_core::ErrorCode,
    pub reason: String,
}

/// Every tool of a run, found by the name the model uses or by server and tool name.
#[derive(Debug, Clone, Default)]
pub struct Offer {
    tools: Vec<OfferedTool>,
    pub unavailable: Vec<UnavailableServer>,
}

impl Offer {
    /// Lists the tools of `servers` through `backend` (disabled servers and tools left out),
    /// refined by `nodes` (see the module docs).
    pub async fn gather(
        backend: &dyn ToolBackend,
        owner: &OwnerId,
        servers: &[ServerSpec],
        nodes: &[Arc<StoredToolNode>],
    ) -> Offer {
        let mut found = Vec::new();
        let mut unavailable = Vec::new();
        for (spec, tools) in backend.tools(owner, servers).await {
            match tools {
                Ok(tools) => {
                    let spec = Arc::new(spec);
                    found.extend(offered(&spec, &tools, nodes));
                }
                Err(e) => unavailable.push(UnavailableServer {
                    server_id: spec.id.clone(),
                    server: spec.name.clone(),
                    code: e.code(),
                    reason: e.to_string(),
                }),
            }
        }
        Offer::from_offered(found, unavailable)
    }

    /// An offer of known tools without nodes (tests, and callers that listed tools
    /// themselves).
    pub fn from_tools(
        tools: Vec<(Arc<ServerSpec>, ToolInfo)>,
        unavailable: Vec<UnavailableServer>,
    ) -> Offer {
        let tools = tools
            .into_iter()
            .map(|(server, tool)| (server, tool, None))
            .collect();
        Offer::from_offered(tools, unavailable)
    }

    /// An offer of known tools, each with the node it is offered through.
    pub fn from_offered(tools: Vec<Offered>, unavailable: Vec<UnavailableServer>) -> Offer {
        let names = NameTable::of_servers(
            tools
                .iter()
                .map(|(server, tool, _)| (server.as_ref(), tool.name.as_str())),
        );
        let tools = tools
            .into_iter()
            .map(|(server, tool, node)| {
                let display_name = names
                    .name_of(&server, &tool.name)
                    .map(str::to_owned)
                    .unwrap_or_else(|| {
                        switchboard_core::naming::mangle_one(&server.id.0, &tool.name)
                    });
                let schema = match &node {
                    Some(node) => node.node.selected(&tool.name).map_or_else(
                        || tool.input_schema.clone(),
                        |selected| hide_mapped(&tool.input_schema, selected),
                    ),
                    None => tool.input_schema.clone(),
                };
                OfferedTool {
                    server,
                    tool,
                    display_name,
                    node,
                    schema,
                }
            })
            .collect();
        Offer { tools, unavailable }
    }

    /// The tools of this offer that `keep` keeps, under the same names (nothing named anew:
    /// a deferred run shows part of its offer and calls by the offer's names).
    pub fn only(&self, keep: impl Fn(&OfferedTool) -> bool) -> Offer {
        Offer {
            tools: self.tools.iter().filter(|t| keep(t)).cloned().collect(),
            unavailable: self.unavailable.clone(),
        }
    }

    pub fn tools(&self) -> &[OfferedTool] {
        &self.tools
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tool the model called by its display name.
    pub fn by_display_name(&self, name: &str) -> Option<&OfferedTool> {
        self.tools.iter().find(|t| t.display_name == name)
    }

    /// The tool named `tool` on the server a model referred to by name or id (prompt and
    /// meta modes, where the model writes both).
    pub fn by_server_and_tool(&self, server: &str, tool: &str) -> Option<&OfferedTool> {
        // Exact name first, then id, then a name in another case: two servers whose names
        // differ only in case are told apart when the model writes the name exactly.
        let of_tool = || self.tools.iter().filter(move |t| t.tool.name == tool);
        of_tool()
            .find(|t| t.server.name == server)
            .or_else(|| of_tool().find(|t| t.server.id.0 == server))
            .or_else(|| of_tool().find(|t| t.server.name.eq_ignore_ascii_case(server)))
    }

    /// The servers in the offer, in first-seen order, with their tools.
    pub fn by_server(&self) -> Vec<(&ServerSpec, Vec<&OfferedTool>)> {
        let mut grouped: Vec<(&ServerSpec, Vec<&OfferedTool>)> = Vec::new();
        for tool in &self.tools {
            match grouped.iter_mut().find(|(s, _)| s.id == tool.server.id) {
                Some((_, list)) => list.push(tool),
                None => grouped.push((&tool.server, vec![tool])),
            }
        }
        grouped
    }
}

/// The tools of `server` the model is offered: every one when no node is on the server, else
/// the ones a node selects (enabled), each with the first node that selects it.
fn offered(
    server: &Arc<ServerSpec>,
    tools: &[ToolInfo],
    nodes: &[Arc<StoredToolNode>],
) -> Vec<Offered> {
    let on_server: Vec<&Arc<StoredToolNode>> = nodes
        .iter()
        .filter(|n| n.node.server_id == server.id)
        .collect();
    if on_server.is_empty() {
        return tools
            .iter()
            .map(|t| (Arc::clone(server), t.clone(), None))
            .collect();
    }
    tools
        .iter()
        .filter_map(|tool| {
            let node = on_server
                .iter()
                .find(|n| n.node.selected(&tool.name).is_some())?;
            Some((Arc::clone(server), tool.clone(), Some(Arc::clone(node))))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use switchboard_core::ToolNode;
    use switchboard_store::Timestamp;

    use super::*;

    fn tool(server: &str, name: &str) -> ToolInfo {
        serde_json::from_value(json!({
            "serverId": server,
            "name": name,
            "inputSchema": {
                "type": "object",
                "properties": {"owner": {"type": "string"}, "title": {"type": "string"}},
                "required": ["owner", "title"],
            },
        }))
        .unwrap()
    }

    fn node(id: &str, server: &str, selected: serde_json::Value) -> Arc<StoredToolNode> {
        let node: ToolNode = serde_json::from_value(json!({
            "name": id,
            "serverId": server,
            "selectedTools": selected,
        }))
        .unwrap();
        Arc::new(StoredToolNode {
            id: id.into(),
            node,
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
        })
    }

    fn offer(nodes: &[Arc<StoredToolNode>]) -> Offer {
        let a = Arc::new(ServerSpec::stdio("a", "true", Vec::<String>::new()));
        let b = Arc::new(ServerSpec::stdio("b", "true", Vec::<String>::new()));
        let tools = |server| {
            [
                tool(server, "one"),
                tool(server, "two"),
                tool(server, "three"),
            ]
        };
        let mut found = offered(&a, &tools("a"), nodes);
        found.extend(offered(&b, &tools("b"), nodes));
        Offer::from_offered(found, Vec::new())
    }

    fn names(offer: &Offer) -> Vec<&str> {
        offer
            .tools()
            .iter()
            .map(|t| t.display_name.as_str())
            .collect()
    }

    #[test]
    fn a_server_without_a_node_offers_every_tool_unchanged() {
        let offer = offer(&[]);
        assert_eq!(
            names(&offer),
            [
                "mcp__a__one",
                "mcp__a__two",
                "mcp__a__three",
                "mcp__b__one",
                "mcp__b__two",
                "mcp__b__three"
            ]
        );
        assert!(offer.tools().iter().all(|t| t.node.is_none()));
        assert!(
            offer
                .tools()
                .iter()
                .all(|t| t.schema == t.tool.input_schema)
        );
    }

    #[test]
    fn a_node_offers_its_enabled_selection_with_mapped_parameters_hidden() {
        let first = node(
            "n1",
            "a",
            json!([
                {"name": "one", "parameterMappings": {"owner": "{{user.name}}"}},
                {"name": "two", "enabled": false},
            ]),
        );
        // A second node of the same server selecting `one` again: the first node wins.
        let second = node(
            "n2",
            "a",
            json!([{"name": "one"}, {"name": "three", "parameterMappings": {"title": "x"}}]),
        );
        let offer = offer(&[first, second]);
        assert_eq!(
            names(&offer),
            [
                "mcp__a__one",
                "mcp__a__three",
                "mcp__b__one",
                "mcp__b__two",
                "mcp__b__three"
            ]
        );
        let one = offer.by_display_name("mcp__a__one").unwrap();
        assert_eq!(one.node.as_ref().unwrap().id, "n1");
        assert_eq!(
            serde_json::Value::Object(one.schema.clone()),
            json!({
                "type": "object",
                "properties": {"title": {"type": "string"}},
                "required": ["title"],
            })
        );
        // The full schema stays, for checking the resolved arguments.
        assert!(one.tool.input_schema["properties"].get("owner").is_some());
        let three = offer.by_display_name("mcp__a__three").unwrap();
        assert_eq!(three.node.as_ref().unwrap().id, "n2");
        assert_eq!(three.schema["required"], json!(["owner"]));
    }
}
