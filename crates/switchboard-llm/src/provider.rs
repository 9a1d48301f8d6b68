//! The [`Provider`] trait and the non-streaming call derived from it.

use std::pin::Pin;

use futures::{Stream, StreamExt};

use crate::assemble::{Assembler, Completion};
use crate::error::LlmError;
use crate::models::{ListLimits, ModelsError};
use crate::types::{ChatRequest, StreamEvent};

/// A streamed answer.
pub type EventStream = Pin<Box<dyn Stream<Item = Result<StreamEvent, LlmError>> + Send>>;

/// Which wire format a provider speaks (the agent picks the tool-schema dialect from it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WireFormat {
    OpenAi,
    Anthropic,
}

/// A model endpoint.
#[async_trait::async_trait]
pub trait Provider: Send + Sync + std::fmt::Debug {
    fn wire_format(&self) -> WireFormat;

    /// Starts the call and returns its events as they arrive. Errors before the first event
    /// (refused credentials, rate limits) come from here; errors after it come in the stream.
    async fn stream(&self, request: &ChatRequest) -> Result<EventStream, LlmError>;

    /// The models the endpoint offers, sorted, within `limits` ([`crate::ListLimits`]). An
    /// endpoint that cannot say answers [`ModelsError::Unsupported`].
    async fn models(&self, limits: &ListLimits) -> Result<Vec<String>, ModelsError> {
        let _ = limits;
        Err(ModelsError::Unsupported)
    }
}

/// The whole answer at once: [`Provider::stream`] folded with an [`Assembler`].
pub async fn complete(
    provider: &dyn Provider,
    request: &ChatRequest,
) -> Result<Completion, LlmError> {
    let mut events = provider.stream(request).await?;
    let mut assembler = Assembler::default();
    while let Some(event) = events.next().await {
        assembler.push(event?);
    }
    assembler.finish()
}
