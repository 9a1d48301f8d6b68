//! Which protocol generation a stdio server speaks, found without stalling.
//!
//! Servers of the 2026-07-28 revision answer `server/discover`; older ones answer it with an
//! error, or, like some SDKs before `initialize`, not at all. rmcp's automatic mode waits ten
//! seconds for an answer that never comes before it falls back. Instead we send `server/discover`
//! and a `ping` together: every generation answers `ping`, and a server handles its input in
//! order, so a `ping` answered while `server/discover` is not means discovery was ignored and
//! the classic handshake is the one to use. The probe's late answers are filtered out so the
//! rmcp session never sees responses to requests it did not send.

use std::collections::VecDeque;
use std::time::Duration;

use rmcp::RoleClient;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, DiscoverRequest, DiscoverRequestParams, NumberOrString,
    PingRequest, ProtocolVersion, RequestMetaObject, ServerJsonRpcMessage,
};
use rmcp::transport::Transport;

use crate::client::SwitchboardClient;

const PROBE_ID_PREFIX: &str = "switchboard-probe-";
const DISCOVER_ID: &str = "switchboard-probe-discover";
const PING_ID: &str = "switchboard-probe-ping";

/// How long `server/discover` may trail an answered `ping`: servers that run requests
/// concurrently may answer out of order, but not by more than this.
const DISCOVER_GRACE: Duration = Duration::from_millis(200);

/// What the probe learned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Generation {
    /// `server/discover` succeeded: the stateless 2026-07-28 revision.
    Modern,
    /// `server/discover` was answered with an error that is not a modern-era rejection, or
    /// ignored: use the `initialize` handshake.
    Legacy,
    /// Answered with a modern-era rejection (for example an unsupported version): let rmcp
    /// negotiate.
    Negotiate,
}

/// The transport after probing: it replays what arrived during the probe and hides the
/// probe's own responses.
pub(crate) struct Probed<T> {
    inner: T,
    pending: VecDeque<ServerJsonRpcMessage>,
}

#[derive(Debug, thiserror::Error)]
pub(crate) enum ProbeError {
    #[error("the server closed its output before answering")]
    Closed,
    #[error("could not write to the server: {0}")]
    Send(String),
}

/// Probes `transport`; the caller bounds the whole probe with its connect timeout.
pub(crate) async fn probe<T>(mut transport: T) -> Result<(Probed<T>, Generation), ProbeError>
where
    T: Transport<RoleClient>,
{
    let info = SwitchboardClient::client_info();
    let meta = RequestMetaObject::with_client_context(
        ProtocolVersion::V_2026_07_28,
        info.client_info,
        info.capabilities,
    );
    let mut discover = DiscoverRequest::new(DiscoverRequestParams {});
    discover.extensions.insert(meta);
    for message in [
        ClientJsonRpcMessage::request(
            ClientRequest::DiscoverRequest(discover),
            NumberOrString::String(DISCOVER_ID.into()),
        ),
        ClientJsonRpcMessage::request(
            ClientRequest::PingRequest(PingRequest::default()),
            NumberOrString::String(PING_ID.into()),
        ),
    ] {
        transport
            .send(message)
            .await
            .map_err(|e| ProbeError::Send(e.to_string()))?;
    }

    let mut pending = VecDeque::new();
    let mut ping_answered = false;
    loop {
        let next = if ping_answered {
            match tokio::time::timeout(DISCOVER_GRACE, transport.receive()).await {
                Ok(next) => next,
                Err(_) => break,
            }
        } else {
            transport.receive().await
        };
        let message = next.ok_or(ProbeError::Closed)?;
        match probe_answer(&message) {
            Some(ProbeAnswer::Discover(generation)) => {
                return Ok((
                    Probed {
                        inner: transport,
                        pending,
                    },
                    generation,
                ));
            }
            Some(ProbeAnswer::Ping) => ping_answered = true,
            None => pending.push_back(message),
        }
    }
    Ok((
        Probed {
            inner: transport,
            pending,
        },
        Generation::Legacy,
    ))
}

enum ProbeAnswer {
    Discover(Generation),
    Ping,
}

fn probe_answer(message: &ServerJsonRpcMessage) -> Option<ProbeAnswer> {
    let (id, outcome) = match message {
        ServerJsonRpcMessage::Response(response) => (Some(&response.id), None),
        ServerJsonRpcMessage::Error(error) => (error.id.as_ref(), Some(error.error.code)),
        _ => return None,
    };
    let NumberOrString::String(id) = id? else {
        return None;
    };
    match id.as_ref() {
        DISCOVER_ID => Some(ProbeAnswer::Discover(match outcome {
            None => Generation::Modern,
            Some(code) if is_modern_rejection(code) => Generation::Negotiate,
            Some(_) => Generation::Legacy,
        })),
        PING_ID => Some(ProbeAnswer::Ping),
        _ => None,
    }
}

fn is_modern_rejection(code: rmcp::model::ErrorCode) -> bool {
    matches!(
        code,
        rmcp::model::ErrorCode::UNSUPPORTED_PROTOCOL_VERSION
            | rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY
            | rmcp::model::ErrorCode::HEADER_MISMATCH
    )
}

fn is_probe_response(message: &ServerJsonRpcMessage) -> bool {
    let id = match message {
        ServerJsonRpcMessage::Response(response) => Some(&response.id),
        ServerJsonRpcMessage::Error(error) => error.id.as_ref(),
        _ => None,
    };
    matches!(id, Some(NumberOrString::String(id)) if id.starts_with(PROBE_ID_PREFIX))
}

impl<T> Transport<RoleClient> for Probed<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<ServerJsonRpcMessage> {
        if let Some(message) = self.pending.pop_front() {
            return Some(message);
        }
        loop {
            let message = self.inner.receive().await?;
            if !is_probe_response(&message) {
                return Some(message);
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
