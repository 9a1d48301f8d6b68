//! The seeds' own routes, served beside the house API as documented aliases: each module
//! translates one seed's paths and shapes to the application's calls and back, and holds no
//! rule of its own.
//!
//! | module | seed | what it serves |
//! |---|---|---|
//! | [`seed_000`] | `000` | its chat (`/api/chat/*`) and server (`/api/mcp/servers`) controllers |
//! | [`seed_001`] | `001` | its shapes at the edge of the house routes (server bodies, `?format`, tool-message events) |
//! | [`seed_002`] | `002` | its server routes: `MCPServerConfig`, a saved server's tools, testing saved and unsaved servers |
//! | [`seed_003`] | `003` | its proxy path, action recall and tool detail |

pub(crate) mod seed_000;
pub(crate) mod seed_001;
pub(crate) mod seed_002;
pub(crate) mod seed_003;
