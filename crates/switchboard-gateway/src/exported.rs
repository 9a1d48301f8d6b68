//! The exported tools of a selection, with the table from exported names back to
//! (server, tool).
//!
//! Which tools are offered and their default names are the offer's
//! ([`switchboard_agent::offer`], the one owner the chat, the REST API and the command line
//! ask too); the export list keeps the tools the view selects and names them by the view's
//! prefix or the configured template where those differ from the default.
//!
//! `tools/list` builds the export list afresh each time from the pool's tool lists (which the pool
//! caches, and drops when a server says its list changed), so a client re-listing after
//! `notifications/tools/list_changed` sees the change. The export list is then kept per (person,
//! view) for calls, the hot path, which must not list every server: a call resolves its name
//! in the kept export list while the selection it was built from is unchanged (a fingerprint of
//! the servers' specs, tool sets and prefixes, read from the store on every request) and for
//! [`CALL_FRESH_FOR`] at most, and builds a new one when the name is unknown to an export list
//! older than [`FRESH_FOR`]. A kept export list never makes a tool callable that should not be:
//! the server and tool are checked against the selection read for that very call, and the
//! tool-call service checks the server's current tool list and switched-off tools again.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use rmcp::model::{Icon, IconTheme, MetaObject, Tool, ToolAnnotations as McpAnnotations};
use serde_json::{Map, Value};
use switchboard_agent::approval::{self, Needed};
use switchboard_agent::offer::OfferedTool;
use switchboard_agent::{ApprovalPolicy, Offer};
use switchboard_core::{
    OwnerId, ServerId, ServerSpec, TaskSupport, ToolAnnotations, ToolIcon, ToolInfo, ViewExposure,
    ViewSpec,
};
use switchboard_mcp::ServerPool;
use switchboard_store::User;

use crate::content::uri;
use crate::error::GatewayError;
use crate::gateway::Gateway;
use crate::naming::{Candidate, Collision, name_all};
use crate::selection::{SelectedServer, Selection};
use crate::session::Scope;

/// A call naming a tool unknown to an export list younger than this is refused without listing
/// the servers again (so unknown names cannot make every call list them).
pub(crate) const FRESH_FOR: Duration = Duration::from_secs(2);
/// How long a call resolves names in an export list that knows them.
pub(crate) const CALL_FRESH_FOR: Duration = Duration::from_secs(60);

/// Where an exported name leads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    pub server: ServerId,
    /// The tool's own name on the server.
    pub tool: String,
    /// How its server runs it as a task; `None`: the server runs no tasks.
    pub tasks: Option<TaskSupport>,
}

/// The tools a scope sees, under their exported names.
#[derive(Debug, Default)]
pub(crate) struct Exported {
    /// As `tools/list` answers, sorted by exported name.
    pub tools: Vec<Tool>,
    by_name: HashMap<String, Target>,
    pub collisions: Vec<Collision>,
    /// Each exported tool as its server listed it, with its exported name: what a search
    /// over the exported tools indexes.
    sources: Vec<(Arc<ServerSpec>, ToolInfo, String)>,
    /// The offer of exactly the exported tools, made on the first search.
    searchable: OnceLock<Searchable>,
}

/// The exported tools as an offer the tool search takes, and each offered (display) name's
/// exported name.
#[derive(Debug)]
pub(crate) struct Searchable {
    pub offer: Offer,
    exported_names: HashMap<String, String>,
}

impl Searchable {
    /// The exported name of the tool offered as `display_name`.
    pub(crate) fn exported_name(&self, display_name: &str) -> Option<&str> {
        self.exported_names.get(display_name).map(String::as_str)
    }
}

