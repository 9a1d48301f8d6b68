//! Text that came from outside (an MCP server, a model provider), made fit to quote in an
//! error: on one line, control characters (line breaks, terminal escapes) turned into spaces,
//! runs of spaces collapsed, and cut short. One function for every layer that quotes upstream
//! words, so they are all cut the same way.

/// `text` on one line, plain, cut at `max_chars` characters (then `...` is added).
pub fn short_text(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut chars = 0;
    for word in text
        .split(|c: char| c.is_control() || c.is_whitespace())
        .filter(|w| !w.is_empty())
    {
        for c in (!out.is_empty())
            .then_some(' ')
            .into_iter()
            .chain(word.chars())
        {
            if chars == max_chars {
                out.push_str("...");
                return out;
            }
            out.push(c);
            chars += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_text_is_short_and_plain() {
        assert_eq!(short_text("a\n\n b\u{1b}[31m\tc", 50), "a b [31m c");
        assert_eq!(short_text(&"x".repeat(500), 10), "xxxxxxxxxx...");
        assert_eq!(short_text("  \n ", 10), "");
    }
}
