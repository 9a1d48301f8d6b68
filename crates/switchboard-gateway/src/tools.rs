//! `tools/list` and `tools/call`: the selection's tools under their exported names, each call
//! through the tool-call service (approval first, progress and cancellation passed through).

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ListToolsResult, PaginatedRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use crate::handler::GatewayHandler;

pub(crate) async fn list(
    _handler: &GatewayHandler,
    _request: Option<PaginatedRequestParams>,
    _context: RequestContext<RoleServer>,
) -> Result<ListToolsResult, ErrorData> {
    unimplemented!("issue 16 skeleton: helper gateway-tools")
}

pub(crate) async fn call(
    _handler: &GatewayHandler,
    _request: CallToolRequestParams,
    _context: RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    unimplemented!("issue 16 skeleton: helper gateway-tools")
}
