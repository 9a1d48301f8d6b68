//! The requests of session clients that the transports renamed ([`crate::wire_rewrite`]), so
//! that rmcp hands them here whole instead of decoding them with the extension's types (which
//! drop a call's `task`, have no tool `execution`, and refuse `tasks/get` and `tasks/cancel`
//! to a client that did not declare the extension). Each is answered as JSON, in the
//! 2025-11-25 tasks' shapes for a client that speaks them ([`legacy::speaks`]), and as rmcp
//! would have answered the request under its own name for any other.

use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, CustomRequest, CustomResult, PaginatedRequestParams,
    ServerResult,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::Value;

use crate::handler::GatewayHandler;
use crate::tasks::legacy;
use crate::wire_rewrite::renamed;

/// Answers the renamed request `request`; any other custom method is not found.
pub(crate) async fn answer(
    handler: &GatewayHandler,
    request: CustomRequest,
    context: RequestContext<RoleServer>,
) -> Result<CustomResult, ErrorData> {
    let CustomRequest { method, params, .. } = request;
    let speaks = legacy::speaks(&context);
    let params = params.as_ref();
    let answer = match method.as_str() {
        renamed::CALL_AS_TASK => {
            let call: CallToolRequestParams = read(params)?;
            let response = crate::tools::call_as(handler, call, context, true).await?;
            legacy::answer(response)?
        }
        renamed::LIST_TOOLS => {
            let request = params
                .map(|params| read::<PaginatedRequestParams>(Some(params)))
                .transpose()?;
            let listed = handler.list_tools(request, context.clone()).await?;
            let mut listed = legacy::session_json(ServerResult::ListToolsResult(listed))?;
            if speaks {
                legacy::with_execution(handler, &context, &mut listed).await?;
            }
            listed
        }
        renamed::GET_TASK if speaks => {
            legacy::get(handler, &legacy::task_id(params)?, &context).await?
        }
        renamed::CANCEL_TASK if speaks => {
            legacy::cancel(handler, &legacy::task_id(params)?, &context).await?
        }
        "tasks/result" if speaks => {
            let id = legacy::task_id(params)?;
            legacy::result(handler, &handler.gateway.ends, &id, &context).await?
        }
        "tasks/list" if speaks => legacy::list(handler, legacy::cursor(params), &context).await?,
        // The extension's, from a session client that declared it at `initialize`.
        renamed::GET_TASK | renamed::CANCEL_TASK if declares_extension(&context) => {
            if method == renamed::GET_TASK {
                let task = crate::tasks::get(handler, read(params)?, context).await?;
                legacy::session_json(ServerResult::GetTaskResult(task))?
            } else {
                crate::tasks::cancel(handler, read(params)?, context).await?;
                legacy::session_json(ServerResult::task_ack(()))?
            }
        }
        renamed::GET_TASK | renamed::CANCEL_TASK => {
            return Err(ErrorData::missing_required_client_capability(
                ClientCapabilities::builder().enable_tasks().build(),
            ));
        }
        _ => {
            return Err(ErrorData::new(
                rmcp::model::ErrorCode::METHOD_NOT_FOUND,
                method,
                None,
            ));
        }
    };
    Ok(CustomResult(answer))
}

fn declares_extension(context: &RequestContext<RoleServer>) -> bool {
    context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.supports_tasks())
}

fn read<T: serde::de::DeserializeOwned>(params: Option<&Value>) -> Result<T, ErrorData> {
    let params = params.cloned().unwrap_or(Value::Object(Default::default()));
    serde_json::from_value(params)
        .map_err(|error| ErrorData::invalid_params(format!("invalid params: {error}"), None))
}
