//! How much of the offer a model is shown in full (DESIGN.md "Large catalogs"): every tool,
//! or the pinned ones and `search_tools` with what the conversation has found so far.
//!
//! `auto` decides per run from the offer's cost: past [`DeferBudget::tools`] tools or
//! [`DeferBudget::tokens`] estimated tokens of definitions, the tools are deferred.

use std::collections::HashSet;

use switchboard_llm::ToolDefinition;
use switchboard_store::{PinnedTool, ToolExposure};

use crate::offer::{Offer, OfferedTool};

/// An assistant's exposure and pins, for one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exposure {
    pub kind: ToolExposure,
    pub pinned: Vec<PinnedTool>,
}

impl Exposure {
    /// Whether `tool` is pinned (itself or its whole server).
    pub fn pins(&self, tool: &OfferedTool) -> bool {
        self.pinned.iter().any(|p| {
            p.server_id == tool.server.id && p.tool.as_ref().is_none_or(|t| *t == tool.tool.name)
        })
    }
}

/// Where `auto` starts deferring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeferBudget {
    /// More tools than this are deferred.
    pub tools: usize,
    /// Definitions estimated above this many tokens are deferred.
    pub tokens: usize,
}

impl Default for DeferBudget {
    fn default() -> Self {
        Self {
            tools: 30,
            tokens: 8_000,
        }
    }
}

/// Whether a run with `exposure` over `offer`, whose full definitions (native functions, or
/// the description or prompt text of the other modes) are `definitions` and `text`, defers.
pub fn defers(
    exposure: &Exposure,
    budget: DeferBudget,
    offer: &Offer,
    definitions: &[ToolDefinition],
    text: &str,
) -> bool {
    match exposure.kind {
        ToolExposure::All => false,
        ToolExposure::Deferred => true,
        _ => {
            offer.tools().len() > budget.tools || estimate_tokens(definitions, text) > budget.tokens
        }
    }
}

/// Tokens of function definitions and text, estimated: about four characters of JSON or
/// English per token, as the providers' tokenizers average on such text (an estimate for a
/// budget, not a bill).
pub fn estimate_tokens(definitions: &[ToolDefinition], text: &str) -> usize {
    let chars: usize = definitions
        .iter()
        .map(|d| d.name.len() + d.description.len() + d.parameters.to_string().len() + 16)
        .sum::<usize>()
        + text.len();
    chars.div_ceil(4)
}

/// The part of `offer` shown in full: the pinned tools and those `loaded`.
pub fn shown(offer: &Offer, exposure: &Exposure, loaded: &HashSet<String>) -> Offer {
    offer.only(|tool| exposure.pins(tool) || loaded.contains(&tool.display_name))
}

/// What an offer's tool definitions cost each request, estimated in tokens of a wire format.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct OfferCost {
    /// Per server, in the offer's order.
    pub servers: Vec<ServerCost>,
    /// Tools offered.
    pub tools: usize,
    /// Every tool's definition, estimated.
    pub tokens: usize,
    /// What a request with deferred tools carries instead: the pinned tools and
    /// `search_tools`.
    pub deferred_tokens: usize,
    /// Whether runs defer the tools (the exposure, and for `auto` the budget, decide).
    pub defers: bool,
}

/// What one server's tools cost each request.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct ServerCost {
    pub server_id: String,
    pub name: String,
    pub tools: usize,
    pub tokens: usize,
}

/// The cost of `offer` in native function definitions of `wire`, whole and deferred.
pub fn cost(
    offer: &Offer,
    exposure: &Exposure,
    budget: DeferBudget,
    wire: switchboard_llm::WireFormat,
) -> OfferCost {
    let servers = offer
        .by_server()
        .into_iter()
        .map(|(server, tools)| {
            let ids: HashSet<&str> = tools.iter().map(|t| t.display_name.as_str()).collect();
            let part = offer.only(|t| ids.contains(t.display_name.as_str()));
            let (definitions, _) = crate::mode::native::definitions(&part, wire);
            ServerCost {
                server_id: server.id.0.clone(),
                name: server.name.clone(),
                tools: tools.len(),
                tokens: estimate_tokens(&definitions, ""),
            }
        })
        .collect();
    let (all, _) = crate::mode::native::definitions(offer, wire);
    let pinned = offer.only(|t| exposure.pins(t));
    let (mut deferred, _) = crate::mode::native::definitions(&pinned, wire);
    deferred.push(crate::mode::search::definition());
    OfferCost {
        servers,
        tools: offer.tools().len(),
        tokens: estimate_tokens(&all, ""),
        deferred_tokens: estimate_tokens(&deferred, ""),
        defers: defers(exposure, budget, offer, &all, ""),
    }
}
