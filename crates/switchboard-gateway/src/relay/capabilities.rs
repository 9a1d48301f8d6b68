//! What a downstream client said it can answer, and the refusals for what it cannot.

// Sampling is deprecated by SEP-2577 but still sent by deployed servers.
#![allow(deprecated)]

use rmcp::ErrorData;
use rmcp::model::{ClientCapabilities, ElicitRequestParams, ElicitResult, ElicitationAction};

/// The client capabilities that matter to the relay.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Capabilities {
    pub(crate) form: bool,
    pub(crate) url: bool,
    pub(crate) sampling: bool,
    pub(crate) roots: bool,
}

impl Capabilities {
    pub(crate) fn of(declared: Option<&ClientCapabilities>) -> Self {
        let Some(declared) = declared else {
            return Self::default();
        };
        let elicitation = declared.elicitation.as_ref();
        // `"elicitation": {}` predates the form/url split and means form (2025-11-25 spec).
        let form =
            elicitation.is_some_and(|e| e.form.is_some() || (e.form.is_none() && e.url.is_none()));
        Self {
            form,
            url: elicitation.is_some_and(|e| e.url.is_some()),
            sampling: declared.sampling.is_some(),
            roots: declared.roots.is_some(),
        }
    }

    pub(crate) fn any(&self) -> bool {
        self.form || self.url || self.sampling
    }

    /// Whether the client can be shown this elicitation.
    pub(crate) fn elicits(&self, params: &ElicitRequestParams) -> bool {
        match params {
            ElicitRequestParams::FormElicitationParams { .. } => self.form,
            ElicitRequestParams::UrlElicitationParams { .. } => self.url,
            _ => false,
        }
    }
}

/// The answer to an elicitation the client cannot be shown: declined, so the tool can go on
/// without it.
pub(crate) fn declined() -> ElicitResult {
    ElicitResult::new(ElicitationAction::Decline)
}

/// The answer to a sampling request the client cannot take.
pub(crate) fn no_sampler() -> ErrorData {
    ErrorData::invalid_request(
        "the gateway's client did not declare the sampling capability, so no one can answer \
         sampling/createMessage",
        None,
    )
}
