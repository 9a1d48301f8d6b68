//! `[quotas]`: the limits of README "Security": how much one user may store and run, how
//! fast they may write and fail to authenticate, what members may launch and reach.

use std::time::Duration;

use switchboard_app::limits::{Limits, Rate};
use switchboard_core::LaunchRules;
use switchboard_core::destination::DestinationRules;

use super::error::SettingsError;
use super::key::Key;
use super::layers::Layers;
use super::value::{Destination, Template};

const MAX_SERVERS: Key = Key::new("quotas", "max_servers", "100")
    .env("SWITCHBOARD_MAX_SERVERS")
    .flag("--max-servers");
const MAX_ASSISTANTS: Key = Key::new("quotas", "max_assistants", "100")
    .env("SWITCHBOARD_MAX_ASSISTANTS")
    .flag("--max-assistants");
const MAX_PROVIDERS: Key = Key::new("quotas", "max_providers", "20")
    .env("SWITCHBOARD_MAX_PROVIDERS")
    .flag("--max-providers");
const MAX_TOOL_NODES: Key = Key::new("quotas", "max_tool_nodes", "200")
    .env("SWITCHBOARD_MAX_TOOL_NODES")
    .flag("--max-tool-nodes");
const MAX_VIEWS: Key = Key::new("quotas", "max_views", "50")
    .env("SWITCHBOARD_MAX_VIEWS")
    .flag("--max-views");
const MAX_CONVERSATIONS: Key = Key::new("quotas", "max_conversations", "10000")
    .env("SWITCHBOARD_MAX_CONVERSATIONS")
    .flag("--max-conversations");
const MAX_MESSAGES: Key = Key::new("quotas", "max_messages", "200000")
    .env("SWITCHBOARD_MAX_MESSAGES")
    .flag("--max-messages");
const MAX_EVENT_STREAMS: Key = Key::new("quotas", "max_event_streams", "8")
    .env("SWITCHBOARD_MAX_EVENT_STREAMS")
    .flag("--max-event-streams");
const MAX_RUNS: Key = Key::new("quotas", "max_runs", "4")
    .env("SWITCHBOARD_MAX_RUNS")
    .flag("--max-runs");
const MAX_CONNECTIONS: Key = Key::new("quotas", "max_connections", "1024")
    .env("SWITCHBOARD_MAX_CONNECTIONS")
    .flag("--max-connections");
const HEADER_READ_TIMEOUT: Key = Key::new("quotas", "header_read_timeout", "20s")
    .env("SWITCHBOARD_HEADER_READ_TIMEOUT")
    .flag("--header-read-timeout");
const BODY_READ_TIMEOUT: Key = Key::new("quotas", "body_read_timeout", "30s")
    .env("SWITCHBOARD_BODY_READ_TIMEOUT")
    .flag("--body-read-timeout");
const WRITE_BURST: Key = Key::new("quotas", "write_burst", "60")
    .env("SWITCHBOARD_WRITE_BURST")
    .flag("--write-burst");
const WRITE_INTERVAL: Key = Key::new("quotas", "write_interval", "100ms")
    .env("SWITCHBOARD_WRITE_INTERVAL")
    .flag("--write-interval");
const AUTH_FAILURE_BURST: Key = Key::new("quotas", "auth_failure_burst", "20")
    .env("SWITCHBOARD_AUTH_FAILURE_BURST")
    .flag("--auth-failure-burst");
const AUTH_FAILURE_INTERVAL: Key = Key::new("quotas", "auth_failure_interval", "3s")
    .env("SWITCHBOARD_AUTH_FAILURE_INTERVAL")
    .flag("--auth-failure-interval");
const AUDIT_RECORDS: Key = Key::new("quotas", "audit_records", "10000")
    .env("SWITCHBOARD_AUDIT_RECORDS")
    .flag("--audit-records");
const MAX_MCP_SESSIONS: Key = Key::new("quotas", "max_mcp_sessions", "32")
    .env("SWITCHBOARD_MAX_MCP_SESSIONS")
    .flag("--max-mcp-sessions");
const MAX_TASKS: Key = Key::new("quotas", "max_tasks", "20")
    .env("SWITCHBOARD_MAX_TASKS")
    .flag("--max-tasks");
const MAX_TASKS_PER_SERVER: Key = Key::new("quotas", "max_tasks_per_server", "5")
    .env("SWITCHBOARD_MAX_TASKS_PER_SERVER")
    .flag("--max-tasks-per-server");
const LAUNCH_TEMPLATES: Key = Key::new("quotas", "launch_templates", "")
    .env("SWITCHBOARD_LAUNCH_TEMPLATES")
    .flag("--launch-template");
