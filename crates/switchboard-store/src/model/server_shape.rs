//! The shape a server was written in through the seeds' shared path.
//!
//! Seeds 000 and 002 both `POST` and `GET` `/api/mcp/servers`, each with its own body
//! (`McpServerSpec`, `MCPServerConfig`). The server itself is one [`ServerSpec`]
//! (switchboard_core::ServerSpec) like any other; what a listing needs besides is which shape
//! to answer it in, and seed 002's preset marks, which have no place in a spec. They are kept
//! beside the server (`mcp_server_shapes`) and go when it goes.

use serde::{Deserialize, Serialize};

/// Which seed's body a server was last written with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum WrittenShape {
    /// Seed 000's `McpServerSpec`.
    Seed000,
    /// Seed 002's `MCPServerConfig`.
    Seed002,
}

impl WrittenShape {
    /// The stored name: `seed_000` or `seed_002`.
    pub fn as_str(self) -> &'static str {
        match self {
            WrittenShape::Seed000 => "seed_000",
            WrittenShape::Seed002 => "seed_002",
        }
    }

    pub(crate) fn parse(text: &str) -> Option<WrittenShape> {
        match text {
            "seed_000" => Some(WrittenShape::Seed000),
            "seed_002" => Some(WrittenShape::Seed002),
            _ => None,
        }
    }
}

/// How a server was written through the seeds' shared path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServerShape {
    pub shape: WrittenShape,
    /// Seed 002's `isPreset`.
    pub is_preset: bool,
    /// Seed 002's `presetType` (`modelscope`).
    pub preset_type: Option<String>,
}

impl ServerShape {
    /// A server written in `shape`, not a preset.
    pub fn plain(shape: WrittenShape) -> Self {
        Self {
            shape,
            is_preset: false,
            preset_type: None,
        }
    }
}
