//! `prompts/list` and `prompts/get` under exported names, and `completion/complete` passed to
//! the server of the prompt or resource template it refers to.
//!
//! A prompt is named like a tool: the view's prefix + its name, or the name template. Names
//! are never parsed back: the scope's prompts are listed and the exported name looked up, so a
//! name can only reach a prompt the caller sees.

use futures::future::join_all;
use rmcp::model::{
    CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
    ListPromptsResult, PaginatedRequestParams, Prompt, Reference, ResourceTemplateReference,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use switchboard_core::naming::sanitize;

use super::{candidates, selection_of, uri, usable};
use crate::error::GatewayError;
use crate::handler::GatewayHandler;
use crate::selection::{SelectedServer, Selection};
use crate::session::Scope;

/// One exported prompt: its name in the scope, its server, and the server's prompt.
struct Exported<'a> {
    name: String,
    server: &'a SelectedServer,
    prompt: Prompt,
}

// TODO(gw-tools naming.rs): switch to its `name_all`, which also settles collisions by hash
// and reports them; this is the same rule without the collision handling.
fn export_name(template: &str, server: &SelectedServer, name: &str) -> String {
    match server.prefix.as_deref() {
        Some(prefix) => format!("{prefix}{name}"),
        None => template
            .replace("{server}", &sanitize(&server.spec.id.0))
            .replace("{tool}", &sanitize(name)),
    }
}

/// Every prompt of the selection under its exported name; of two wanting one name the first
/// keeps it and the other is left out, logged.
async fn exported<'a>(
    handler: &GatewayHandler,
    scope: &Scope,
    selection: &'a Selection,
) -> Vec<Exported<'a>> {
    let pool = &handler.gateway.servers;
    let template = &handler.gateway.config.name_template;
    let listed = join_all(
        selection
            .servers
            .iter()
            .map(|server| pool.list_prompts(&scope.user.id, &server.spec)),
    )
    .await;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (server, listed) in selection.servers.iter().zip(listed) {
        let Some(prompts) = usable(server, "prompts/list", listed) else {
            continue;
        };
        for prompt in prompts {
            let name = export_name(template, server, &prompt.name);
            if !seen.insert(name.clone()) {
                tracing::warn!(name, server = ?server.spec.id.0, "two prompts want one name; this one is left out");
                continue;
            }
            out.push(Exported {
                name,
                server,
                prompt,
            });
        }
    }
    out
}

pub(crate) async fn list_prompts(
    handler: &GatewayHandler,
    _request: Option<PaginatedRequestParams>,
    context: RequestContext<RoleServer>,
) -> Result<ListPromptsResult, ErrorData> {
    let (scope, selection) = selection_of(handler, &context).await?;
    let prompts = exported(handler, &scope, &selection)
        .await
        .into_iter()
        .map(|exported| {
            let mut prompt = exported.prompt;
            prompt.name = exported.name;
            prompt
        })
        .collect();
    Ok(ListPromptsResult::with_all_items(prompts))
}

/// The server and the server's name of the prompt exported as `name`.
async fn find<'a>(
    handler: &GatewayHandler,
    scope: &Scope,
    selection: &'a Selection,
    name: &str,
) -> Result<(&'a SelectedServer, String), GatewayError> {
    exported(handler, scope, selection)
        .await
        .into_iter()
        .find(|exported| exported.name == name)
        .map(|exported| (exported.server, exported.prompt.name))
        .ok_or_else(|| GatewayError::PromptNotFound(name.to_owned()))
}

pub(crate) async fn get_prompt(
    handler: &GatewayHandler,
    request: GetPromptRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<GetPromptResponse, ErrorData> {
    let (scope, selection) = selection_of(handler, &context).await?;
    let (server, name) = find(handler, &scope, &selection, &request.name).await?;
    let mut result = handler
        .gateway
        .servers
        .get_prompt(&scope.user.id, &server.spec, &name, request.arguments)
        .await
        .map_err(GatewayError::from)?;
    for message in &mut result.messages {
        uri::export_block(server, &mut message.content);
    }
    Ok(result.into())
}

pub(crate) async fn complete(
    handler: &GatewayHandler,
    mut request: CompleteRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<CompleteResult, ErrorData> {
    let (scope, selection) = selection_of(handler, &context).await?;
    let server = match &mut request.r#ref {
        Reference::Prompt(prompt) => {
            let (server, name) = find(handler, &scope, &selection, &prompt.name).await?;
            prompt.name = name;
            server
        }
        Reference::Resource(ResourceTemplateReference { uri: requested, .. }) => {
            let (server, original) = template_owner(handler, &scope, &selection, requested).await?;
            *requested = original;
            server
        }
        // A kind of reference newer than this code names nothing we can map back.
        _ => {
            return Err(ErrorData::invalid_params(
                "unsupported completion reference",
                None,
            ));
        }
    };
    // The downstream's request metadata (progress token, protocol version) is its own.
    request.meta = None;
    let result = handler
        .gateway
        .servers
        .complete(&scope.user.id, &server.spec, request)
        .await
        .map_err(GatewayError::from)?;
    Ok(result)
}

/// The server of a resource template URI as exported: the one a wrapped URI names, or among
/// unprefixed servers the one that has the template.
async fn template_owner<'a>(
    handler: &GatewayHandler,
    scope: &Scope,
    selection: &'a Selection,
    requested: &str,
) -> Result<(&'a SelectedServer, String), GatewayError> {
    let mut found = candidates(selection, requested);
    if found.len() > 1 {
        for (server, original) in &found {
            let listed = handler
                .gateway
                .servers
                .list_resource_templates(&scope.user.id, &server.spec)
                .await;
            if listed.is_ok_and(|listed| listed.iter().any(|t| &t.uri_template == original)) {
                return Ok((server, original.clone()));
            }
        }
    }
    if found.is_empty() {
        return Err(GatewayError::ResourceNotFound(requested.to_owned()));
    }
    Ok(found.swap_remove(0))
}