const ALLOWED_DESTINATIONS: Key = Key::new("quotas", "allowed_destinations", "")
    .env("SWITCHBOARD_ALLOW_DESTINATIONS")
    .flag("--allow-destination");

/// Quotas and limits (README "Security"); admins are under them too.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct QuotaFlags {
    /// MCP servers one user may store [default: 100].
    #[arg(long, value_name = "N")]
    pub max_servers: Option<String>,
    /// Assistants one user may store [default: 100].
    #[arg(long, value_name = "N")]
    pub max_assistants: Option<String>,
    /// Providers one user may store [default: 20].
    #[arg(long, value_name = "N")]
    pub max_providers: Option<String>,
    /// Tool nodes (workflow tool configurations) one user may store [default: 200].
    #[arg(long, value_name = "N")]
    pub max_tool_nodes: Option<String>,
    /// Views of the MCP gateway (`/mcp/v/{name}`) one user may store [default: 50].
    #[arg(long, value_name = "N")]
    pub max_views: Option<String>,
    /// Event streams (`GET /api/events`) one user may have open at once [default: 8].
    #[arg(long, value_name = "N")]
    pub max_event_streams: Option<String>,
    /// Runs one user may have going on at once [default: 4].
    #[arg(long, value_name = "N")]
    pub max_runs: Option<String>,
    /// Conversations one user may keep [default: 10000].
    #[arg(long, value_name = "N")]
    pub max_conversations: Option<String>,
    /// Messages one user may keep in all their conversations; past it, new turns are refused
    /// [default: 200000].
    #[arg(long, value_name = "N")]
    pub max_messages: Option<String>,
    /// Connections served at once; more wait until one closes [default: 1024].
    #[arg(long, value_name = "N")]
    pub max_connections: Option<String>,
    /// How long a connection may take to send a request header, and stay idle between
    /// requests [default: 20s].
    #[arg(long, value_name = "DURATION")]
    pub header_read_timeout: Option<String>,
    /// How long a request's body may take to arrive once its header has; slower ones get 408
    /// [default: 30s].
    #[arg(long, value_name = "DURATION")]
    pub body_read_timeout: Option<String>,
    /// Writes (POST, PUT, PATCH, DELETE) one user may make at once... [default: 60]
    #[arg(long, value_name = "N")]
    pub write_burst: Option<String>,
    /// ...and then one per this interval [default: 100ms].
    #[arg(long, value_name = "DURATION")]
    pub write_interval: Option<String>,
    /// Failed authentications allowed per address (and per token) at once... [default: 20]
    #[arg(long, value_name = "N")]
    pub auth_failure_burst: Option<String>,
    /// ...and then one per this interval [default: 3s].
    #[arg(long, value_name = "DURATION")]
    pub auth_failure_interval: Option<String>,
    /// Tool-call audit records kept per user (`GET /api/tool-calls`); older ones are
    /// deleted [default: 10000].
    #[arg(long, value_name = "N")]
    pub audit_records: Option<String>,
    /// MCP gateway sessions (`/mcp`) one user may have open at once [default: 32].
    #[arg(long, value_name = "N")]
    pub max_mcp_sessions: Option<String>,
    /// Tool calls running as tasks one user may have at once [default: 20].
    #[arg(long, value_name = "N")]
    pub max_tasks: Option<String>,
    /// Tool calls running as tasks one user may have on one server at once [default: 5].
    #[arg(long, value_name = "N")]
    pub max_tasks_per_server: Option<String>,
    /// A launch template: a stdio server members may run (admins may run any), written
    /// `PROGRAM [ARG]... [env=NAME,...]`. Arguments are matched one for one; an argument with a
    /// `*` takes one package name there (`npx -y @modelcontextprotocol/server-*`); `env=` lists
    /// the variables members may set. Repeat for more, or separate them with `;` in
    /// SWITCHBOARD_LAUNCH_TEMPLATES.
    #[arg(long = "launch-template", value_name = "TEMPLATE")]
    pub launch_templates: Vec<String>,
    /// A host name, IP address or network (CIDR, such as 10.20.0.0/16) members' MCP servers
    /// and providers may reach although it is not a public address. With tokens, members
    /// reach public addresses only; admins and --single-user are not limited. Repeat for
    /// more, or list them comma-separated in SWITCHBOARD_ALLOW_DESTINATIONS.
    #[arg(
        long = "allow-destination",
        value_name = "DESTINATION",
        value_delimiter = ','
    )]
    pub allow_destinations: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct QuotaSettings {
    pub max_servers: u32,
    pub max_assistants: u32,
    pub max_providers: u32,
    pub max_tool_nodes: u32,
    pub max_views: u32,
    pub max_event_streams: usize,
    pub max_runs: usize,
    pub max_conversations: u32,
    pub max_messages: u32,
    pub max_connections: usize,
    pub header_read_timeout: Duration,
    pub body_read_timeout: Duration,
    pub write_burst: u32,
    pub write_interval: Duration,
    pub auth_failure_burst: u32,
    pub auth_failure_interval: Duration,
    pub audit_records: u32,
    pub max_mcp_sessions: usize,
    pub max_tasks: u32,
    pub max_tasks_per_server: u32,
    pub launch_templates: Vec<Template>,
    pub allowed_destinations: Vec<Destination>,
}

