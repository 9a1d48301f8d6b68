//! A view in `search` mode: `tools/list` answers `search_tools`, `describe_tool` and
//! `call_tool` ([`fixed`]) and the view's pinned tools, so a client with hundreds of tools
//! behind one view lists a handful.
//!
//! - `search_tools` asks the application's one tool search
//!   ([`switchboard_agent::search::ToolSearch`]) over an offer of exactly the view's exported
//!   tools ([`crate::exported::Exported::searchable`]), so nothing outside the view, and
//!   nothing of another person's, is ever found; a tool whose exported name is the query
//!   comes first.
//! - `describe_tool` answers an exported tool of the view as `tools/list` in `all` mode would
//!   show it.
//! - `call_tool` is taken apart before anything else looks at the call ([`intercept`]): the
//!   call goes on as a direct `tools/call` of the named tool with its arguments, so approval,
//!   elicitation, tasks, progress, the tool-call service and its audit see the real tool.
//!
//! Every tool of the view stays callable directly by its exported name. The three names are
//! the gateway's in a `search` view: a view whose own tools would be exported under one of
//! them is refused when saved, and one that gains such a tool later keeps it callable
//! through `call_tool`.
//!
//! `notifications/tools/list_changed` reaches a `search` session only when what its
//! `tools/list` shows changed ([`listed_print`], compared by `crate::changes`): an upstream
//! whose unpinned tools change is searched anew without telling the client.

pub(crate) mod fixed;

use std::hash::{DefaultHasher, Hash, Hasher};

use rmcp::model::{CallToolRequestParams, CallToolResponse, CallToolResult, Tool};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value, json};
use switchboard_core::{ViewExposure, is_pinned};

use crate::error::GatewayError;
use crate::exported::Exported;
use crate::gateway::Gateway;
use crate::handler::GatewayHandler;
use crate::naming::Collision;
use crate::revision::Revision;
use crate::selection::Selection;
use crate::session::Scope;

/// The largest input schema (serialized) a search result carries; a larger one is left to
/// `describe_tool`.
const INLINE_SCHEMA_BYTES: usize = 2_000;
/// The most characters of a tool's description a search result carries.
const DESCRIPTION_CHARS: usize = 1_000;

/// What `tools/list` answers for `selection` in `search` mode: the fixed tools, then the
/// pinned ones in name order.
pub(crate) fn listed(selection: &Selection, exported: &Exported) -> Vec<Tool> {
    let mut tools = fixed::tools();
    tools.extend(
        exported
            .tools
            .iter()
            .filter(|tool| !fixed::is_fixed(&tool.name))
            .filter(|tool| {
                exported.resolve(&tool.name).is_some_and(|target| {
                    is_pinned(&selection.pinned, &target.server, &target.tool)
                })
            })
            .cloned(),
    );
    tools
}

/// A digest of a `tools/list` answer, to tell whether it changed.
pub(crate) fn print(tools: &[Tool]) -> u64 {
    let mut hasher = DefaultHasher::new();
    for tool in tools {
        // A tool always serializes; were it not to, its name stands for it.
        match serde_json::to_string(tool) {
            Ok(text) => text.hash(&mut hasher),
            Err(_) => tool.name.hash(&mut hasher),
        }
    }
    hasher.finish()
}

/// The digest of what `tools/list` shows `scope` now, when its view is in `search` mode;
/// `None` for every other scope (whose clients hear of every change).
pub(crate) async fn listed_print(gateway: &Gateway, scope: &Scope) -> Option<u64> {
    scope.view.as_ref()?;
    match gateway.exports(scope).await {
        Ok((selection, exported)) if selection.exposure == ViewExposure::Search => {
            Some(print(&listed(&selection, &exported)))
        }
        Ok(_) => None,
        Err(error) => {
            tracing::debug!(%error, "could not read a session's tools");
            None
        }
    }
}

/// The view's tools exported under a name of the fixed tools', each as a collision with the
/// gateway's own tool of that name (reported, and refused when the view is saved).
pub(crate) fn fixed_collisions(selection: &Selection, exported: &Exported) -> Vec<Collision> {
    fixed::NAMES
        .iter()
        .filter_map(|name| {
            let target = exported.resolve(name)?;
            let server = selection
                .servers
                .iter()
                .find(|selected| selected.spec.id == target.server)
                .map_or_else(|| target.server.0.clone(), |s| s.spec.name.clone());
            Some(Collision {
                name: (*name).to_owned(),
                tools: vec![
                    (server, target.tool.clone()),
                    (GATEWAY.to_owned(), (*name).to_owned()),
                ],
            })
        })
        .collect()
}

/// How a collision names the gateway's own tools.
const GATEWAY: &str = "switchboard";

