//! Domain types of Switchboard that do no IO: what an MCP server is ([`ServerSpec`]), what a
//! tool is ([`ToolInfo`]), the error codes every layer reports ([`ErrorCode`]) and the names
//! tools are given when offered to a model ([`naming`]).

pub mod error_code;
pub mod naming;
pub mod spec;
pub mod tool;

pub use error_code::{ErrorCode, RetrySafety};
pub use naming::NameTable;
pub use spec::{Auth, OwnerId, ServerId, ServerSpec, SpecError, TransportKind};
pub use tool::{ToolAnnotations, ToolInfo};
