//! Resources (namespaced URIs, see [`uri`]), resource templates, prompts (namespaced names)
//! and `completion/complete`, passed through to the server each came from.
//!
//! Lists gather every selected server's items concurrently; a server that cannot be reached
//! or has no such list is left out (logged) rather than failing the whole list. A read, a
//! prompt or a completion goes to exactly one server of the caller's selection: a URI or name
//! that maps to none is "not found", so another person's servers are never reached.

mod prompts;
pub(crate) mod uri;

use std::sync::Arc;

use futures::future::join_all;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
    SubscribeRequestParams, UnsubscribeRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use switchboard_mcp::McpError;

use crate::error::GatewayError;
use crate::handler::GatewayHandler;
use crate::revision::Revision;
use crate::selection::{SelectedServer, Selection};
use crate::session::Scope;

pub(crate) use prompts::{complete, get_prompt, list_prompts};

/// The scope of a request and what it sees now.
pub(crate) async fn selection_of(
    handler: &GatewayHandler,
    context: &RequestContext<RoleServer>,
) -> Result<(Scope, Selection), ErrorData> {
    let scope = handler.scope(context)?;
    let selection = Selection::of(handler.gateway.store.as_ref(), &scope).await?;
    Ok((scope, selection))
}

pub(crate) async fn list_resources(
    handler: &GatewayHandler,
    _request: Option<PaginatedRequestParams>,
    context: RequestContext<RoleServer>,
) -> Result<ListResourcesResult, ErrorData> {
    let (scope, selection) = selection_of(handler, &context).await?;
    let revision = Revision::of(context.protocol_version());
    let pool = &handler.gateway.servers;
    let listed = join_all(
        selection
            .servers
            .iter()
            .map(|server| pool.list_resources(&scope.user.id, &server.spec)),
    )
    .await;
    let mut resources = Vec::new();
    for (server, listed) in selection.servers.iter().zip(listed) {
        let Some(listed) = usable(server, "resources/list", listed) else {
            continue;
        };
        resources.extend(listed.into_iter().map(|mut resource| {
            resource.uri = uri::export(server, &resource.uri);
            if uri::namespaced(server) {
                let title = resource.title.as_ref().unwrap_or(&resource.name);
                resource.title = Some(format!("{}: {title}", server.spec.name));
            }
            revision.resource(resource)
        }));
    }
    Ok(ListResourcesResult::with_all_items(resources))
}

pub(crate) async fn list_resource_templates(
    handler: &GatewayHandler,
    _request: Option<PaginatedRequestParams>,
    context: RequestContext<RoleServer>,
) -> Result<ListResourceTemplatesResult, ErrorData> {
    let (scope, selection) = selection_of(handler, &context).await?;
    let revision = Revision::of(context.protocol_version());
    let pool = &handler.gateway.servers;
    let listed = join_all(
        selection
            .servers
            .iter()
            .map(|server| pool.list_resource_templates(&scope.user.id, &server.spec)),
    )
    .await;
    let mut templates = Vec::new();
    for (server, listed) in selection.servers.iter().zip(listed) {
        let Some(listed) = usable(server, "resources/templates/list", listed) else {
            continue;
        };
        templates.extend(listed.into_iter().map(|mut template| {
            template.uri_template = uri::export_template(server, &template.uri_template);
            if uri::namespaced(server) {
                let title = template.title.as_ref().unwrap_or(&template.name);
                template.title = Some(format!("{}: {title}", server.spec.name));
            }
            revision.template(template)
        }));
    }
    Ok(ListResourceTemplatesResult::with_all_items(templates))
}

pub(crate) async fn read_resource(
    handler: &GatewayHandler,
    request: ReadResourceRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<ReadResourceResponse, ErrorData> {
    let (scope, selection) = selection_of(handler, &context).await?;
    let requested = request.uri;
    let pool = &handler.gateway.servers;
    let mut last = GatewayError::ResourceNotFound(requested.clone());
    for (server, original) in candidates(&selection, &requested) {
        match pool
            .read_resource(&scope.user.id, &server.spec, &original)
            .await
        {
            Ok(result) => {
                return Ok(exported_contents(server, &original, &requested, result).into());
            }
            Err(error) => last = not_found_or(error, &requested),
        }
    }
    Err(last.into())
}

pub(crate) async fn subscribe(
    handler: &GatewayHandler,
    request: SubscribeRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    let (scope, selection) = selection_of(handler, &context).await?;
    let (server, original) = owner_of(handler, &scope, &selection, &request.uri).await?;
    handler
        .gateway
        .changes
        .subscribe(
            &handler.session,
            handler.gateway.servers.as_ref(),
            &scope.user.id,
            Arc::clone(&server.spec),
            original,
            request.uri,
        )
        .await
        .map_err(|error| not_found_or(error, "").into())
}

pub(crate) async fn unsubscribe(
    handler: &GatewayHandler,
    request: UnsubscribeRequestParams,
    context: RequestContext<RoleServer>,
) -> Result<(), ErrorData> {
    let scope = handler.scope(&context)?;
    handler
        .gateway
        .changes
        .unsubscribe(
            &handler.session,
            handler.gateway.servers.as_ref(),
            &scope.user.id,
            &request.uri,
        )
        .await;
    Ok(())
}

/// The servers of `selection` a URI may belong to, each with the server's own URI: the one
/// server a wrapped URI names, or else every unprefixed server (a plain URI can only be
/// theirs).
pub(crate) fn candidates<'a>(
    selection: &'a Selection,
    requested: &str,
) -> Vec<(&'a SelectedServer, String)> {
    if let Some((id, original)) = uri::unwrap(requested)
        && let Some(server) = selection
            .servers
            .iter()
            .find(|server| uri::namespaced(server) && server.spec.id.0 == id)
    {
        return vec![(server, original)];
    }
    selection
        .servers
        .iter()
        .filter(|server| !uri::namespaced(server))
        .map(|server| (server, requested.to_owned()))
        .collect()
}

