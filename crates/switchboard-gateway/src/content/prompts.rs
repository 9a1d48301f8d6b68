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

use super::{candidates, passed_through, selection_of, uri, usable};
use crate::error::GatewayError;
use crate::handler::GatewayHandler;
use crate::naming;
use crate::revision::Revision;
use crate::selection::{SelectedServer, Selection};
use crate::session::Scope;

/// One exported prompt: its name in the scope, its server, and the server's prompt.
struct Exported<'a> {
    name: String,
    server: &'a SelectedServer,
    prompt: Prompt,
}

/// The exported name of each `(server, prompt name)`, by the tools' naming rules
/// ([`naming::name_all`]: template or prefix, collisions suffixed by hash).
fn export_names(template: &str, wanted: &[(&SelectedServer, &str)]) -> Vec<Option<String>> {
    let candidates: Vec<naming::Candidate<'_>> = wanted
        .iter()
        .map(|(server, name)| naming::Candidate {
            server_id: &server.spec.id.0,
            server_name: &server.spec.name,
            tool: name,
            prefix: server.prefix.as_deref(),
            offered_name: None,
        })
        .collect();
    naming::name_all(template, &candidates).names
}

/// Every prompt of the selection under its exported name; prompts that could not be given
/// a name of their own are left out, logged.
async fn exported<'a>(
    handler: &GatewayHandler,
    scope: &Scope,
    selection: &'a Selection,
) -> Vec<Exported<'a>> {
    let pool = &handler.gateway.servers;
    let listed = join_all(
        selection
            .servers
            .iter()
            .map(|server| pool.list_prompts(&scope.user.id, &server.spec)),
    )
    .await;
    let mut prompts: Vec<(&SelectedServer, Prompt)> = Vec::new();
    for (server, listed) in selection.servers.iter().zip(listed) {
        if let Some(listed) = usable(server, "prompts/list", listed) {
            prompts.extend(listed.into_iter().map(|prompt| (server, prompt)));
        }
    }
    let wanted: Vec<(&SelectedServer, &str)> = prompts
        .iter()
        .map(|(server, prompt)| (*server, prompt.name.as_str()))
        .collect();
    let names = export_names(&handler.gateway.config.name_template, &wanted);
    prompts
        .into_iter()
        .zip(names)
        .filter_map(|((server, prompt), name)| {
            let Some(name) = name else {
                tracing::warn!(prompt = ?prompt.name, server = ?server.spec.id.0, "two prompts want one name; left out");
                return None;
            };
            Some(Exported {
                name,
                server,
                prompt,
            })
        })
        .collect()
}

pub(crate) async fn list_prompts(
    handler: &GatewayHandler,
    _request: Option<PaginatedRequestParams>,
    context: RequestContext<RoleServer>,
) -> Result<ListPromptsResult, ErrorData> {
    let (scope, selection) = selection_of(handler, &context).await?;
    let revision = Revision::of(context.protocol_version());
    let prompts = exported(handler, &scope, &selection)
        .await
        .into_iter()
        .map(|exported| {
            let mut prompt = exported.prompt;
            prompt.name = exported.name;
            revision.prompt(prompt)
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
    let input = crate::relay::prompt_input(&context);
    let mut upstream = GetPromptRequestParams::new(name);
    upstream.arguments = request.arguments;
    upstream.input_responses = request.input_responses;
    upstream.request_state = request.request_state;
    let response = handler
        .gateway
        .servers
        .get_prompt_with(&scope.user.id, &server.spec, upstream, input)
        .await
        .map_err(passed_through)?;
    let mut result = match response {
        GetPromptResponse::Complete(result) => result,
        other => return Ok(other),
    };
    for message in &mut result.messages {
        uri::export_block(server, &mut message.content);
    }
    // An upstream on an older revision sends no `resultType`; a 2026-07-28 client needs it
    // (rmcp strips it again for older clients).
    result.result_type = Some(rmcp::model::ResultType::COMPLETE);
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
    let mut result = handler
        .gateway
        .servers
        .complete(&scope.user.id, &server.spec, request)
        .await
        .map_err(passed_through)?;
    result.result_type = Some(rmcp::model::ResultType::COMPLETE);
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

    #[test]
    fn prompts_are_named_by_template_or_prefix_and_collisions_are_suffixed() {
        let (a, b, c) = (
            server("a b", None),
            server("b", Some("")),
            server("c", Some("")),
        );
        let names = export_names(
            "mcp__{server}__{tool}",
            &[
                (&a, "greet.me"),
                (&b, "greet"),
                (&c, "greet"),
                (&c, "other"),
            ],
        );
        assert_eq!(names[0].as_deref(), Some("mcp__a_b__greet_me"));
        assert_eq!(names[3].as_deref(), Some("other"));
        for contested in [&names[1], &names[2]] {
            let name = contested.as_deref().expect("a name of its own");
            assert!(name.starts_with("greet_") && name != "greet", "{name}");
        }
        assert_ne!(names[1], names[2]);
    }
}
