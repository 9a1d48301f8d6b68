//! Messages without the program's own type names.
//!
//! serde words a mismatch by the Rust type it was decoding into ("expected struct
//! ServerBody", "did not match any variant of untagged enum Body"); such a name tells a caller
//! nothing they can act on and tells a prober how the program is built; so does a number
//! type ("expected u32"). Every message that
//! leaves the process through the API passes through [`without_type_names`], which puts plain
//! words where serde names a type and leaves everything else (field names, the values, where
//! in the body) as it is.

/// What serde writes before a type's name, longest first, and the plain words for it.
const NAMED: &[(&str, &str)] = &[
    (
        "internally tagged enum ",
        "an object of one of the accepted kinds",
    ),
    (
        "adjacently tagged enum ",
        "an object of one of the accepted kinds",
    ),
    ("untagged enum ", "one of the accepted forms"),
    ("tuple struct ", "a list"),
    ("newtype struct ", "a value"),
    ("unit struct ", "nothing"),
    ("struct variant ", "an object"),
    ("tuple variant ", "a list"),
    ("newtype variant ", "a value"),
    ("unit variant ", "a name"),
    ("struct ", "an object"),
    ("enum ", "one of the accepted values"),
];

/// The number and character types serde names after `expected `, and the plain words for
/// each.
const PRIMITIVES: &[(&str, &str)] = &[
    ("u8", "a whole number from 0 to 255"),
    ("u16", "a whole number from 0 to 65535"),
    ("u32", "a whole number from 0 to 4294967295"),
    ("u64", "a whole number of 0 or more"),
    ("u128", "a whole number of 0 or more"),
    ("usize", "a whole number of 0 or more"),
    ("i8", "a whole number from -128 to 127"),
    ("i16", "a whole number from -32768 to 32767"),
    ("i32", "a whole number from -2147483648 to 2147483647"),
    ("i64", "a whole number"),
    ("i128", "a whole number"),
    ("isize", "a whole number"),
    ("f32", "a number"),
    ("f64", "a number"),
    ("char", "a single character"),
];

/// Where serde writes a type's name: after these words only, so a value the caller sent
/// ("invalid value: string \"struct X\"") is never rewritten.
const BEFORE: &[&str] = &["expected ", "variant of "];

/// `message` with every type name serde put in it replaced by plain words.
pub fn without_type_names(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    'scan: while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("expected ") {
            let primitive = PRIMITIVES.iter().find(|(name, _)| {
                after.strip_prefix(name).is_some_and(|tail| {
                    !tail.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                })
            });
            if let Some((name, words)) = primitive {
                out.push_str("expected ");
                out.push_str(words);
                rest = &after[name.len()..];
                continue 'scan;
            }
        }
        for before in BEFORE {
            let Some(after) = rest.strip_prefix(before) else {
                continue;
            };
            for (prefix, words) in NAMED {
                let Some(name_on) = after.strip_prefix(prefix) else {
                    continue;
                };
                let name_len = type_name_len(name_on);
                if name_len == 0 {
                    continue;
                }
                out.push_str(before);
                out.push_str(words);
                rest = &name_on[name_len..];
                continue 'scan;
            }
        }
        let mut chars = rest.chars();
        if let Some(c) = chars.next() {
            out.push(c);
        }
        rest = chars.as_str();
    }
    out
}

/// The length of the Rust path at the start of `text` (`Body`, `seed::Body`,
/// `Transport::Stdio`, `Wrapper<T>`), 0 when there is none.
fn type_name_len(text: &str) -> usize {
    let mut depth = 0usize;
    let mut len = 0;
    for (at, c) in text.char_indices() {
        let part_of_name = c.is_ascii_alphanumeric()
            || c == '_'
            || c == ':'
            || c == '<'
            || (depth > 0 && (c == '>' || c == ',' || c == ' '));
        if !part_of_name {
            if c == '>' && depth > 0 {
                depth -= 1;
                len = at + 1;
                continue;
            }
            break;
        }
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ => {}
        }
        len = at + c.len_utf8();
    }
    if depth > 0 {
        return 0;
    }
    // A name starts with a letter; "enum 3" is not one.
    match text.chars().next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => len,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct ServerBody {
        name: String,
        transport: Transport,
    }

    #[derive(Debug, Deserialize)]
    #[serde(tag = "kind")]
    #[allow(dead_code)]
    enum Transport {
        Stdio { command: String },
    }

    #[derive(Debug, Deserialize)]
    #[serde(untagged)]
    #[allow(dead_code)]
    enum Either {
        Number(u32),
        Server(ServerBody),
    }

    fn error_of<T: for<'de> Deserialize<'de> + std::fmt::Debug>(json: &str) -> String {
        match serde_json::from_str::<T>(json) {
            Ok(value) => panic!("{value:?} was accepted"),
            Err(error) => error.to_string(),
        }
    }

    #[test]
    fn serdes_type_names_become_plain_words() {
        for (json, kind) in [
            (r#""a string""#, "struct"),
            (r#"{"name": "x", "transport": 5}"#, "enum"),
            ("true", "untagged"),
        ] {
            let raw = match kind {
                "untagged" => error_of::<Either>(json),
                _ => error_of::<ServerBody>(json),
            };
            assert!(
                raw.contains("ServerBody") || raw.contains("Transport") || raw.contains("Either"),
                "serde names the type: {raw}"
            );
            let plain = without_type_names(&raw);
            for name in ["ServerBody", "Transport", "Either", "struct", "enum"] {
                assert!(!plain.contains(name), "{plain}");
            }
        }
    }

    #[test]
    fn the_rest_of_the_message_is_kept() {
        assert_eq!(
            without_type_names(
                "invalid type: integer `5`, expected struct seed::Body<T, U> at line 1 column 2"
            ),
            "invalid type: integer `5`, expected an object at line 1 column 2"
        );
        assert_eq!(
            without_type_names("unknown variant `sse2`, expected one of `stdio`, `sse`"),
            "unknown variant `sse2`, expected one of `stdio`, `sse`"
        );
        // What the caller sent is theirs, whatever it says.
        assert_eq!(
            without_type_names(r#"invalid value: string "struct Secret", expected a URL"#),
            r#"invalid value: string "struct Secret", expected a URL"#
        );
        assert_eq!(without_type_names("expected enum 3"), "expected enum 3");
        assert_eq!(
            without_type_names("invalid value: integer `-1`, expected u32"),
            "invalid value: integer `-1`, expected a whole number from 0 to 4294967295"
        );
        assert_eq!(
            without_type_names("invalid type: string \"x\", expected f64 at line 1"),
            "invalid type: string \"x\", expected a number at line 1"
        );
        assert_eq!(without_type_names("expected u32s"), "expected u32s");
        assert_eq!(without_type_names("名前が長すぎます"), "名前が長すぎます");
    }
}
