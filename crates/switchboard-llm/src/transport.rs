//! Starting a streaming call: send, check the status, retry what may pass.
//!
//! Shared by both wire formats, which differ only in the request they build. A non-success
//! status is read and classified here ([`crate::classify`]), so a provider's `stream()` either
//! gets a response whose body is the event stream, or the classified error.

use crate::classify;
use crate::error::LlmError;
use crate::retry::RetryPolicy;

/// Sends the request `build` makes (once per attempt) under `policy`; `secret` is the API key,
/// blanked out of any error message that echoes it.
pub(crate) async fn start(
    policy: &RetryPolicy,
    secret: Option<&str>,
    build: impl Fn() -> reqwest::RequestBuilder,
) -> Result<reqwest::Response, LlmError> {
    policy
        .run(|| async {
            // The URL may carry credentials (`?key=`): never quoted.
            let response = build()
                .send()
                .await
                .map_err(|e| LlmError::Network(e.without_url()))?;
            if response.status().is_success() {
                Ok(response)
            } else {
                Err(classify::from_response(response, secret).await)
            }
        })
        .await
}