/// What becomes of a `tools/call`.
pub(crate) enum Intercepted {
    /// A fixed tool's own answer.
    Answer(CallToolResponse),
    /// A call of a tool of the view, to be made as any direct call is.
    Call(CallToolRequestParams),
}

/// Answers `search_tools` and `describe_tool`, and turns `call_tool` into the call it names,
/// when the scope's view is in `search` mode; any other call is passed on as it came.
pub(crate) async fn intercept(
    handler: &GatewayHandler,
    context: &RequestContext<RoleServer>,
    scope: &Scope,
    params: CallToolRequestParams,
) -> Result<Intercepted, ErrorData> {
    if scope.view.is_none() || !fixed::is_fixed(&params.name) {
        return Ok(Intercepted::Call(params));
    }
    let gateway = &handler.gateway;
    let selection = Selection::of(gateway.store.as_ref(), scope).await?;
    if selection.exposure != ViewExposure::Search {
        return Ok(Intercepted::Call(params));
    }
    if params.name == fixed::CALL_TOOL {
        // The named tool is resolved as a direct call's name is, from the kept export list.
        let asked = fixed::call(params.arguments.as_ref())?;
        let mut params = params;
        params.name = asked.name.into();
        params.arguments = asked.arguments;
        return Ok(Intercepted::Call(params));
    }
    let revision = Revision::of(context.protocol_version());
    let answer = if params.name == fixed::SEARCH_TOOLS {
        let asked = fixed::search(params.arguments.as_ref())?;
        let (selection, exported) = gateway.exports(scope).await?;
        search(gateway, scope, &selection, &exported, &asked).await
    } else {
        let name = fixed::describe(params.arguments.as_ref())?;
        let (_, exported) = gateway.exports(scope).await?;
        describe(&exported, &revision, &name)?
    };
    Ok(Intercepted::Answer(CallToolResponse::Complete(
        revision.result(answer),
    )))
}

/// `search_tools`: the view's best tools for the query, best first.
async fn search(
    gateway: &Gateway,
    scope: &Scope,
    selection: &Selection,
    exported: &Exported,
    asked: &fixed::Search,
) -> CallToolResult {
    let searchable = exported.searchable();
    let found = gateway
        .search
        .search(&scope.user.id, &searchable.offer, &asked.query, asked.limit)
        .await;
    let mut names: Vec<&str> = found
        .iter()
        .filter_map(|found| searchable.exported_name(&found.name))
        .collect();
    // A client often searches by the exact name it saw before: that tool comes first.
    let query = asked.query.trim();
    if exported.resolve(query).is_some() {
        names.retain(|name| *name != query);
        names.insert(0, query);
        names.truncate(asked.limit);
    }
    let tools: Vec<Value> = names
        .into_iter()
        .filter_map(|name| {
            let tool = exported.tool(name)?;
            let target = exported.resolve(name)?;
            let server = selection
                .servers
                .iter()
                .find(|selected| selected.spec.id == target.server)?;
            Some(found_tool(tool, server.spec.name.clone()))
        })
        .collect();
    CallToolResult::structured(json!({ "tools": tools }))
}

/// One tool a search found, as `search_tools` answers it.
fn found_tool(tool: &Tool, server: String) -> Value {
    let mut entry = Map::new();
    entry.insert("name".into(), json!(tool.name));
    if let Some(title) = &tool.title {
        entry.insert("title".into(), json!(title));
    }
    let description: String = tool
        .description
        .as_deref()
        .unwrap_or_default()
        .chars()
        .take(DESCRIPTION_CHARS)
        .collect();
    entry.insert("description".into(), json!(description));
    entry.insert("server".into(), json!(server));
    let schema = Value::Object(tool.input_schema.as_ref().clone());
    if schema.to_string().len() <= INLINE_SCHEMA_BYTES {
        entry.insert("inputSchema".into(), schema);
    } else {
        entry.insert("inputSchemaOmitted".into(), json!(true));
    }
    Value::Object(entry)
}

