//! How much of the offer a model is shown in full (DESIGN.md "Large catalogs"): every tool,
//! or the pinned ones and `search_tools` with what the conversation has found so far.
//!
//! `auto` decides per run from the offer's cost: past [`DeferBudget::tools`] tools or
//! [`DeferBudget::tokens`] estimated tokens of definitions, the tools are deferred.
//!
//! Deferred tools are found with `search_tools`, or, when the assistant asks for it and the
//! provider has one, with the provider's own tool search ([`Exposure::native_search`]): every
//! tool is then sent, the unpinned ones marked to be loaded only when that search finds them
//! ([`deferring`]).

use std::collections::HashSet;

use switchboard_llm::{NativeToolSearch, ToolDefinition, WireFormat};
use switchboard_store::{AssistantConfig, PinnedTool, ToolExposure, ToolMode};

use crate::offer::{Offer, OfferedTool};

/// An assistant's exposure and pins, for one run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Exposure {
    pub kind: ToolExposure,
    pub pinned: Vec<PinnedTool>,
    /// Deferred tools are found by the provider's own tool search where it has one.
    pub native_search: bool,
}

impl Exposure {
    /// The exposure `config` asks for.
    /// A run without an assistant (seed 000's and 001's chat routes, `switchboard chat`
    /// without `--assistant`): every tool, as those routes document; deferring is an
    /// assistant's choice.
    pub fn without_assistant() -> Self {
        Self {
            kind: ToolExposure::All,
            ..Self::default()
        }
    }

    pub fn of(config: &AssistantConfig) -> Self {
        Self {
            kind: config.tool_exposure,
            pinned: config.pinned_tools.clone(),
            native_search: config.native_tool_search,
        }
    }

    /// The provider's tool search a run in `mode` over `wire` finds its deferred tools with,
    /// instead of `search_tools`: Anthropic's (BM25, the natural-language variant, as
    /// `search_tools` takes words) when the assistant asks for it and the run offers its tools
    /// as functions. `None` otherwise: OpenAI's chat completions have no tool search (OpenAI's
    /// is in its Responses API), and the meta and prompt modes have no functions to defer.
    pub fn native_search(&self, mode: ToolMode, wire: WireFormat) -> Option<NativeToolSearch> {
        let functions = !matches!(mode, ToolMode::Meta | ToolMode::Prompt);
        (self.native_search && functions && wire == WireFormat::Anthropic)
            .then_some(NativeToolSearch::Bm25)
    }

    /// Whether `tool` is pinned (itself or its whole server).
    pub fn pins(&self, tool: &OfferedTool) -> bool {
        switchboard_core::is_pinned(&self.pinned, &tool.server.id, &tool.tool.name)
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

/// `definitions` with every offered tool that `exposure` does not pin marked
/// [`ToolDefinition::defer_loading`], for the provider's tool search to find; the pinned tools
/// and Switchboard's own (`read_result`) stay loaded.
pub fn deferring(
    mut definitions: Vec<ToolDefinition>,
    offer: &Offer,
    exposure: &Exposure,
) -> Vec<ToolDefinition> {
    let unpinned: HashSet<&str> = offer
        .tools()
        .iter()
        .filter(|tool| !exposure.pins(tool))
        .map(|tool| tool.display_name.as_str())
        .collect();
    for definition in &mut definitions {
        definition.defer_loading = unpinned.contains(definition.name.as_str());
    }
    definitions
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
    /// `search_tools` (or the provider's tool search).
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
    if exposure.native_search(ToolMode::Native, wire).is_none() {
        deferred.push(crate::mode::search::definition());
    }
    OfferCost {
        servers,
        tools: offer.tools().len(),
        tokens: estimate_tokens(&all, ""),
        deferred_tokens: estimate_tokens(&deferred, ""),
        defers: defers(exposure, budget, offer, &all, ""),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use serde_json::json;
    use switchboard_core::{ServerSpec, ToolInfo};

    use super::*;

    fn offer() -> Offer {
        let server = Arc::new(ServerSpec::stdio("s", "true", Vec::<String>::new()));
        let tool = |name: &str| -> ToolInfo {
            serde_json::from_value(json!({
                "serverId": server.id.0,
                "name": name,
                "inputSchema": {"type": "object"},
            }))
            .unwrap_or_else(|e| panic!("a tool: {e}"))
        };
        Offer::from_tools(
            vec![
                (Arc::clone(&server), tool("read")),
                (Arc::clone(&server), tool("write")),
            ],
            Vec::new(),
        )
    }

    #[test]
    fn only_anthropic_functions_use_the_native_search() {
        let mut exposure = Exposure {
            native_search: true,
            ..Exposure::default()
        };
        assert_eq!(
            exposure.native_search(ToolMode::Native, WireFormat::Anthropic),
            Some(NativeToolSearch::Bm25)
        );
        assert_eq!(
            exposure.native_search(ToolMode::Native, WireFormat::OpenAi),
            None
        );
        for mode in [ToolMode::Meta, ToolMode::Prompt] {
            assert_eq!(exposure.native_search(mode, WireFormat::Anthropic), None);
        }
        exposure.native_search = false;
        assert_eq!(
            exposure.native_search(ToolMode::Native, WireFormat::Anthropic),
            None
        );
    }

    #[test]
    fn every_unpinned_offered_tool_is_deferred_and_nothing_else() {
        let offer = offer();
        let exposure = Exposure {
            kind: ToolExposure::Deferred,
            pinned: vec![PinnedTool {
                server_id: offer.tools()[0].server.id.clone(),
                tool: Some("read".into()),
            }],
            native_search: true,
        };
        let (mut definitions, _) = crate::mode::native::definitions(&offer, WireFormat::Anthropic);
        definitions.push(crate::mode::read_result::definition());
        let deferred: Vec<(String, bool)> = deferring(definitions, &offer, &exposure)
            .into_iter()
            .map(|d| (d.name, d.defer_loading))
            .collect();
        let names: Vec<&str> = offer
            .tools()
            .iter()
            .map(|t| t.display_name.as_str())
            .collect();
        assert_eq!(
            deferred,
            [
                (names[0].to_owned(), false),
                (names[1].to_owned(), true),
                (crate::mode::read_result::NAME.to_owned(), false),
            ]
        );
    }
}
