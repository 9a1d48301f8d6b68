//! The stable error codes every layer reports, and the HTTP status each one maps to.
//!
//! Callers of the REST API, the web UI and the agent branch on these strings, so they are part
//! of the public contract: a code is never renamed, only added (the enum is
//! `#[non_exhaustive]`). Each lower layer keeps its own `thiserror` enum and says which code
//! its variants mean; the server turns the code into `{code, message, timestamp}` and the status
//! given by [`ErrorCode::http_status`], in one place.
//!
//! Statuses come from the seeds where they give one (seed 000: `MCP_SERVER_NOT_FOUND` 404,
//! `UNSUPPORTED_TRANSPORT` 400, `MCP_CONNECTION_ERROR` 503; seed 003: tool missing 404, MCP
//! service unavailable 502, schema failure 500, bad parameters 400). Seed 002 lists codes
//! without statuses; for those the rule is: a fault of the MCP server Switchboard talks to is a
//! gateway error (502, or 504 for a timeout), never a 401 or 403, because those would tell the
//! caller that *their* Switchboard credentials were refused. Each variant documents its choice.
//!
//! ```
//! use switchboard_core::ErrorCode;
//!
//! let code: ErrorCode = "MCP_TIMEOUT".parse()?;
//! assert_eq!(code.http_status(), 504);
//! assert!(!code.is_retryable());
//! assert!(code.is_retryable_for(true));
//! # Ok::<(), switchboard_core::error_code::UnknownErrorCode>(())
//! ```

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// A stable, machine-readable error code, serialized as `SCREAMING_SNAKE_CASE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[non_exhaustive]
pub enum ErrorCode {
    /// No server with that id for this owner. 404 (seed 000).
    McpServerNotFound,
    /// The transport named in a request is not one Switchboard speaks. 400 (seed 000).
    UnsupportedTransport,
    /// A connection to the server could not be set up or was lost before the request was
    /// handed over. 503 (seed 000).
    McpConnectionError,
    /// The server's host or process cannot be reached at all (DNS, refused, no such
    /// command). 502: the upstream is unavailable (seed 003).
    McpUnreachable,
    /// The MCP server refused the credentials configured for it. 502, not 401: the caller's
    /// own login is fine, the fix is in the server's settings.
    McpAuthFailed,
    /// The server answered but not in MCP (bad handshake, unknown protocol version, malformed
    /// JSON-RPC). 502: the upstream sent an invalid response.
    McpProtocolError,
    /// The server did not answer in time. 504 Gateway Timeout.
    McpTimeout,
    /// The server has no tool of that name. 404 (seed 003).
    McpToolNotFound,
    /// The arguments do not match the tool's input schema, or the server said so. 400
    /// (seed 003).
    McpInvalidParams,
    /// The tool ran and failed on the server's side. 502: the failure is upstream's, not
    /// Switchboard's, so it is not reported as an internal error.
    McpExecutionError,
    /// The server's result could not be read (seed 002: "result parsing failed"). 502: the
    /// upstream sent a response Switchboard cannot use.
    McpParseError,
    /// A tool's JSON Schema could not be turned into a function schema. 500, logged in full
    /// (seed 003: "schema format error").
    SchemaError,
    /// A service Switchboard depends on (an MCP node, an LLM provider) is down. 502 (seed 003).
    UpstreamUnavailable,
    /// The request itself is malformed or breaks a rule. 400.
    ValidationError,
    /// The addressed resource does not exist. 404.
    NotFound,
    /// The request conflicts with current state (duplicate name, approval already decided).
    /// 409.
    Conflict,
    /// The request body is larger than the server takes. 413.
    PayloadTooLarge,
    /// No valid credentials for Switchboard itself. 401.
    Unauthorized,
    /// Authenticated, but not allowed. 403.
    Forbidden,
    /// The request's `Host` is not one this server answers to, or its `Origin` is not
    /// allowed (DNS rebinding, cross-site requests). 403.
    OriginNotAllowed,
    /// A member's server or provider points at an address the destination guard refuses
    /// (loopback, private, link-local, ...). 403: an admin can allow the host.
    DestinationNotAllowed,
    /// A member's stdio server does not fit any launch template an admin allowed. 403.
    LaunchNotAllowed,
    /// The caller has as many of something (servers, assistants, open event streams, runs at
    /// once) as their quota allows. 403 for stored things, 429 is for rates.
    QuotaExceeded,
    /// Too many requests (failed sign-ins, writes) in a short time; `Retry-After` says when
    /// to try again. 429.
    RateLimited,
    /// The path exists but not with this method. 405.
    MethodNotAllowed,
    /// The request line's URI is longer than this server reads. 414.
    UriTooLong,
    /// The request's body did not arrive within the time this server waits for it. 408.
    RequestTimeout,
    /// The request's headers are larger than this server reads. 431.
    HeadersTooLarge,
    /// A state-changing request's body is not `application/json`. 415.
    UnsupportedMediaType,
    /// The operation was cancelled (the client hung up, the user stopped the run). 499, the
    /// "client closed request" status of nginx: no standard code fits, it is outside the 5xx
    /// range so cancellations do not count as server failures in metrics, and it is rarely
    /// seen by anyone but logs, since the client that cancelled is usually gone.
    Cancelled,
    /// A person rejected the tool call it answers (the model hears it as the call's result).
    /// 403 where it is ever sent as an HTTP answer: the call was refused, not broken.
    Rejected,
    /// A bug or an unexpected failure inside Switchboard. 500; details are logged, not sent.
    InternalError,
    /// The disk under the database is full: nothing was written. 507 (Insufficient Storage):
    /// the request was fine and can be sent again once an administrator has made room.
    StorageFull,
    /// A provider's URL moves to another origin while its stored API key is kept: the key is
    /// not sent to the new origin unless the request confirms it (`keepApiKey: true`) or
    /// gives the key again. 409: the request conflicts with what is stored.
    ApiKeyOriginChanged,
    /// The server no longer knows a task it ran (it expired, or the server restarted and
    /// forgot it): the call's outcome cannot be had. 502, as the server's failure.
    TaskLost,
    /// Switchboard stopped while it ran a tool in the background: the call may or may not
    /// have taken effect, and is not run again. 503: nothing is wrong with the request.
    TaskInterrupted,
}

