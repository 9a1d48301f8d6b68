//! Namespaced resource URIs: `switchboard://{server id}/{the server's URI, percent-encoded}`.
//!
//! Two servers may both have `file:///notes.md`, so where a scope's names are namespaced
//! (a view prefix of `None` or a non-empty one) every URI is wrapped in one that names its
//! server. The wrapping is reversible without a table: reading a URI unwraps it and asks the
//! server it names, after checking that server is in the caller's selection (so a URI of
//! another person's server names nothing the caller can reach). A resource template keeps its
//! `{expressions}` as they are, so a client can still expand it; everything else is encoded,
//! and reading decodes the whole tail. An unprefixed view (prefix `Some("")`) passes URIs
//! unchanged: its person chose the servers' own names.

use rmcp::model::{ContentBlock, ResourceContents};

use crate::selection::SelectedServer;

const SCHEME: &str = "switchboard://";

/// Whether `server`'s URIs are wrapped in this scope.
pub(crate) fn namespaced(server: &SelectedServer) -> bool {
    server.prefix.as_deref() != Some("")
}

/// The URI a scope sees for `uri` of `server`.
pub(crate) fn export(server: &SelectedServer, uri: &str) -> String {
    if namespaced(server) {
        format!("{SCHEME}{}/{}", encode(&server.spec.id.0), encode(uri))
    } else {
        uri.to_owned()
    }
}

/// The URI template a scope sees for `template` of `server`: as [`export`], with every
/// `{expression}` left as it is.
pub(crate) fn export_template(server: &SelectedServer, template: &str) -> String {
    if !namespaced(server) {
        return template.to_owned();
    }
    let mut out = format!("{SCHEME}{}/", encode(&server.spec.id.0));
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|close| open + close) else {
            break;
        };
        out.push_str(&encode(&rest[..open]));
        out.push_str(&rest[open..=close]);
        rest = &rest[close + 1..];
    }
    out.push_str(&encode(rest));
    out
}

/// `contents` with its URI as the scope sees it (contents of a kind newer than this code are
/// left as they are).
pub(crate) fn export_contents(server: &SelectedServer, contents: &mut ResourceContents) {
    match contents {
        ResourceContents::TextResourceContents { uri, .. }
        | ResourceContents::BlobResourceContents { uri, .. } => *uri = export(server, uri),
        _ => {}
    }
}

/// A content block (of a prompt message or a tool result) with the URIs of its embedded
/// resource or resource link as the scope sees them, so the client can read them back.
pub(crate) fn export_block(server: &SelectedServer, block: &mut ContentBlock) {
    match block {
        ContentBlock::Resource(embedded) => export_contents(server, &mut embedded.resource),
        ContentBlock::ResourceLink(link) => link.uri = export(server, &link.uri),
        _ => {}
    }
}

/// A wrapped URI taken apart: the server id and the server's own URI.
pub(crate) fn unwrap(uri: &str) -> Option<(String, String)> {
    let tail = uri.strip_prefix(SCHEME)?;
    let (server, original) = tail.split_once('/')?;
    Some((decode(server)?, decode(original)?))
}

/// Every byte outside RFC 3986's unreserved set as `%XX`.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `%XX` back to bytes; `None` for a malformed escape or a result that is not UTF-8.
fn decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&byte) = bytes.get(i) {
        if byte == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(byte);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use switchboard_core::ServerSpec;

    use super::*;

    fn server(prefix: Option<&str>) -> SelectedServer {
        let mut spec = ServerSpec::stdio("everything", "node", Vec::<String>::new());
        spec.id = switchboard_core::ServerId("srv 1".into());
        SelectedServer {
            spec: Arc::new(spec),
            tools: None,
            prefix: prefix.map(str::to_owned),
        }
    }

    #[test]
    fn a_uri_is_wrapped_and_unwrapped_to_the_same_server_and_uri() {
        let uri = "demo://resource/static/document/a b%2F.md?x=1#y";
        let wrapped = export(&server(None), uri);
        assert!(wrapped.starts_with("switchboard://srv%201/demo%3A%2F%2F"));
        assert_eq!(unwrap(&wrapped), Some(("srv 1".to_owned(), uri.to_owned())));
        assert_eq!(export(&server(Some("ev_")), uri), wrapped);
    }

    #[test]
    fn an_unprefixed_view_passes_uris_unchanged() {
        let server = server(Some(""));
        assert_eq!(export(&server, "test://static-text"), "test://static-text");
        assert_eq!(export_template(&server, "test://t/{id}"), "test://t/{id}");
    }

    #[test]
    fn a_template_keeps_its_expressions_and_reads_back_expanded() {
        let template = export_template(&server(None), "demo://resource/dynamic/text/{index}");
        assert_eq!(
            template,
            "switchboard://srv%201/demo%3A%2F%2Fresource%2Fdynamic%2Ftext%2F{index}"
        );
        let expanded = template.replace("{index}", "7");
        assert_eq!(
            unwrap(&expanded).map(|(_, uri)| uri),
            Some("demo://resource/dynamic/text/7".to_owned())
        );
    }

    #[test]
    fn foreign_and_malformed_uris_unwrap_to_nothing() {
        assert_eq!(unwrap("test://static-text"), None);
        assert_eq!(unwrap("switchboard://only-a-server"), None);
        assert_eq!(unwrap("switchboard://s/%ZZ"), None);
        assert_eq!(unwrap("switchboard://s/%FF"), None);
    }
}
