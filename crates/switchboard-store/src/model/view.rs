//! A stored view of the MCP gateway.

use serde::Serialize;
use switchboard_core::{OwnerId, ViewSpec};

use super::Timestamp;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct StoredView {
    pub id: String,
    #[serde(skip)]
    pub owner: OwnerId,
    #[serde(flatten)]
    pub spec: ViewSpec,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}