/// How safe it is to try again after an error with a given code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum RetrySafety {
    /// The request did not reach the server (or reached a server that was down), so trying
    /// again cannot do the work twice.
    Always,
    /// The request may have been delivered and may even be running; only repeat a call that
    /// is read-only or idempotent.
    IfIdempotent,
    /// Repeating gives the same answer or repeats a side effect; do not retry.
    Never,
}

impl ErrorCode {
    /// Every code, in declaration order (for tests and documentation).
    pub const ALL: &'static [ErrorCode] = &[
        ErrorCode::McpServerNotFound,
        ErrorCode::UnsupportedTransport,
        ErrorCode::McpConnectionError,
        ErrorCode::McpUnreachable,
        ErrorCode::McpAuthFailed,
        ErrorCode::McpProtocolError,
        ErrorCode::McpTimeout,
        ErrorCode::McpToolNotFound,
        ErrorCode::McpInvalidParams,
        ErrorCode::McpExecutionError,
        ErrorCode::McpParseError,
        ErrorCode::SchemaError,
        ErrorCode::UpstreamUnavailable,
        ErrorCode::ValidationError,
        ErrorCode::NotFound,
        ErrorCode::Conflict,
        ErrorCode::PayloadTooLarge,
        ErrorCode::Unauthorized,
        ErrorCode::Forbidden,
        ErrorCode::Cancelled,
        ErrorCode::Rejected,
        ErrorCode::InternalError,
        ErrorCode::OriginNotAllowed,
        ErrorCode::DestinationNotAllowed,
        ErrorCode::LaunchNotAllowed,
        ErrorCode::QuotaExceeded,
        ErrorCode::RateLimited,
        ErrorCode::MethodNotAllowed,
        ErrorCode::UriTooLong,
        ErrorCode::RequestTimeout,
        ErrorCode::HeadersTooLarge,
        ErrorCode::StorageFull,
        ErrorCode::UnsupportedMediaType,
        ErrorCode::ApiKeyOriginChanged,
        ErrorCode::TaskLost,
        ErrorCode::TaskInterrupted,
    ];

    /// The code as sent on the wire, e.g. `"MCP_SERVER_NOT_FOUND"`.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::McpServerNotFound => "MCP_SERVER_NOT_FOUND",
            ErrorCode::UnsupportedTransport => "UNSUPPORTED_TRANSPORT",
            ErrorCode::McpConnectionError => "MCP_CONNECTION_ERROR",
            ErrorCode::McpUnreachable => "MCP_UNREACHABLE",
            ErrorCode::McpAuthFailed => "MCP_AUTH_FAILED",
            ErrorCode::McpProtocolError => "MCP_PROTOCOL_ERROR",
            ErrorCode::McpTimeout => "MCP_TIMEOUT",
            ErrorCode::McpToolNotFound => "MCP_TOOL_NOT_FOUND",
            ErrorCode::McpInvalidParams => "MCP_INVALID_PARAMS",
            ErrorCode::McpExecutionError => "MCP_EXECUTION_ERROR",
            ErrorCode::McpParseError => "MCP_PARSE_ERROR",
            ErrorCode::SchemaError => "SCHEMA_ERROR",
            ErrorCode::UpstreamUnavailable => "UPSTREAM_UNAVAILABLE",
            ErrorCode::ValidationError => "VALIDATION_ERROR",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::Forbidden => "FORBIDDEN",
            ErrorCode::Cancelled => "CANCELLED",
            ErrorCode::Rejected => "REJECTED",
            ErrorCode::InternalError => "INTERNAL_ERROR",
            ErrorCode::StorageFull => "STORAGE_FULL",
            ErrorCode::OriginNotAllowed => "ORIGIN_NOT_ALLOWED",
            ErrorCode::DestinationNotAllowed => "DESTINATION_NOT_ALLOWED",
            ErrorCode::LaunchNotAllowed => "LAUNCH_NOT_ALLOWED",
            ErrorCode::QuotaExceeded => "QUOTA_EXCEEDED",
            ErrorCode::RateLimited => "RATE_LIMITED",
            ErrorCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ErrorCode::UriTooLong => "URI_TOO_LONG",
            ErrorCode::RequestTimeout => "REQUEST_TIMEOUT",
            ErrorCode::HeadersTooLarge => "HEADERS_TOO_LARGE",
            ErrorCode::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
            ErrorCode::ApiKeyOriginChanged => "API_KEY_ORIGIN_CHANGED",
            ErrorCode::TaskLost => "TASK_LOST",
            ErrorCode::TaskInterrupted => "TASK_INTERRUPTED",
        }
    }

    /// The HTTP status of a response carrying this code; each variant's docs say why.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::UnsupportedTransport
            | ErrorCode::McpInvalidParams
            | ErrorCode::ValidationError => 400,
            ErrorCode::Unauthorized => 401,
            ErrorCode::Forbidden
            | ErrorCode::Rejected
            | ErrorCode::OriginNotAllowed
            | ErrorCode::DestinationNotAllowed
            | ErrorCode::LaunchNotAllowed
            | ErrorCode::QuotaExceeded => 403,
            ErrorCode::MethodNotAllowed => 405,
            ErrorCode::McpServerNotFound | ErrorCode::McpToolNotFound | ErrorCode::NotFound => 404,
            ErrorCode::Conflict | ErrorCode::ApiKeyOriginChanged => 409,
            ErrorCode::PayloadTooLarge => 413,
            ErrorCode::UriTooLong => 414,
            ErrorCode::RequestTimeout => 408,
            ErrorCode::UnsupportedMediaType => 415,
            ErrorCode::RateLimited => 429,
            ErrorCode::HeadersTooLarge => 431,
            ErrorCode::Cancelled => 499,
            ErrorCode::SchemaError | ErrorCode::InternalError => 500,
            ErrorCode::McpUnreachable
            | ErrorCode::McpAuthFailed
            | ErrorCode::McpProtocolError
            | ErrorCode::McpExecutionError
            | ErrorCode::McpParseError
            | ErrorCode::UpstreamUnavailable
            | ErrorCode::TaskLost => 502,
            ErrorCode::McpConnectionError | ErrorCode::TaskInterrupted => 503,
            ErrorCode::McpTimeout => 504,
            ErrorCode::StorageFull => 507,
        }
    }

    /// Whether trying again is safe, judged from the code alone.
    ///
    /// `Always` for failures before anything was delivered: `MCP_CONNECTION_ERROR`,
    /// `MCP_UNREACHABLE`, `UPSTREAM_UNAVAILABLE` (seed 002 retries unreachable servers).
    /// `IfIdempotent` for `MCP_TIMEOUT`: the call may be running, so seed 002's "retry on
    /// timeout" is narrowed to read-only or idempotent tools, as the design requires.
    /// `Never` for everything else: a refused credential, a bad argument or a failed tool
    /// gives the same answer again, and a cancellation was asked for.
    ///
    /// The code cannot know whether a particular request had already been sent when a
    /// connection broke; a caller that knows it had must treat the failure as
    /// `IfIdempotent` whatever the code.
    pub fn retry_safety(self) -> RetrySafety {
        match self {
            ErrorCode::McpConnectionError
            | ErrorCode::McpUnreachable
            | ErrorCode::UpstreamUnavailable => RetrySafety::Always,
            ErrorCode::McpTimeout => RetrySafety::IfIdempotent,
            _ => RetrySafety::Never,
        }
    }

    /// Safe to retry whatever the request was (see [`ErrorCode::retry_safety`]).
    pub fn is_retryable(self) -> bool {
        self.retry_safety() == RetrySafety::Always
    }

    /// Safe to retry a request that is (`idempotent = true`) or is not read-only or
    /// idempotent, e.g. from [`ToolAnnotations::safe_to_repeat`](crate::ToolAnnotations::safe_to_repeat).
    pub fn is_retryable_for(self, idempotent: bool) -> bool {
        match self.retry_safety() {
            RetrySafety::Always => true,
            RetrySafety::IfIdempotent => idempotent,
            RetrySafety::Never => false,
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A string that is not one of the [`ErrorCode`]s.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("unknown error code {0:?}")]
pub struct UnknownErrorCode(pub String);

impl FromStr for ErrorCode {
    type Err = UnknownErrorCode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ErrorCode::ALL
            .iter()
            .copied()
            .find(|code| code.as_str() == s)
            .ok_or_else(|| UnknownErrorCode(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn every_code_round_trips_through_serde_as_str_and_from_str() {
        for &code in ErrorCode::ALL {
            let json = serde_json::to_string(&code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            let back: ErrorCode = serde_json::from_str(&json).unwrap();
            assert_eq!(back, code);
            assert_eq!(code.as_str().parse::<ErrorCode>(), Ok(code));
            assert_eq!(code.to_string(), code.as_str());
        }
    }

    #[test]
    fn codes_are_distinct_and_screaming_snake() {
        let names: BTreeSet<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        assert_eq!(names.len(), ErrorCode::ALL.len());
        for name in names {
            assert!(
                name.bytes().all(|b| b.is_ascii_uppercase() || b == b'_'),
                "{name}"
            );
        }
    }

    #[test]
    fn statuses_are_as_documented() {
        let expected = [
            ("MCP_SERVER_NOT_FOUND", 404),
            ("UNSUPPORTED_TRANSPORT", 400),
            ("MCP_CONNECTION_ERROR", 503),
            ("MCP_UNREACHABLE", 502),
            ("MCP_AUTH_FAILED", 502),
            ("MCP_PROTOCOL_ERROR", 502),
            ("MCP_TIMEOUT", 504),
            ("MCP_TOOL_NOT_FOUND", 404),
            ("MCP_INVALID_PARAMS", 400),
            ("MCP_EXECUTION_ERROR", 502),
            ("MCP_PARSE_ERROR", 502),
            ("SCHEMA_ERROR", 500),
            ("UPSTREAM_UNAVAILABLE", 502),
            ("VALIDATION_ERROR", 400),
            ("NOT_FOUND", 404),
            ("CONFLICT", 409),
            ("PAYLOAD_TOO_LARGE", 413),
            ("UNAUTHORIZED", 401),
            ("FORBIDDEN", 403),
            ("CANCELLED", 499),
            ("REJECTED", 403),
            ("INTERNAL_ERROR", 500),
            ("ORIGIN_NOT_ALLOWED", 403),
            ("DESTINATION_NOT_ALLOWED", 403),
            ("LAUNCH_NOT_ALLOWED", 403),
            ("QUOTA_EXCEEDED", 403),
            ("RATE_LIMITED", 429),
            ("METHOD_NOT_ALLOWED", 405),
            ("URI_TOO_LONG", 414),
            ("REQUEST_TIMEOUT", 408),
            ("HEADERS_TOO_LARGE", 431),
            ("UNSUPPORTED_MEDIA_TYPE", 415),
            ("STORAGE_FULL", 507),
            ("API_KEY_ORIGIN_CHANGED", 409),
            ("TASK_LOST", 502),
            ("TASK_INTERRUPTED", 503),
        ];
        assert_eq!(expected.len(), ErrorCode::ALL.len());
        for (name, status) in expected {
            let code: ErrorCode = name.parse().unwrap();
            assert_eq!(code.http_status(), status, "{name}");
        }
    }

    #[test]
    fn only_transport_failures_are_retryable() {
        let retryable: BTreeSet<ErrorCode> = ErrorCode::ALL
            .iter()
            .copied()
            .filter(|c| c.is_retryable())
            .collect();
        let expected = BTreeSet::from([
            ErrorCode::McpConnectionError,
            ErrorCode::McpUnreachable,
            ErrorCode::UpstreamUnavailable,
        ]);
        assert_eq!(retryable, expected);
        assert!(ErrorCode::McpTimeout.is_retryable_for(true));
        assert!(!ErrorCode::McpTimeout.is_retryable_for(false));
        assert!(!ErrorCode::McpExecutionError.is_retryable_for(true));
        assert!(!ErrorCode::Cancelled.is_retryable_for(true));
    }

    #[test]
    fn unknown_codes_are_rejected() {
        assert!("mcp_timeout".parse::<ErrorCode>().is_err());
        assert!(serde_json::from_str::<ErrorCode>("\"NOPE\"").is_err());
    }
}