impl Exported {
    /// The selection's export list, from the offer of its servers ([`Offer::gather`], the one
    /// owner of which tools are offered and under which name): a server whose listing fails is
    /// left out and logged.
    pub(crate) async fn list(
        servers: &dyn ServerPool,
        owner: &OwnerId,
        selection: &Selection,
        template: &str,
    ) -> Exported {
        let specs: Vec<ServerSpec> = selection
            .servers
            .iter()
            .map(|s| ServerSpec::clone(&s.spec))
            .collect();
        let offer = Offer::gather(servers, owner, &specs, &[]).await;
        for gone in &offer.unavailable {
            tracing::warn!(
                server = %gone.server,
                error = %gone.reason,
                "gateway: a server's tools could not be listed; it is left out"
            );
        }
        Exported::build(selection, &offer, template)
    }

    /// The export list of `selection` given the offer of its servers: the tools the view
    /// selects, under the offer's names, or the view's prefix or the configured template.
    pub(crate) fn build(selection: &Selection, offer: &Offer, template: &str) -> Exported {
        // One pass over the offer: names do not depend on the order (see `naming`), and the
        // list is sorted by name at the end.
        let selected: HashMap<&ServerId, &SelectedServer> = selection
            .servers
            .iter()
            .map(|selected| (&selected.spec.id, selected))
            .collect();
        let offered: Vec<(&SelectedServer, &OfferedTool)> = offer
            .tools()
            .iter()
            .filter_map(|t| {
                let server = selected.get(&t.server.id)?;
                server.offers(&t.tool.name).then_some((*server, t))
            })
            .collect();
        let candidates: Vec<Candidate<'_>> = offered
            .iter()
            .map(|(selected, offered)| Candidate {
                server_id: &offered.server.id.0,
                server_name: &offered.server.name,
                tool: &offered.tool.name,
                prefix: selected.prefix.as_deref(),
                offered_name: Some(&offered.display_name),
            })
            .collect();
        let names = name_all(template, &candidates);
        let mut exported = Exported {
            collisions: names.collisions,
            ..Exported::default()
        };
        for ((server, offered), name) in offered.iter().zip(names.names) {
            let Some(name) = name else { continue };
            exported
                .tools
                .push(exported_tool(name.clone(), server, &offered.tool));
            exported.sources.push((
                Arc::clone(&offered.server),
                offered.tool.clone(),
                name.clone(),
            ));
            exported.by_name.insert(
                name,
                Target {
                    server: offered.server.id.clone(),
                    tool: offered.tool.name.clone(),
                    tasks: offered.tool.tasks.map(|tasks| tasks.support),
                },
            );
        }
        exported.tools.sort_by(|a, b| a.name.cmp(&b.name));
        exported
    }

    pub(crate) fn resolve(&self, name: &str) -> Option<&Target> {
        self.by_name.get(name)
    }

    /// The exported tool named `name`, as `tools/list` shows it.
    pub(crate) fn tool(&self, name: &str) -> Option<&Tool> {
        let at = self
            .tools
            .binary_search_by(|tool| tool.name.as_ref().cmp(name))
            .ok()?;
        self.tools.get(at)
    }

    /// The exported tools as an offer for the tool search (made once per export list).
    pub(crate) fn searchable(&self) -> &Searchable {
        self.searchable.get_or_init(|| {
            let offer = Offer::from_tools(
                self.sources
                    .iter()
                    .map(|(server, tool, _)| (Arc::clone(server), tool.clone()))
                    .collect(),
                Vec::new(),
            );
            let by_tool: HashMap<(&ServerId, &str), &str> = self
                .sources
                .iter()
                .map(|(server, tool, name)| ((&server.id, tool.name.as_str()), name.as_str()))
                .collect();
            let exported_names = offer
                .tools()
                .iter()
                .filter_map(|offered| {
                    let name = by_tool.get(&(&offered.server.id, offered.tool.name.as_str()))?;
                    Some((offered.display_name.clone(), (*name).to_owned()))
                })
                .collect();
            Searchable {
                offer,
                exported_names,
            }
        })
    }
}

