//! Domain types of Switchboard that do no IO: what an MCP server is ([`ServerSpec`]), what a
//! tool is ([`ToolInfo`]) and whether it runs as a task ([`task`]), the error codes every
//! layer reports ([`ErrorCode`]), the names tools are given when offered to a model
//! ([`naming`]), how other clients' MCP server lists are read into specs ([`import`]), and
//! workflow tool nodes with their `{{variable}}` mappings ([`tool_node`]).

pub mod catalogue;
pub mod destination;
pub mod embedding;
pub mod error_code;
pub mod import;
pub mod launch;
pub mod launcher;
pub mod locale;
pub mod naming;
pub mod per_list;
pub mod pinned;
pub mod reach;
pub mod refusal;
pub mod spec;
pub mod task;
pub mod tool;
pub mod tool_call;
pub mod tool_node;
pub mod type_names;
pub mod upstream_text;
pub mod view;

pub use destination::{DestinationRules, is_public};
pub use embedding::{EmbedFuture, Embedder, EmbeddingError, Vectors};
pub use error_code::{ErrorCode, RetrySafety};
pub use launch::{LaunchRefusal, LaunchRules, LaunchTemplate, TemplateError};
pub use launcher::{Advice, Launcher, MissingProgram};
pub use locale::{Locale, UnknownLocale};
pub use naming::NameTable;
pub use per_list::PerList;
pub use pinned::{MAX_PINNED_TOOLS, PinnedTool, is_pinned};
pub use reach::ReachFailure;
pub use refusal::Refusal;
pub use spec::{
    Auth, MASK, OwnerId, SamplingPolicy, ServerId, ServerSpec, SpecError, TransportKind,
};
pub use task::{TaskSupport, TasksPolicy, ToolTasks};
pub use tool::{ToolAnnotations, ToolIcon, ToolInfo};
pub use tool_call::{
    CallTaskStatus, MappedParameter, PendingInput, QuestionAction, QuestionAnswer, QuestionMode,
    SamplingReview, SamplingStage, SamplingText, ServerQuestion, TaskRef, ToolCallRecord,
    ToolCallStatus,
};
pub use tool_node::{
    BUILTIN_VARIABLES, Builtins, MAX_RENDERED_BYTES, Mapping, NodeCheckError, RenderError,
    ResolveError, SelectedTool, Template, TemplateParseError, ToolNode, VarPath, VariableDecl,
    VariableType, Variables, check_node, hide_mapped, is_builtin, resolve_arguments,
    validate_variables,
};
pub use view::{RunAsTask, ViewError, ViewExposure, ViewServer, ViewSpec, ViewTasks};
