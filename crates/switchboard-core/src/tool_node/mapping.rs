//! Where one parameter's value comes from, and how that is written in JSON.
//!
//! Seed 002 writes a mapping as `string | VariableRef`. Read here:
//! - a string containing `{{` is a [`Template`] (and must parse as one);
//! - any other string is that literal string;
//! - `{"variable": "a.b"}` (that one key) is the template `{{a.b}}`;
//! - `{"value": X}` (that one key) is the literal X: how a literal string containing `{{`, or a
//!   literal object of one of these two shapes, is written;
//! - any other JSON is a literal.
//!
//! The last two object forms are also how tool presets were stored before tool nodes, so old
//! rows read back unchanged. Writing uses the shortest form that reads back the same.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use super::template::{Template, TemplateParseError, VarPath};

/// One parameter's source: a fixed value or a template over the run's variables.
#[derive(Debug, Clone, PartialEq)]
pub enum Mapping {
    /// Always this value.
    Literal(Value),
    /// Filled from variables at call time.
    Template(Template),
}

impl Mapping {
    /// Reads the JSON forms described in the module docs.
    pub fn from_json(value: Value) -> Result<Mapping, TemplateParseError> {
        match value {
            Value::String(text) if text.contains("{{") => {
                Template::parse(&text).map(Mapping::Template)
            }
            Value::Object(mut map) if map.len() == 1 => {
                if let Some(inner) = map.remove("value") {
                    return Ok(Mapping::Literal(inner));
                }
                match map.remove("variable") {
                    Some(Value::String(name)) => Ok(Mapping::Template(Template::variable(
                        VarPath::parse(name.trim())?,
                    ))),
                    Some(other) => Err(TemplateParseError::MalformedName {
                        name: other.to_string(),
                    }),
                    None => Ok(Mapping::Literal(Value::Object(map))),
                }
            }
            other => Ok(Mapping::Literal(other)),
        }
    }

    /// Reads what a person typed in a form field: a template when it holds `{{`, otherwise
    /// the literal text.
    pub fn from_text(text: &str) -> Result<Mapping, TemplateParseError> {
        Mapping::from_json(Value::String(text.to_owned()))
    }

    /// The shortest JSON that [`Mapping::from_json`] reads back as `self`.
    pub fn to_json(&self) -> Value {
        match self {
            Mapping::Template(template) => Value::String(template.source().to_owned()),
            Mapping::Literal(value) if needs_wrapping(value) => {
                let mut map = Map::new();
                map.insert("value".into(), value.clone());
                Value::Object(map)
            }
            Mapping::Literal(value) => value.clone(),
        }
    }

    /// The variables this mapping reads (none for a literal).
    pub fn references(&self) -> impl Iterator<Item = &VarPath> {
        let template = match self {
            Mapping::Template(t) => Some(t),
            Mapping::Literal(_) => None,
        };
        template.into_iter().flat_map(Template::references)
    }
}

/// A literal that would read back as something else if written bare.
fn needs_wrapping(value: &Value) -> bool {
    match value {
        Value::String(text) => text.contains("{{"),
        Value::Object(map) => {
            map.len() == 1 && (map.contains_key("value") || map.contains_key("variable"))
        }
        _ => false,
    }
}

impl Serialize for Mapping {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Mapping {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Mapping::from_json(Value::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

impl From<Template> for Mapping {
    fn from(template: Template) -> Self {
        Mapping::Template(template)
    }
}