/// The one server a URI belongs to: a wrapped URI's, or among several unprefixed servers the
/// one that lists it (the first when none does: it may be a template's).
pub(crate) async fn owner_of<'a>(
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
                .list_resources(&scope.user.id, &server.spec)
                .await;
            if listed.is_ok_and(|listed| listed.iter().any(|r| &r.uri == original)) {
                return Ok((server, original.clone()));
            }
        }
    }
    if found.is_empty() {
        return Err(GatewayError::ResourceNotFound(requested.to_owned()));
    }
    Ok(found.swap_remove(0))
}

/// `result` with the URIs of its contents as the scope sees them.
fn exported_contents(
    server: &SelectedServer,
    original: &str,
    requested: &str,
    mut result: ReadResourceResult,
) -> ReadResourceResult {
    // An upstream on an older revision sends no `resultType`; a 2026-07-28 client needs it
    // (rmcp strips it again for older clients).
    result.result_type = Some(rmcp::model::ResultType::COMPLETE);
    for content in &mut result.contents {
        match content {
            ResourceContents::TextResourceContents { uri, .. }
            | ResourceContents::BlobResourceContents { uri, .. }
                if uri == original =>
            {
                *uri = requested.to_owned();
            }
            other => uri::export_contents(server, other),
        }
    }
    result
}

/// An upstream's "no such resource" as ours (for `requested`), anything else as it is. Older
/// SDKs answer an unknown URI with "invalid params" rather than -32002.
fn not_found_or(error: McpError, requested: &str) -> GatewayError {
    match &error {
        McpError::Server { error: data, .. }
            if data.code == rmcp::model::ErrorCode::RESOURCE_NOT_FOUND
                || data.code == rmcp::model::ErrorCode::INVALID_PARAMS =>
        {
            GatewayError::ResourceNotFound(requested.to_owned())
        }
        _ => GatewayError::Mcp(error),
    }
}

/// An upstream's error answer to a request passed through: a client's mistake the server
/// refused (invalid params, such as a missing prompt argument) stays one, with our text
/// (which quotes the server's, shortened); anything else is the gateway's failure.
pub(crate) fn passed_through(error: McpError) -> ErrorData {
    match &error {
        McpError::Server { error: data, .. }
            if data.code == rmcp::model::ErrorCode::INVALID_PARAMS =>
        {
            ErrorData::invalid_params(error.to_string(), None)
        }
        _ => GatewayError::Mcp(error).into(),
    }
}

/// The items of one server's list, or `None` (logged) when it could not give them.
pub(crate) fn usable<T>(
    server: &SelectedServer,
    method: &str,
    listed: Result<T, McpError>,
) -> Option<T> {
    match listed {
        Ok(items) => Some(items),
        Err(error) => {
            // Quoted (`?`): the text may carry what the upstream said.
            tracing::debug!(server = ?server.spec.id.0, method, error = ?error.to_string(), "left out of the list");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use switchboard_core::{ServerId, ServerSpec};

    use super::*;

    fn server(id: &str, prefix: Option<&str>) -> SelectedServer {
        let mut spec = ServerSpec::stdio(id, "node", Vec::<String>::new());
        spec.id = ServerId(id.into());
        SelectedServer {
            spec: Arc::new(spec),
            tools: None,
            prefix: prefix.map(str::to_owned),
        }
    }

    fn ids(found: &[(&SelectedServer, String)]) -> Vec<(String, String)> {
        found
            .iter()
            .map(|(server, uri)| (server.spec.id.0.clone(), uri.clone()))
            .collect()
    }

    #[test]
    fn a_wrapped_uri_maps_to_the_one_server_it_names() {
        let selection = Selection {
            servers: vec![
                server("a", None),
                server("b", Some("b_")),
                server("c", Some("")),
            ],
            ..Selection::default()
        };
        let wrapped = uri::export(&selection.servers[1], "file:///x");
        assert_eq!(
            ids(&candidates(&selection, &wrapped)),
            vec![("b".to_owned(), "file:///x".to_owned())]
        );
    }

    #[test]
    fn a_plain_uri_can_only_be_an_unprefixed_servers() {
        let selection = Selection {
            servers: vec![
                server("a", None),
                server("c", Some("")),
                server("d", Some("")),
            ],
            ..Selection::default()
        };
        assert_eq!(
            ids(&candidates(&selection, "test://static-text")),
            vec![
                ("c".to_owned(), "test://static-text".to_owned()),
                ("d".to_owned(), "test://static-text".to_owned()),
            ]
        );
        let only_namespaced = Selection {
            servers: vec![server("a", None)],
            ..Selection::default()
        };
        assert!(candidates(&only_namespaced, "test://static-text").is_empty());
    }

    #[test]
    fn a_uri_naming_a_server_outside_the_selection_maps_to_nothing() {
        let mine = Selection {
            servers: vec![server("mine", None)],
            ..Selection::default()
        };
        let theirs = uri::export(&server("theirs", None), "file:///secret");
        assert!(candidates(&mine, &theirs).is_empty());
    }
}