/// The tool as the gateway offers it: the server's, every field as the server sent it, under
/// `name`, with the URIs its `_meta` links to as `server`'s resources are exported.
fn exported_tool(name: String, server: &SelectedServer, info: &ToolInfo) -> Tool {
    let mut tool = Tool::new_with_raw(
        name,
        info.description.clone().map(Into::into),
        Arc::new(info.input_schema.clone()),
    );
    tool.title = info.title.clone();
    tool.output_schema = info.output_schema.clone().map(Arc::new);
    tool.annotations = mcp_annotations(&info.annotations);
    let icons: Vec<Icon> = info
        .icons
        .iter()
        .filter(|icon| safe_icon_src(&icon.src))
        .map(mcp_icon)
        .collect();
    if !icons.is_empty() {
        tool.icons = Some(icons);
    }
    tool.meta = info
        .meta
        .clone()
        .map(|meta| MetaObject(exported_meta(server, meta)));
    tool
}

/// The keys of a tool's `_meta` that name one of its server's resources: MCP Apps' UI
/// resource (`ui.resourceUri`, and the flat `ui/resourceUri` of earlier drafts).
const UI_OBJECT: &str = "ui";
const UI_RESOURCE_URI: &str = "resourceUri";
const UI_RESOURCE_URI_FLAT: &str = "ui/resourceUri";

/// A tool's `_meta` with the resource URIs it names as the scope reads them, so a client
/// that follows the link reads the resource through the gateway; everything else as it is.
fn exported_meta(server: &SelectedServer, mut meta: Map<String, Value>) -> Map<String, Value> {
    let export = |value: &mut Value| {
        if let Value::String(uri) = value {
            *uri = uri::export(server, uri);
        }
    };
    if let Some(Value::Object(ui)) = meta.get_mut(UI_OBJECT)
        && let Some(value) = ui.get_mut(UI_RESOURCE_URI)
    {
        export(value);
    }
    if let Some(value) = meta.get_mut(UI_RESOURCE_URI_FLAT) {
        export(value);
    }
    meta
}

fn mcp_annotations(annotations: &ToolAnnotations) -> Option<McpAnnotations> {
    if *annotations == ToolAnnotations::default() {
        return None;
    }
    let mut out = McpAnnotations::default();
    out.title = annotations.title.clone();
    out.read_only_hint = annotations.read_only_hint;
    out.destructive_hint = annotations.destructive_hint;
    out.idempotent_hint = annotations.idempotent_hint;
    out.open_world_hint = annotations.open_world_hint;
    Some(out)
}

/// Only `https:` and `data:image/` icons are passed on: an upstream's `http:`, `file:` or
/// `javascript:` URL would have the client fetch or run what the upstream chose.
fn safe_icon_src(src: &str) -> bool {
    let lower = src.trim_start().to_ascii_lowercase();
    lower.starts_with("https:") || lower.starts_with("data:image/")
}

fn mcp_icon(icon: &ToolIcon) -> Icon {
    let mut out = Icon::new(icon.src.clone());
    out.mime_type = icon.mime_type.clone();
    out.sizes = icon.sizes.clone();
    out.theme = match icon.theme.as_deref() {
        Some("light") => Some(IconTheme::Light),
        Some("dark") => Some(IconTheme::Dark),
        _ => None,
    };
    out
}

/// What an export list was built from: changes whenever a server is edited, switched on or off,
/// has a tool switched off, or the view changes what it selects or how it names.
pub(crate) fn fingerprint(selection: &Selection, template: &str) -> u64 {
    /// Feeds serialized bytes straight into the hasher (no buffer per call).
    struct Feed<'a>(&'a mut DefaultHasher);
    impl std::io::Write for Feed<'_> {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.write(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut hasher = DefaultHasher::new();
    template.hash(&mut hasher);
    for server in &selection.servers {
        // A spec always serializes; were it not to, the error hashes as a marker and the
        // export list is simply rebuilt more often.
        if serde_json::to_writer(Feed(&mut hasher), server.spec.as_ref()).is_err() {
            0xdead_u32.hash(&mut hasher);
        }
        server.tools.hash(&mut hasher);
        server.prefix.hash(&mut hasher);
    }
    hasher.finish()
}

/// KeptExports kept per (person, view).
#[derive(Debug, Default)]
pub(crate) struct KeptExports {
    entries: Mutex<HashMap<(OwnerId, Option<String>), Cached>>,
}

