//! Domain types of Switchboard that do no IO: what an MCP server is ([`ServerSpec`]), what a
//! tool is ([`ToolInfo`]), the error codes every layer reports ([`ErrorCode`]) and the names
//! tools are given when offered to a model ([`naming`]), and how other clients' MCP server
//! lists are read into specs ([`import`]).

pub mod catalogue;
pub mod destination;
pub mod error_code;
pub mod import;
pub mod launch;
pub mod locale;
pub mod naming;
pub mod preset;
pub mod spec;
pub mod tool;
pub mod tool_call;
pub mod upstream_text;

pub use destination::{DestinationRules, is_public};
pub use error_code::{ErrorCode, RetrySafety};
pub use launch::{LaunchRefusal, LaunchRules, LaunchTemplate, TemplateError};
pub use locale::{Locale, UnknownLocale};
pub use naming::NameTable;
pub use preset::{ParamMapping, SelectedTool, ToolPreset};
pub use spec::{Auth, MASK, OwnerId, ServerId, ServerSpec, SpecError, TransportKind};
pub use tool::{ToolAnnotations, ToolInfo};
pub use tool_call::{ToolCallRecord, ToolCallStatus};
