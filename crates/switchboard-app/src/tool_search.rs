//! Tool search for people and programs (`GET /api/tools/search`, `switchboard tools search`):
//! the search a deferred run's model makes, over the same offer a run of the same assistant
//! (or of none) gathers, so it never finds a tool the caller may not be offered.

use std::sync::Arc;

use switchboard_agent::exposure::{DeferBudget, Exposure, OfferCost, cost};
use switchboard_agent::search::{FoundTool, ToolSearch};
use switchboard_agent::{Offer, offered_servers};
use switchboard_core::OwnerId;
use switchboard_llm::WireFormat;
use switchboard_mcp::ToolBackend;
use switchboard_store::{Assistant, ProviderKind, Store};

use crate::error::AppError;

/// Tools one search answers with, at most.
pub const MAX_RESULTS: usize = 50;
/// Characters of a query that are searched; the rest is ignored.
pub const MAX_QUERY_CHARS: usize = 1_000;

/// The tool search use case.
pub struct ToolSearches {
    store: Arc<dyn Store>,
    tools: Arc<dyn ToolBackend>,
    search: Arc<ToolSearch>,
    /// Where `auto` defers (the agent's).
    defer: DeferBudget,
}

impl ToolSearches {
    pub(crate) fn new(
        store: Arc<dyn Store>,
        tools: Arc<dyn ToolBackend>,
        search: Arc<ToolSearch>,
        defer: DeferBudget,
    ) -> Self {
        Self {
            store,
            tools,
            search,
            defer,
        }
    }

    /// The best `limit` (1 to [`MAX_RESULTS`]) of `owner`'s tools for `query`, best first:
    /// among the tools of `assistant` when given (it must be theirs), else of every enabled
    /// server of theirs.
    pub async fn search(
        &self,
        owner: &OwnerId,
        query: &str,
        limit: usize,
        assistant: Option<&str>,
    ) -> Result<Vec<FoundTool>, AppError> {
        let assistant = self.assistant(owner, assistant).await?;
        let query: String = query.chars().take(MAX_QUERY_CHARS).collect();
        if query.trim().is_empty() {
            return Ok(Vec::new());
        }
        let offer = self.offer(owner, assistant.as_ref()).await?;
        Ok(self
            .search
            .search(owner, &offer, &query, limit.clamp(1, MAX_RESULTS))
            .await)
    }

    /// What the tools of `assistant` (or, without, of every enabled server of `owner`'s) cost
    /// each request, in the format of the assistant's provider (OpenAI's when it has none),
    /// and whether its runs defer them.
    pub async fn cost(
        &self,
        owner: &OwnerId,
        assistant: Option<&str>,
    ) -> Result<OfferCost, AppError> {
        let assistant = self.assistant(owner, assistant).await?;
        let wire = match assistant
            .as_ref()
            .and_then(|a| a.config.provider_id.as_deref())
        {
            Some(provider) => match self.store.provider(owner, provider).await?.config.kind {
                ProviderKind::Anthropic => WireFormat::Anthropic,
                // OpenAI's, and any format added later until it is counted its own way.
                _ => WireFormat::OpenAi,
            },
            None => WireFormat::OpenAi,
        };
        let exposure = assistant
            .as_ref()
            .map_or_else(Exposure::without_assistant, |a| Exposure::of(&a.config));
        let offer = self.offer(owner, assistant.as_ref()).await?;
        Ok(cost(&offer, &exposure, self.defer, wire))
    }

    /// `owner`'s assistant `id`, when one is named (not found unless it is theirs).
    async fn assistant(
        &self,
        owner: &OwnerId,
        id: Option<&str>,
    ) -> Result<Option<Assistant>, AppError> {
        Ok(match id {
            Some(id) => Some(self.store.assistant(owner, id).await?),
            None => None,
        })
    }

    /// The offer a run with `assistant` (or none) gathers.
    async fn offer(
        &self,
        owner: &OwnerId,
        assistant: Option<&Assistant>,
    ) -> Result<Offer, AppError> {
        let (servers, nodes) = offered_servers(self.store.as_ref(), owner, assistant).await?;
        Ok(Offer::gather(self.tools.as_ref(), owner, &servers, &nodes).await)
    }

    /// Whether searches are fused with an embedding model's ranking.
    pub fn is_semantic(&self) -> bool {
        self.search.is_semantic()
    }
}
