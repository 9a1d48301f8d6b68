//! Text that came from a remote server, made fit to put in an error.
//!
//! A member may point a server URL at anything; what answers there (an admin panel, a
//! database's HTTP port, a metadata service) must not come back to them through the error
//! text. So a response body is never quoted: errors name the HTTP status, and the only
//! upstream words kept are short ones a real MCP server chose to say (a JSON-RPC error
//! message), on one line, without control characters or terminal escapes.

/// The most characters of upstream text an error quotes.
pub(crate) const MAX_QUOTED: usize = 200;

/// The most characters of a whole error detail (our words, the redacted URL, the causes).
pub(crate) const MAX_DETAIL: usize = 600;

pub(crate) use switchboard_core::upstream_text::short_text;

/// rmcp's "unexpected response" text without the body it quotes: `HTTP 401 Unauthorized:
/// <body>` keeps `HTTP 401 Unauthorized`, `could not parse JSON ...: <error>: <preview>` keeps
/// its first clause. Everything rmcp writes there puts its own words before the first `: `.
pub(crate) fn without_body(text: &str) -> String {
    let head = text.split_once(": ").map_or(text, |(head, _)| head);
    short_text(head, MAX_QUOTED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_text_is_short_and_plain() {
        assert_eq!(short_text("a\n\n b\u{1b}[31m\tc", 50), "a b [31m c");
        assert_eq!(short_text(&"x".repeat(500), 10), "xxxxxxxxxx...");
        assert_eq!(
            without_body("HTTP 401 Unauthorized: SECRET body"),
            "HTTP 401 Unauthorized"
        );
        assert_eq!(
            without_body("could not parse JSON response as ServerJsonRpcMessage: eof: {\"a\""),
            "could not parse JSON response as ServerJsonRpcMessage"
        );
        assert_eq!(without_body("invalid header"), "invalid header");
    }
}