#[derive(Debug)]
struct Cached {
    fingerprint: u64,
    built: Instant,
    exported: Arc<Exported>,
}

type Key = (OwnerId, Option<String>);

impl KeptExports {
    /// The kept export list built from this fingerprint, and its age.
    fn kept(&self, key: &Key, fingerprint: u64) -> Option<(Arc<Exported>, Duration)> {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let cached = entries.get(key)?;
        (cached.fingerprint == fingerprint)
            .then(|| (Arc::clone(&cached.exported), cached.built.elapsed()))
    }

    /// Keeps `export list` for calls, and logs the collisions the previous one did not have (so a
    /// lasting collision is logged once, not on every listing).
    fn keep(&self, key: Key, fingerprint: u64, exported: Arc<Exported>) {
        let previous = {
            let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
            // Old entries of people who stopped calling are dropped when the map is swept.
            if entries.len() > 4096 {
                entries.retain(|_, cached| cached.built.elapsed() < CALL_FRESH_FOR);
            }
            entries.insert(
                key.clone(),
                Cached {
                    fingerprint,
                    built: Instant::now(),
                    exported: Arc::clone(&exported),
                },
            )
        };
        let known = previous
            .map(|p| Arc::clone(&p.exported))
            .unwrap_or_default();
        for collision in &exported.collisions {
            if !known.collisions.contains(collision) {
                tracing::warn!(
                    owner = %key.0.0,
                    view = ?key.1,
                    name = %collision.name,
                    tools = ?collision.tools,
                    "gateway: exported tool names collide; each is offered under a suffixed name"
                );
            }
        }
    }

    /// Every export list of `owner` is built again on its next use.
    pub(crate) fn forget_owner(&self, owner: &OwnerId) {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        entries.retain(|(who, _), _| who != owner);
    }
}

impl Gateway {
    /// What `scope` sees now, and its export list built now from the pool's tool lists (and kept
    /// for calls).
    pub(crate) async fn exports(
        &self,
        scope: &Scope,
    ) -> Result<(Selection, Arc<Exported>), GatewayError> {
        let selection = Selection::of(self.store.as_ref(), scope).await?;
        let print = fingerprint(&selection, &self.config.name_template);
        let key = (scope.user.id.clone(), scope.view.clone());
        let exported = self.build(scope, &selection, key, print).await;
        Ok((selection, exported))
    }

    /// What `scope` sees now, and where the exported `name` leads in it (see the module docs
    /// for how old an export list a call may use).
    pub(crate) async fn export_of(
        &self,
        scope: &Scope,
        name: &str,
    ) -> Result<(Selection, Option<Target>), GatewayError> {
        let selection = Selection::of(self.store.as_ref(), scope).await?;
        let print = fingerprint(&selection, &self.config.name_template);
        let key = (scope.user.id.clone(), scope.view.clone());
        if let Some((exported, age)) = self.kept_exports.kept(&key, print) {
            match exported.resolve(name) {
                Some(target) if age < CALL_FRESH_FOR => {
                    return Ok((selection, Some(target.clone())));
                }
                None if age < FRESH_FOR => return Ok((selection, None)),
                _ => {}
            }
        }
        let exported = self.build(scope, &selection, key, print).await;
        let target = exported.resolve(name).cloned();
        Ok((selection, target))
    }

    async fn build(
        &self,
        scope: &Scope,
        selection: &Selection,
        key: Key,
        print: u64,
    ) -> Arc<Exported> {
        let template = &self.config.name_template;
        let exported = Arc::new(
            Exported::list(self.servers.as_ref(), &scope.user.id, selection, template).await,
        );
        self.kept_exports.keep(key, print, Arc::clone(&exported));
        exported
    }

