//! Unknown fields in a server body are refused, not dropped.
//!
//! `ServerSpec` itself accepts unknown fields, on purpose: the servers file of earlier
//! versions is read with it and may carry fields those versions had. The API is stricter: a
//! field it does not know is most likely a misspelling (`secretEnv` for `secret_env`), and
//! dropping it silently stored a token in clear. So the body's keys are checked against the
//! fields serde itself knows: the names a derived `Deserialize` passes to
//! `deserialize_struct` (what `serde_aux`'s introspection reads; written here because that is
//! the only function of it we need; the snake_case aliases of earlier versions among them),
//! and for `auth`, the keys of the variant it names, read back from its serialization (every
//! `Auth` field is always serialized, camelCase; its snake_case aliases are known too).

use serde::de::{self, Deserialize, Visitor};
use serde_json::{Map, Value};
use switchboard_core::{Auth, ErrorCode, ServerSpec};

use crate::error::ApiError;

/// Fields a read of a server carries that are not part of its configuration. A client that
/// reads a server, changes it and sends it back sends these too; they are dropped, not
/// refused.
const READ_ONLY: &[&str] = &["createdAt", "updatedAt", "created_at", "updated_at"];

/// Drops the read-only fields of a server body, then refuses its first key that `ServerSpec`
/// does not know.
pub fn check_server(object: &mut Map<String, Value>) -> Result<(), ApiError> {
    object.retain(|key, _| !READ_ONLY.contains(&key.as_str()));
    let known = fields_of::<ServerSpec>();
    if let Some(unknown) = object.keys().find(|key| !known.contains(&key.as_str())) {
        return Err(unknown_field(unknown, known));
    }
    if let Some(Value::Object(auth)) = object.get("auth")
        && let Ok(parsed) = serde_json::from_value::<Auth>(Value::Object(auth.clone()))
        && let Ok(Value::Object(back)) = serde_json::to_value(&parsed)
        && let Some(unknown) = auth
            .keys()
            .find(|key| !back.contains_key(key.as_str()) && !back.contains_key(&camel_case(key)))
    {
        let known: Vec<&str> = back.keys().map(String::as_str).collect();
        return Err(unknown_field(&format!("auth.{unknown}"), &known));
    }
    Ok(())
}

/// `client_id` as `clientId`: the camelCase name of a snake_case alias.
fn camel_case(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// Names the unknown field and the fields there are (in their camelCase names only: the
/// snake_case aliases are still read, but not taught).
fn unknown_field(name: &str, known: &[&str]) -> ApiError {
    let fields = known
        .iter()
        .filter(|k| !k.contains('_'))
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    ApiError::new(
        ErrorCode::ValidationError,
        format!("unknown field `{name}`; the fields are {fields}"),
    )
    .key("error.msg.unknown_field")
    .param("field", name)
    .param("fields", fields)
}

/// The field names a derived `Deserialize` of a struct asks for.
fn fields_of<'de, T: Deserialize<'de>>() -> &'static [&'static str] {
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(Probe {
        fields: &mut fields,
    });
    fields
}

/// A deserializer that only records the fields it is asked for, then stops.
struct Probe<'a> {
    fields: &'a mut &'static [&'static str],
}

impl<'de> de::Deserializer<'de> for Probe<'_> {
    type Error = de::value::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("not a struct"))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        *self.fields = fields;
        Err(de::Error::custom("probed"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn check(mut value: Value) -> Result<(), String> {
        check_server(value.as_object_mut().unwrap()).map_err(|e| e.message)
    }

    #[test]
    fn known_fields_pass_and_unknown_ones_are_named() {
        assert!(fields_of::<ServerSpec>().contains(&"secretEnv"));
        check(
            json!({"id": "a", "name": "a", "transport": "stdio", "command": "x",
                      "secretEnv": ["T"], "auth": {"type": "bearer", "token": "t"}}),
        )
        .unwrap();
        // The snake_case names of earlier versions are still read.
        check(
            json!({"name": "a", "secret_env": ["T"], "auto_approved_tools": ["t"],
                     "auth": {"type": "oauth", "client_id": "c", "clientSecret": "s"}}),
        )
        .unwrap();
        let refused = check(json!({"name": "a", "secretEnvs": ["T"]})).unwrap_err();
        assert!(refused.contains("`secretEnvs`"), "{refused}");
        assert!(refused.contains("`secretEnv`"), "{refused}");
        assert!(!refused.contains("`secret_env`"), "{refused}");
        let refused = check(json!({"name": "a", "auth": {"type": "bearer", "token": "t",
                                                          "header": "X"}}))
        .unwrap_err();
        assert!(refused.contains("`auth.header`"), "{refused}");
        // What a read carries besides the configuration goes back without complaint.
        check(json!({"name": "a", "createdAt": 1, "updatedAt": 2})).unwrap();
        check(json!({"name": "a", "created_at": 1, "updated_at": 2})).unwrap();
    }
}
