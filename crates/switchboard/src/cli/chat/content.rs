//! `/prompts` and `/resources`: what the chat's servers offer besides tools, one line each,
//! written as the commands that use them (`/SERVER:PROMPT`, `/attach SERVER URI`). A server
//! that cannot answer is named with its error; the others are still listed.

use switchboard_core::{OwnerId, ServerSpec};
use switchboard_mcp::ServerPool;

/// The prompts of `servers`, as slash commands with their arguments (`*`: required).
pub async fn prompts(pool: &dyn ServerPool, owner: &OwnerId, servers: &[ServerSpec]) -> String {
    let mut lines = Vec::new();
    for spec in servers.iter().filter(|spec| spec.enabled) {
        match pool.list_prompts(owner, spec).await {
            Ok(prompts) => {
                for prompt in prompts {
                    let arguments: Vec<String> = prompt
                        .arguments
                        .unwrap_or_default()
                        .iter()
                        .map(|argument| {
                            let required = if argument.required == Some(true) {
                                "*"
                            } else {
                                ""
                            };
                            format!("{}={required}", argument.name)
                        })
                        .collect();
                    let mut line = format!("/{}:{}", spec.name, prompt.name);
                    if !arguments.is_empty() {
                        line.push(' ');
                        line.push_str(&arguments.join(" "));
                    }
                    if let Some(description) = prompt.description.filter(|d| !d.is_empty()) {
                        line.push_str(&format!("  ({description})"));
                    }
                    lines.push(line);
                }
            }
            Err(error) => lines.push(format!("{}: cannot list prompts: {error}", spec.name)),
        }
    }
    if lines.is_empty() {
        return "no server of this chat offers prompts".to_owned();
    }
    lines.join("\n")
}

/// The resources and resource templates of `servers`, as `/attach` commands.
pub async fn resources(pool: &dyn ServerPool, owner: &OwnerId, servers: &[ServerSpec]) -> String {
    let mut lines = Vec::new();
    for spec in servers.iter().filter(|spec| spec.enabled) {
        match pool.list_resources(owner, spec).await {
            Ok(resources) => lines.extend(
                resources
                    .into_iter()
                    .map(|r| format!("/attach {} {}  ({})", spec.name, r.uri, r.name)),
            ),
            Err(error) => lines.push(format!("{}: cannot list resources: {error}", spec.name)),
        }
        if let Ok(templates) = pool.list_resource_templates(owner, spec).await {
            lines.extend(templates.into_iter().map(|t| {
                format!(
                    "/attach {} {}  ({}; fill in the {{...}})",
                    spec.name, t.uri_template, t.name
                )
            }));
        }
    }
    if lines.is_empty() {
        return "no server of this chat offers resources".to_owned();
    }
    lines.join("\n")
}