    /// The exported names that several tools of `spec` (a view of `user`'s, perhaps not saved
    /// yet) would want, with the tools wanting each, from the servers' current tool lists. A
    /// view is refused when this is not empty; for a saved view, the same collisions are
    /// logged and resolved by suffixing (see [`crate::naming`]).
    pub async fn view_collisions(
        &self,
        user: &User,
        spec: &ViewSpec,
    ) -> Result<Vec<Collision>, GatewayError> {
        Ok(self.view_report(user, spec).await?.collisions)
    }

    /// What the view `spec` of `user`'s offers now: its names' collisions (in `search` mode,
    /// a tool exported under a name of the search tools' too), and which of its tools ask a
    /// person before they run (their servers do not auto-approve them).
    pub async fn view_report(
        &self,
        user: &User,
        spec: &ViewSpec,
    ) -> Result<ViewReport, GatewayError> {
        let scope = Scope {
            user: user.clone(),
            view: Some(spec.name.clone()),
        };
        let specs = self.store.connection_specs(&user.id).await?;
        let selection = Selection::of_view(self.store.as_ref(), &scope, spec, specs).await?;
        let exported = Exported::list(
            self.servers.as_ref(),
            &user.id,
            &selection,
            &self.config.name_template,
        )
        .await;
        let asking = exported
            .tools
            .iter()
            .filter(|tool| {
                let Some(target) = exported.resolve(&tool.name) else {
                    return false;
                };
                selection.servers.iter().any(|selected| {
                    selected.spec.id == target.server
                        && approval::needed(&selected.spec, &target.tool, ApprovalPolicy::Ask)
                            == Needed::Person
                })
            })
            .map(|tool| tool.name.to_string())
            .collect();
        let fixed = match spec.tool_exposure {
            ViewExposure::Search => crate::search::fixed_collisions(&selection, &exported),
            ViewExposure::All => Vec::new(),
        };
        let mut collisions = exported.collisions;
        collisions.extend(fixed);
        Ok(ViewReport { collisions, asking })
    }
}

