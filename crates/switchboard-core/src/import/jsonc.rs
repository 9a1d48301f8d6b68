//! JSON with comments, as VS Code writes it.
//!
//! VS Code's `settings.json` and `mcp.json` are "JSONC": `//` and `/* */` comments and trailing
//! commas are allowed, and people use both. `serde_json` accepts neither, so [`strip`] turns
//! JSONC into JSON first. It blanks comments out with spaces (keeping line breaks) rather than
//! deleting them, so the line and column of a later syntax error still point at the user's
//! file. Strings are copied untouched, including any `//` inside a URL.

/// `text` with comments replaced by whitespace and trailing commas removed.
pub fn strip(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    // Where the last `,` outside strings and comments was written to `out`, if only
    // whitespace has followed it since.
    let mut pending_comma: Option<usize> = None;
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                pending_comma = None;
                out.push(c);
                while let Some(s) = chars.next() {
                    out.push(s);
                    match s {
                        '\\' => {
                            if let Some(escaped) = chars.next() {
                                out.push(escaped);
                            }
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '/' if chars.peek() == Some(&'/') => {
                out.push(' ');
                for s in chars.by_ref() {
                    if s == '\n' {
                        out.push('\n');
                        break;
                    }
                    out.push(' ');
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                out.push_str("  ");
                let mut previous = ' ';
                for s in chars.by_ref() {
                    out.push(if s == '\n' { '\n' } else { ' ' });
                    if previous == '*' && s == '/' {
                        break;
                    }
                    previous = s;
                }
            }
            ',' => {
                pending_comma = Some(out.len());
                out.push(c);
            }
            '}' | ']' => {
                if let Some(at) = pending_comma.take() {
                    out.replace_range(at..=at, " ");
                }
                out.push(c);
            }
            c if c.is_whitespace() => out.push(c),
            _ => {
                pending_comma = None;
                out.push(c);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::strip;

    fn parse(text: &str) -> Value {
        serde_json::from_str(&strip(text)).unwrap_or_else(|e| panic!("{e}\n{}", strip(text)))
    }

    #[test]
    fn comments_and_trailing_commas_go() {
        let text = r#"{
            // a line comment
            "a": 1, /* a block
                       comment */ "b": [1, 2, 3,],
            "c": {"d": true,},
        }"#;
        assert_eq!(
            parse(text),
            json!({"a": 1, "b": [1, 2, 3], "c": {"d": true}})
        );
    }

    #[test]
    fn strings_are_left_alone() {
        let text = r#"{"url": "https://example.com/mcp", "s": "a /* b */ c, ]", "q": "\"//\""}"#;
        assert_eq!(
            parse(text),
            json!({"url": "https://example.com/mcp", "s": "a /* b */ c, ]", "q": "\"//\""})
        );
    }

    #[test]
    fn positions_of_later_errors_are_kept() {
        let text = "{\n  // comment\n  \"a\": 1,\n  oops\n}";
        let stripped = strip(text);
        assert_eq!(stripped.lines().count(), text.lines().count());
        let error = serde_json::from_str::<Value>(&stripped).unwrap_err();
        assert_eq!(error.line(), 4);
    }

    #[test]
    fn plain_json_is_unchanged() {
        let text = r#"{"a": [1, {"b": null}], "c": "d"}"#;
        assert_eq!(strip(text), text);
    }

    #[test]
    fn a_comma_before_a_value_is_kept() {
        assert_eq!(parse("[1, // one\n 2]"), json!([1, 2]));
    }
}
