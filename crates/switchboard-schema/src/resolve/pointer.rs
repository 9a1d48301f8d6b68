//! Same-document references: a URI fragment (RFC 3986, percent-encoded) holding a JSON pointer
//! (RFC 6901, with `~0` for `~` and `~1` for `/`).

use std::borrow::Cow;

use serde_json::Value;

use crate::error::{RefProblem, SchemaError};

/// The fragment of a same-document reference without its `#`: `#/a/b` gives `/a/b`, `#` and the
/// empty reference give the empty fragment (the whole document). Anything else names another
/// document and gives `None`.
pub(super) fn local_fragment(reference: &str) -> Option<&str> {
    if reference.is_empty() {
        return Some("");
    }
    reference.strip_prefix('#')
}

/// Follows `fragment` (see [`local_fragment`]) from `root`.
///
/// `Ok(None)` when the fragment is not a JSON pointer but a plain name (`#node`, an `$anchor`),
/// which is not looked up. `reference` is only used in errors.
pub(super) fn lookup<'a>(
    root: &'a Value,
    reference: &str,
    fragment: &str,
) -> Result<Option<&'a Value>, SchemaError> {
    let pointer = percent_decode(fragment)
        .ok_or_else(|| invalid(reference, RefProblem::BadPercentEncoding))?;
    if pointer.is_empty() {
        return Ok(Some(root));
    }
    let Some(tokens) = pointer.strip_prefix('/') else {
        return Ok(None);
    };
    let mut node = root;
    for raw in tokens.split('/') {
        let token = unescape(raw).ok_or_else(|| invalid(reference, RefProblem::BadEscape))?;
        let next = match node {
            Value::Object(map) => map.get(token.as_ref()),
            Value::Array(items) => array_index(&token).and_then(|index| items.get(index)),
            _ => None,
        };
        node = next.ok_or_else(|| SchemaError::MissingRef {
            reference: reference.to_owned(),
            at: String::new(),
        })?;
    }
    Ok(Some(node))
}

fn invalid(reference: &str, problem: RefProblem) -> SchemaError {
    SchemaError::InvalidRef {
        reference: reference.to_owned(),
        at: String::new(),
        problem,
    }
}

/// Decodes `%XX` escapes. A `%` not followed by two hex digits is kept as written (generators do
/// not always encode), but escapes that decode to something other than UTF-8 are an error.
fn percent_decode(fragment: &str) -> Option<Cow<'_, str>> {
    if !fragment.contains('%') {
        return Some(Cow::Borrowed(fragment));
    }
    let bytes = fragment.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = match bytes.get(i..i + 3) {
            Some([b'%', high, low]) => hex(*high).zip(hex(*low)).map(|(h, l)| h << 4 | l),
            _ => None,
        };
        match escaped {
            Some(byte) => {
                decoded.push(byte);
                i += 3;
            }
            None => {
                decoded.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8(decoded).ok().map(Cow::Owned)
}

fn hex(digit: u8) -> Option<u8> {
    char::from(digit)
        .to_digit(16)
        .and_then(|value| u8::try_from(value).ok())
}

/// `~1` is `/` and `~0` is `~`; any other `~` makes the pointer invalid.
fn unescape(token: &str) -> Option<Cow<'_, str>> {
    if !token.contains('~') {
        return Some(Cow::Borrowed(token));
    }
    let mut out = String::with_capacity(token.len());
    let mut chars = token.chars();
    while let Some(c) = chars.next() {
        if c == '~' {
            match chars.next() {
                Some('0') => out.push('~'),
                Some('1') => out.push('/'),
                _ => return None,
            }
        } else {
            out.push(c);
        }
    }
    Some(Cow::Owned(out))
}

/// RFC 6901 array indices: `0`, or digits without a leading zero.
fn array_index(token: &str) -> Option<usize> {
    let canonical = token == "0" || (!token.starts_with('0') && !token.is_empty());
    if canonical && token.bytes().all(|b| b.is_ascii_digit()) {
        token.parse().ok()
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn find<'a>(root: &'a Value, reference: &str) -> Result<Option<&'a Value>, SchemaError> {
        let fragment = local_fragment(reference).expect("a local reference");
        lookup(root, reference, fragment)
    }

    #[test]
    fn fragments_of_local_and_remote_references() {
        assert_eq!(local_fragment("#/$defs/A"), Some("/$defs/A"));
        assert_eq!(local_fragment("#"), Some(""));
        assert_eq!(local_fragment(""), Some(""));
        assert_eq!(local_fragment("other.json#/$defs/A"), None);
        assert_eq!(local_fragment("https://example.com/s.json"), None);
    }

    #[test]
    fn pointers_unescape_tilde_and_slash_and_percent() {
        let root = json!({
            "properties": {
                "a/b": {"items": {"type": "string"}},
                "m~n": {"type": "integer"},
                "with space": {"type": "boolean"},
                "%": {"type": "null"}
            },
            "prefixItems": [{"type": "number"}, {"type": "object"}]
        });
        let found = |r: &str| find(&root, r).expect("valid").expect("a pointer");
        assert_eq!(found("#/properties/a~1b/items"), &json!({"type": "string"}));
        assert_eq!(found("#/properties/m~0n"), &json!({"type": "integer"}));
        assert_eq!(
            found("#/properties/with%20space"),
            &json!({"type": "boolean"})
        );
        assert_eq!(found("#/properties/%"), &json!({"type": "null"}));
        assert_eq!(found("#/%70roperties/a~1b/items/type"), &json!("string"));
        assert_eq!(found("#/prefixItems/1"), &json!({"type": "object"}));
        assert_eq!(found("#"), &root);
    }

    #[test]
    fn missing_and_malformed_pointers() {
        let root = json!({"$defs": {"A": {}}, "list": [{}, {}]});
        assert!(matches!(
            find(&root, "#/$defs/B"),
            Err(SchemaError::MissingRef { .. })
        ));
        assert!(matches!(
            find(&root, "#/list/01"),
            Err(SchemaError::MissingRef { .. })
        ));
        assert!(matches!(
            find(&root, "#/list/-"),
            Err(SchemaError::MissingRef { .. })
        ));
        assert!(matches!(
            find(&root, "#/list/2"),
            Err(SchemaError::MissingRef { .. })
        ));
        assert!(matches!(
            find(&root, "#/$defs/A~2"),
            Err(SchemaError::InvalidRef {
                problem: RefProblem::BadEscape,
                ..
            })
        ));
        assert!(matches!(
            find(&root, "#/$defs/%FF"),
            Err(SchemaError::InvalidRef {
                problem: RefProblem::BadPercentEncoding,
                ..
            })
        ));
    }

    #[test]
    fn plain_name_fragments_are_not_pointers() {
        let root = json!({"$defs": {"A": {"$anchor": "node"}}});
        assert!(matches!(find(&root, "#node"), Ok(None)));
    }
}