impl QuotaSettings {
    pub fn load(layers: &mut Layers<'_>, flags: &QuotaFlags) -> Result<Self, SettingsError> {
        Ok(Self {
            max_servers: layers.take(&MAX_SERVERS, flags.max_servers.as_slice())?,
            max_assistants: layers.take(&MAX_ASSISTANTS, flags.max_assistants.as_slice())?,
            max_providers: layers.take(&MAX_PROVIDERS, flags.max_providers.as_slice())?,
            max_tool_nodes: layers.take(&MAX_TOOL_NODES, flags.max_tool_nodes.as_slice())?,
            max_views: layers.take(&MAX_VIEWS, flags.max_views.as_slice())?,
            max_event_streams: layers
                .take(&MAX_EVENT_STREAMS, flags.max_event_streams.as_slice())?,
            max_runs: layers.take(&MAX_RUNS, flags.max_runs.as_slice())?,
            max_conversations: layers
                .take(&MAX_CONVERSATIONS, flags.max_conversations.as_slice())?,
            max_messages: layers.take(&MAX_MESSAGES, flags.max_messages.as_slice())?,
            max_connections: layers.take(&MAX_CONNECTIONS, flags.max_connections.as_slice())?,
            header_read_timeout: layers
                .take(&HEADER_READ_TIMEOUT, flags.header_read_timeout.as_slice())?,
            body_read_timeout: layers
                .take(&BODY_READ_TIMEOUT, flags.body_read_timeout.as_slice())?,
            write_burst: layers.take(&WRITE_BURST, flags.write_burst.as_slice())?,
            write_interval: layers.take(&WRITE_INTERVAL, flags.write_interval.as_slice())?,
            auth_failure_burst: layers
                .take(&AUTH_FAILURE_BURST, flags.auth_failure_burst.as_slice())?,
            auth_failure_interval: layers.take(
                &AUTH_FAILURE_INTERVAL,
                flags.auth_failure_interval.as_slice(),
            )?,
            audit_records: layers.take(&AUDIT_RECORDS, flags.audit_records.as_slice())?,
            max_mcp_sessions: layers.take(&MAX_MCP_SESSIONS, flags.max_mcp_sessions.as_slice())?,
            max_tasks: layers.take(&MAX_TASKS, flags.max_tasks.as_slice())?,
            max_tasks_per_server: layers
                .take(&MAX_TASKS_PER_SERVER, flags.max_tasks_per_server.as_slice())?,
            launch_templates: layers.take(&LAUNCH_TEMPLATES, &flags.launch_templates)?,
            allowed_destinations: layers.take(&ALLOWED_DESTINATIONS, &flags.allow_destinations)?,
        })
    }

    pub fn limits(&self) -> Limits {
        Limits {
            max_servers: self.max_servers,
            max_assistants: self.max_assistants,
            max_providers: self.max_providers,
            max_tool_nodes: self.max_tool_nodes,
            max_views: self.max_views,
            max_event_streams: self.max_event_streams,
            max_runs: self.max_runs,
            max_conversations: self.max_conversations,
            max_messages: self.max_messages,
            max_connections: self.max_connections,
            header_read_timeout: self.header_read_timeout,
            body_read_timeout: self.body_read_timeout,
            writes: Rate::new(self.write_burst, self.write_interval),
            auth_failures: Rate::new(self.auth_failure_burst, self.auth_failure_interval),
            audit_records: self.audit_records,
            max_mcp_sessions: self.max_mcp_sessions,
            max_tasks: self.max_tasks,
            max_tasks_per_server: self.max_tasks_per_server,
            ..Limits::default()
        }
    }

    /// The launch templates; each was checked when it was read.
    pub fn launch_rules(&self) -> Result<LaunchRules, switchboard_core::TemplateError> {
        let texts: Vec<&str> = self.launch_templates.iter().map(|t| t.0.as_str()).collect();
        LaunchRules::parse_all(&texts)
    }

    pub fn destination_rules(&self) -> DestinationRules {
        DestinationRules {
            allowed: self
                .allowed_destinations
                .iter()
                .map(|d| d.rule.clone())
                .collect(),
        }
    }
}
