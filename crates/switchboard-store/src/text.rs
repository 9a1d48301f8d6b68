//! The NUL character, which stored text never holds.
//!
//! Postgres refuses `\0` in TEXT columns outright; SQLite would store it and hand it to every
//! later reader (C strings, terminals, logs). So both backends refuse it in whatever a caller
//! asks to store, before anything is written, with an error that names the field: the same
//! answer on both, and never a half-written row or a raw database error.

use serde::Serialize;
use serde_json::Value;

use crate::error::StoreError;

/// Refuses `value` when any string in it (or any object key) holds a NUL character; `what`
/// names the value in the error, e.g. `name` or `the server`.
pub(crate) fn refuse_nul<T: Serialize + ?Sized>(what: &str, value: &T) -> Result<(), StoreError> {
    let value = serde_json::to_value(value)
        .map_err(|e| StoreError::Invalid(format!("cannot encode {what}: {e}")))?;
    match nul_at(&value, what) {
        Some(path) => Err(StoreError::Invalid(format!(
            "{path} contains a NUL character (\\u0000), which stored text cannot hold"
        ))),
        None => Ok(()),
    }
}

/// The path of the first string with a NUL in it.
fn nul_at(value: &Value, path: &str) -> Option<String> {
    match value {
        Value::String(text) => text.contains('\0').then(|| path.to_owned()),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| nul_at(item, &format!("{path}[{i}]"))),
        Value::Object(map) => map.iter().find_map(|(key, item)| {
            if key.contains('\0') {
                return Some(format!("a key of {path}"));
            }
            nul_at(item, &format!("{path}.{key}"))
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
