//! [`GatewayHandler`]: rmcp's `ServerHandler`, each method handed to the module that owns it
//! (tools, content, changes, tasks; the requests the transports renamed to `renamed`).

// resources/subscribe is deprecated by the 2026-07-28 revision but is what 2025-11-25 clients use.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
    CompleteResult, CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse,
    GetTaskParams, GetTaskResult, Implementation, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult,
    PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities,
    ServerConfig, SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};

use crate::gateway::Gateway;
use crate::session::{Binding, Scope, scope_of};

/// One session's handler (stateless requests get a fresh one each).
#[derive(Clone)]
pub struct GatewayHandler {
    pub(crate) gateway: Arc<Gateway>,
    pub(crate) fixed: Option<Scope>,
    pub(crate) binding: Arc<Binding>,
    /// List-change delivery and resource subscriptions of this session (gw-content).
    pub(crate) session: Arc<crate::changes::SessionState>,
}

impl std::fmt::Debug for GatewayHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayHandler")
            .field("fixed", &self.fixed)
            .finish_non_exhaustive()
    }
}

impl GatewayHandler {
    pub(crate) fn new(gateway: Arc<Gateway>, fixed: Option<Scope>) -> Self {
        Self {
            gateway,
            fixed,
            binding: Arc::default(),
            session: Arc::default(),
        }
    }

    /// The scope of this request, checked against the session's.
    pub(crate) fn scope(&self, context: &RequestContext<RoleServer>) -> Result<Scope, ErrorData> {
        let scope = scope_of(self.fixed.as_ref(), context)?;
        self.binding.check(&scope)?;
        Ok(scope)
    }
}

impl ServerHandler for GatewayHandler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .enable_prompts()
            .enable_prompts_list_changed()
            .enable_completions()
            .enable_logging()
            .enable_tasks()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(
                "switchboard",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(
                "Switchboard's MCP gateway: the tools, resources and prompts of your MCP servers.",
            )
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        let mut result = self.negotiate_initialize(&request)?;
        if crate::tasks::legacy::offered(&request) {
            crate::tasks::legacy::declare(result.capabilities.experimental.get_or_insert_default());
        }
        Ok(result)
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        crate::renamed::answer(self, request, context).await
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        crate::tools::list(self, request, context).await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        crate::tools::call(self, request, context).await
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        crate::tasks::get(self, request, context).await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        crate::tasks::update(self, request, context).await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        crate::tasks::cancel(self, request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        crate::content::list_resources(self, request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        crate::content::list_resource_templates(self, request, context).await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        crate::content::read_resource(self, request, context).await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        crate::content::subscribe(self, request, context).await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        crate::content::unsubscribe(self, request, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        crate::content::list_prompts(self, request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        crate::content::get_prompt(self, request, context).await
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        crate::content::complete(self, request, context).await
    }

    async fn set_level(
        &self,
        _request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        // An upstream's log lines reach only the client whose call they came during
        // (switchboard-mcp client.rs, relay/downstream.rs), never the session at large: the
        // upstream session is shared by all of a person's clients. The level is accepted so
        // clients that set one work; it is not applied to those lines.
        self.scope(&context)?;
        Ok(())
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        crate::changes::watch_session(self, context).await;
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        crate::changes::accepted_filter(requested)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        crate::changes::listen(self, context).await
    }
}
