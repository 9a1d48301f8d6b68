//! Resources (namespaced URIs), resource templates, prompts (namespaced names) and
//! `completion/complete`, passed through to the server each came from.

use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, SubscribeRequestParams,
    UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};

use crate::handler::GatewayHandler;

pub(crate) async fn list_resources(
    _handler: &GatewayHandler,
    _request: Option<PaginatedRequestParams>,
    _context: RequestContext<RoleServer>,
) -> Result<ListResourcesResult, ErrorData> {
    unimplemented!("issue 16 skeleton: helper gateway-content")
}

pub(crate) async fn list_resource_templates(
    _handler: &GatewayHandler,
    _request: Option<PaginatedRequestParams>,
    _context: RequestContext<RoleServer>,
) -> Result<ListResourceTemplatesResult, ErrorData> {
    unimplemented!("issue 16 skeleton: helper gateway-content")
}

pub(crate) async fn read_resource(
    _handler: &GatewayHandler,
    _request: ReadResourceRequestParams,
    _context: RequestContext<RoleServer>,
) -> Result<ReadResourceResponse, ErrorData> {
    unimplemented!("issue 16 skeleton: helper gateway-content")
}

pub(crate) async fn subscribe(
    _handler: &GatewayHandler,
    _request: SubscribeRequestParams,
    _context: RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    unimplemented!("issue 16 skeleton: helper gateway-content")
}

pub(crate) async fn unsubscribe(
    _handler: &GatewayHandler,
    _request: UnsubscribeRequestParams,
    _context: RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    unimplemented!("issue 16 skeleton: helper gateway-content")
}

pub(crate) async fn list_prompts(
    _handler: &GatewayHandler,
    _request: Option<PaginatedRequestParams>,
    _context: RequestContext<RoleServer>,
) -> Result<ListPromptsResult, ErrorData> {
    unimplemented!("issue 16 skeleton: helper gateway-content")
}

pub(crate) async fn get_prompt(
    _handler: &GatewayHandler,
    _request: GetPromptRequestParams,
    _context: RequestContext<RoleServer>,
) -> Result<GetPromptResponse, ErrorData> {
    unimplemented!("issue 16 skeleton: helper gateway-content")
}

pub(crate) async fn complete(
    _handler: &GatewayHandler,
    _request: CompleteRequestParams,
    _context: RequestContext<RoleServer>,
) -> Result<CompleteResult, ErrorData> {
    unimplemented!("issue 16 skeleton: helper gateway-content")
}
