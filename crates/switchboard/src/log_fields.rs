//! Log fields written so that text from users cannot forge log lines.
//!
//! Server names, tool names, paths, errors quoting an upstream, an MCP server's own log
//! messages: much of what is logged comes from users or the servers they configure. Written
//! as is, a name holding a newline starts what looks like a new log line ("...\nERROR admin
//! token revoked"), and ANSI escapes recolour or erase the terminal. Rather than escape at
//! every call, the subscriber's field formatter escapes every field value and every message:
//! control characters (C0, DEL, C1: newlines, escapes) and the Unicode controls that reorder
//! text are written as Rust escapes (`\n`, `\u{1b}`), so each event stays one line.

use std::fmt;

use tracing::field::Field;
use tracing_subscriber::field::MakeExt as _;
use tracing_subscriber::fmt::FormatFields;
use tracing_subscriber::fmt::format::{Writer, debug_fn};

/// The field formatter of the binary's log: `message name=value ...`, every value escaped.
pub fn escaped() -> impl for<'writer> FormatFields<'writer> + Send + Sync + 'static {
    debug_fn(write_field).delimited(" ")
}

fn write_field(writer: &mut Writer<'_>, field: &Field, value: &dyn fmt::Debug) -> fmt::Result {
    let text = format!("{value:?}");
    if field.name() != "message" {
        write!(writer, "{}=", field.name())?;
    }
    write_escaped(writer, &text)
}

fn write_escaped(out: &mut impl fmt::Write, text: &str) -> fmt::Result {
    for c in text.chars() {
        if needs_escape(c) {
            write!(out, "{}", c.escape_default())?;
        } else {
            out.write_char(c)?;
        }
    }
    Ok(())
}

/// Control characters, and the format characters that change how a line reads (bidi
/// overrides and isolates, zero-width marks).
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn escape(text: &str) -> String {
        let mut out = String::new();
        write_escaped(&mut out, text).unwrap();
        out
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(
            escape("evil\nERROR forged\r\x1b[31mred\u{202e}"),
            "evil\\nERROR forged\\r\\u{1b}[31mred\\u{202e}"
        );
        assert_eq!(escape("plain text, ünïcode"), "plain text, ünïcode");
    }
}
