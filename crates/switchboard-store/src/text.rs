//! The NUL character, which stored text never holds.
//!
//! Postgres refuses `\0` in TEXT columns outright; SQLite would store it and hand it to every
//! later reader (C strings, terminals, logs). So both backends refuse it in whatever a caller
//! asks to store, before anything is written, with an error that names the field: the same
//! answer on both, and never a half-written row or a raw database error.

use serde::Serialize;
use serde_json::Value;

use crate::error::StoreError;
use crate::invalid::Invalid;

/// The longest conversation title, in characters.
pub(crate) const MAX_TITLE_CHARS: usize = 500;

/// Refuses `text` when it is longer than `max` characters.
pub(crate) fn at_most(field: &'static str, text: &str, max: usize) -> Result<(), StoreError> {
    if text.chars().nth(max).is_some() {
        return Err(Invalid::LongerThan { field, max }.into());
    }
    Ok(())
}

/// Refuses `value` when any string in it (or any object key) holds a NUL character; `what`
/// names the value in the error, e.g. `name` or `the server`.
pub(crate) fn refuse_nul<T: Serialize + ?Sized>(
    what: &'static str,
    value: &T,
) -> Result<(), StoreError> {
    let value = serde_json::to_value(value).map_err(|e| StoreError::encode(what, e))?;
    let path = |below: String| format!("{what}{below}");
    let found = match nul_at(&value) {
        Some(Nul::InString(below)) => path(below),
        Some(Nul::InKey(below)) => format!("a key of {}", path(below)),
        None => return Ok(()),
    };
    Err(Invalid::Nul { at: found }.into())
}

/// Where a NUL was found, as the path below the value looked at (`[2].name`): in a string, or
/// in a key of the object there. The path is built only on the way back from a hit, so a
/// clean value (every write) costs no string per node.
enum Nul {
    InString(String),
    InKey(String),
}

fn nul_at(value: &Value) -> Option<Nul> {
    let below = |prefix: String, nul: Nul| match nul {
        Nul::InString(rest) => Nul::InString(prefix + &rest),
        Nul::InKey(rest) => Nul::InKey(prefix + &rest),
    };
    match value {
        Value::String(text) => text.contains('\0').then(|| Nul::InString(String::new())),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| nul_at(item).map(|nul| below(format!("[{i}]"), nul))),
        Value::Object(map) => map.iter().find_map(|(key, item)| {
            if key.contains('\0') {
                return Some(Nul::InKey(String::new()));
            }
            nul_at(item).map(|nul| below(format!(".{key}"), nul))
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn nul_anywhere_is_refused_with_its_path() {
        let error = refuse_nul("server", &json!({"name": "ok", "args": ["a", "b\0"]}))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("server.args[1] contains a NUL"),
            "{error}"
        );
        let error = refuse_nul("env", &json!({"A\0": "x"}))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("a key of env"), "{error}");
        assert!(refuse_nul("title", "plain \u{1} text").is_ok());
        assert!(refuse_nul("title", "x\0").is_err());
    }
}