/// What a view offers now ([`Gateway::view_report`]).
#[derive(Debug, Clone, Default)]
pub struct ViewReport {
    /// Exported names several of its tools want.
    pub collisions: Vec<Collision>,
    /// The exported names of its tools that ask a person before they run, sorted.
    pub asking: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str) -> ServerSpec {
        ServerSpec::stdio(name, "cmd", Vec::<String>::new())
    }

    fn tool(server: &ServerSpec, name: &str) -> ToolInfo {
        serde_json::from_value(serde_json::json!({
            "serverId": server.id.0,
            "name": name,
            "title": format!("{name} title"),
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true},
            "icons": [
                {"src": "data:image/png;base64,AA==", "theme": "dark"},
                {"src": "javascript:alert(1)"},
                {"src": "http://169.254.169.254/icon.png"},
                {"src": "file:///etc/passwd"},
            ],
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    fn selected(spec: &ServerSpec, tools: Option<&[&str]>, prefix: Option<&str>) -> SelectedServer {
        SelectedServer {
            spec: Arc::new(spec.clone()),
            tools: tools.map(|t| t.iter().map(|s| (*s).to_owned()).collect()),
            prefix: prefix.map(str::to_owned),
        }
    }

    #[test]
    fn a_view_selects_tools_names_them_and_skips_a_failing_server() {
        let (a, b, down) = (spec("a"), spec("b"), spec("down"));
        let selection = Selection {
            servers: vec![
                selected(&a, Some(&["echo"]), Some("")),
                selected(&b, None, Some("b.")),
                selected(&down, None, None),
            ],
            ..Selection::default()
        };
        // The offer of the three: `down` could not be listed.
        let (a_arc, b_arc) = (Arc::new(a.clone()), Arc::new(b.clone()));
        let offer = Offer::from_tools(
            vec![
                (Arc::clone(&a_arc), tool(&a, "echo")),
                (a_arc, tool(&a, "hidden")),
                (b_arc, tool(&b, "echo")),
            ],
            vec![switchboard_agent::offer::UnavailableServer {
                server_id: down.id.clone(),
                server: down.name.clone(),
                code: switchboard_core::ErrorCode::McpConnectionError,
                reason: "the connection was lost".into(),
            }],
        );
        let exported = Exported::build(&selection, &offer, crate::naming::DEFAULT_TEMPLATE);
        let names: Vec<&str> = exported.tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["b.echo", "echo"]);
        assert_eq!(
            exported.resolve("echo"),
            Some(&Target {
                server: a.id.clone(),
                tool: "echo".into(),
                tasks: None,
            })
        );
        assert_eq!(exported.resolve("hidden"), None);
        assert_eq!(exported.resolve("mcp__a__hidden"), None);
        let echo = &exported.tools[1];
        assert_eq!(echo.title.as_deref(), Some("echo title"));
        assert!(echo.output_schema.is_some());
        assert_eq!(
            echo.annotations.as_ref().and_then(|a| a.read_only_hint),
            Some(true)
        );
        let icons = echo.icons.as_deref().unwrap_or_default();
        assert_eq!(icons.len(), 1);
        assert_eq!(icons[0].theme, Some(IconTheme::Dark));
        assert!(exported.collisions.is_empty());
    }

    #[test]
    fn only_https_and_image_data_icons_are_passed_on() {
        assert!(safe_icon_src("https://example.com/i.png"));
        assert!(safe_icon_src("data:image/svg+xml;base64,AA=="));
        assert!(!safe_icon_src("http://example.com/i.png"));
        assert!(!safe_icon_src("data:text/html,<script>"));
        assert!(!safe_icon_src("JavaScript:alert(1)"));
        let a = spec("a");
        let info = tool(&a, "x");
        let exported = exported_tool("x".into(), &selected(&a, None, None), &info);
        let icons = exported.icons.unwrap_or_default();
        assert_eq!(icons.len(), 1);
        assert!(icons[0].src.starts_with("data:image/"));
    }

    #[test]
    fn a_tools_meta_is_relayed_with_its_ui_resource_as_the_scope_reads_it() {
        let a = spec("a");
        let mut info = tool(&a, "chart");
        let meta = serde_json::json!({
            "ui": {"resourceUri": "ui://chart/app.html", "visibility": ["model", "app"]},
            "ui/resourceUri": "ui://chart/app.html",
            "com.example/anything": {"kept": [1, 2, 3]},
        });
        info.meta = meta.as_object().cloned();

        let namespaced = exported_tool("chart".into(), &selected(&a, None, None), &info);
        let out = serde_json::to_value(namespaced.meta).unwrap_or_default();
        let wrapped = format!("switchboard://{}/ui%3A%2F%2Fchart%2Fapp.html", a.id.0);
        assert_eq!(out["ui"]["resourceUri"], wrapped.as_str());
        assert_eq!(out["ui/resourceUri"], wrapped.as_str());
        assert_eq!(out["ui"]["visibility"], meta["ui"]["visibility"]);
        assert_eq!(out["com.example/anything"], meta["com.example/anything"]);
        assert_eq!(
            uri::unwrap(&wrapped),
            Some((a.id.0.clone(), "ui://chart/app.html".to_owned()))
        );

        // An unprefixed view passes the server's own URIs: the whole `_meta` as it came.
        let plain = exported_tool("chart".into(), &selected(&a, None, Some("")), &info);
        assert_eq!(serde_json::to_value(plain.meta).unwrap_or_default(), meta);
    }

    #[test]
    fn the_fingerprint_follows_what_the_exports_depend_on() {
        let a = spec("a");
        let of = |spec: &ServerSpec, prefix: Option<&str>| Selection {
            servers: vec![selected(spec, None, prefix)],
            ..Selection::default()
        };
        let base = fingerprint(&of(&a, None), "t{tool}");
        assert_eq!(base, fingerprint(&of(&a, None), "t{tool}"));
        assert_ne!(base, fingerprint(&of(&a, Some("")), "t{tool}"));
        assert_ne!(base, fingerprint(&of(&a, None), "u{tool}"));
        let mut disabled = a.clone();
        disabled.disabled_tools.insert("echo".into());
        assert_ne!(base, fingerprint(&of(&disabled, None), "t{tool}"));
    }
}