/// `describe_tool`: the tool as `tools/list` in `all` mode shows it to this client.
fn describe(
    exported: &Exported,
    revision: &Revision,
    name: &str,
) -> Result<CallToolResult, ErrorData> {
    let tool = exported
        .tool(name)
        .ok_or_else(|| GatewayError::ToolNotFound(name.to_owned()))?;
    let shown = serde_json::to_value(revision.tool(tool.clone()))
        .map_err(|_| ErrorData::internal_error("the tool could not be written", None))?;
    Ok(CallToolResult::structured(shown))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use switchboard_core::PinnedTool;

    use super::*;

    fn tool(name: &str, schema: Value) -> Tool {
        let Value::Object(schema) = schema else {
            panic!("a schema object")
        };
        Tool::new_with_raw(
            name.to_owned(),
            Some("does things".into()),
            Arc::new(schema),
        )
    }

    #[test]
    fn a_found_tool_carries_a_small_schema_and_points_to_describe_for_a_large_one() {
        let small = found_tool(
            &tool(
                "echo",
                json!({"type": "object", "properties": {"text": {"type": "string"}}}),
            ),
            "demo".into(),
        );
        assert_eq!(small["name"], "echo");
        assert_eq!(small["server"], "demo");
        assert_eq!(small["inputSchema"]["properties"]["text"]["type"], "string");
        assert!(small.get("inputSchemaOmitted").is_none());
        let properties: Map<String, Value> = (0..200)
            .map(|i| {
                (
                    format!("field_{i}"),
                    json!({"type": "string", "description": "x"}),
                )
            })
            .collect();
        let large = found_tool(
            &tool("big", json!({"type": "object", "properties": properties})),
            "demo".into(),
        );
        assert!(large.get("inputSchema").is_none());
        assert_eq!(large["inputSchemaOmitted"], true);
    }

    #[test]
    fn the_print_follows_what_is_listed() {
        let one = vec![tool("a", json!({"type": "object"}))];
        let same = vec![tool("a", json!({"type": "object"}))];
        let other = vec![tool("a", json!({"type": "object", "required": ["x"]}))];
        assert_eq!(print(&one), print(&same));
        assert_ne!(print(&one), print(&other));
        assert_ne!(print(&one), print(&[]));
    }

    #[test]
    fn only_pins_of_the_view_are_listed_beside_the_fixed_tools() {
        use switchboard_core::{ServerSpec, ToolInfo};

        use crate::selection::SelectedServer;

        let (a, b) = (
            ServerSpec::stdio("a", "cmd", Vec::<String>::new()),
            ServerSpec::stdio("b", "cmd", Vec::<String>::new()),
        );
        let info = |server: &ServerSpec, name: &str| -> ToolInfo {
            serde_json::from_value(json!({
                "serverId": server.id.0, "name": name, "inputSchema": {"type": "object"}
            }))
            .unwrap_or_else(|e| panic!("{e}"))
        };
        let (a_arc, b_arc) = (Arc::new(a.clone()), Arc::new(b.clone()));
        let offer = switchboard_agent::Offer::from_tools(
            vec![
                (Arc::clone(&a_arc), info(&a, "echo")),
                (Arc::clone(&a_arc), info(&a, "add")),
                (Arc::clone(&b_arc), info(&b, "fetch")),
                (Arc::clone(&b_arc), info(&b, "search_tools")),
                (b_arc, info(&b, "get")),
            ],
            Vec::new(),
        );
        let pinned = |server: &ServerSpec, tool: Option<&str>| PinnedTool {
            server_id: server.id.clone(),
            tool: tool.map(str::to_owned),
        };
        let selection = Selection {
            servers: [&a, &b]
                .into_iter()
                .map(|spec| SelectedServer {
                    spec: Arc::new(spec.clone()),
                    tools: None,
                    prefix: Some(String::new()),
                })
                .collect(),
            exposure: ViewExposure::Search,
            pinned: vec![pinned(&a, Some("echo")), pinned(&b, None)],
        };
        let exported = Exported::build(&selection, &offer, crate::naming::DEFAULT_TEMPLATE);
        let names: Vec<String> = listed(&selection, &exported)
            .into_iter()
            .map(|t| t.name.into_owned())
            .collect();
        // `a`'s echo and every tool of `b`, but the one that would shadow a fixed tool.
        assert_eq!(
            names,
            [
                "search_tools",
                "describe_tool",
                "call_tool",
                "echo",
                "fetch",
                "get"
            ]
        );
        let collisions = fixed_collisions(&selection, &exported);
        assert_eq!(collisions.len(), 1);
        assert_eq!(collisions[0].name, "search_tools");
        assert_eq!(
            collisions[0].tools,
            [
                ("b".to_owned(), "search_tools".to_owned()),
                ("switchboard".to_owned(), "search_tools".to_owned())
            ]
        );
        // The search offer holds exactly the exported tools, each back to its exported name.
        let searchable = exported.searchable();
        assert_eq!(searchable.offer.tools().len(), 5);
        for offered in searchable.offer.tools() {
            let name = searchable
                .exported_name(&offered.display_name)
                .unwrap_or_else(|| panic!("{}", offered.display_name));
            assert_eq!(name, offered.tool.name);
        }
        // Nothing exported: the fixed tools alone.
        let empty: Vec<String> = listed(&selection, &Exported::default())
            .into_iter()
            .map(|t| t.name.into_owned())
            .collect();
        assert_eq!(empty, fixed::NAMES);
    }
}
