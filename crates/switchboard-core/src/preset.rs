//! Tool presets: a saved way of calling tools of one server (seed 002 `MCPToolNodeConfig`).
//!
//! A preset names the server, the tools chosen from it and, per tool, parameter mappings: a
//! parameter is either fixed to a value or taken from a `{{variable}}` given at call time. It
//! also carries the execution settings (retry on error, how many times, timeout). The REST
//! proxy merges a preset's fixed parameters into a call.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::spec::{ServerId, SpecError, check_timeout};

/// One saved preset.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolPreset {
    pub name: String,
    pub server_id: ServerId,
    #[serde(default)]
    pub selected_tools: Vec<SelectedTool>,
    #[serde(default)]
    pub retry_on_error: bool,
    #[serde(default)]
    pub max_retries: u32,
    /// Per-call timeout in milliseconds; the server's applies when absent.
    #[serde(
        default,
        rename = "timeoutMs",
        with = "millis_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub timeout: Option<Duration>,
}

/// A tool chosen in a preset, with how its parameters are filled.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SelectedTool {
    pub name: String,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub parameter_mappings: BTreeMap<String, ParamMapping>,
}

fn yes() -> bool {
    true
}

/// Where one parameter's value comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParamMapping {
    /// Always this value.
    Value(Value),
    /// The value of the named variable at call time, written `{{name}}` in a form.
    Variable(String),
}

impl ParamMapping {
    /// Reads what a person typed: `{{name}}` (spaces inside the braces allowed) is a variable
    /// reference, anything else the fixed string.
    pub fn from_template(text: &str) -> ParamMapping {
        let inner = text
            .strip_prefix("{{")
            .and_then(|rest| rest.strip_suffix("}}"))
            .map(str::trim);
        match inner {
            Some(name) if !name.is_empty() && !name.contains(['{', '}']) => {
                ParamMapping::Variable(name.to_owned())
            }
            _ => ParamMapping::Value(Value::String(text.to_owned())),
        }
    }
}

impl ToolPreset {
    /// The rules a preset must follow before it is stored.
    pub fn validate(&self) -> Result<(), SpecError> {
        if self.name.trim().is_empty() {
            return Err(SpecError::Empty {
                field: "name".into(),
            });
        }
        if let Some(timeout) = self.timeout {
            check_timeout("timeoutMs", timeout)?;
        }
        for (i, tool) in self.selected_tools.iter().enumerate() {
            if tool.name.trim().is_empty() {
                return Err(SpecError::Empty {
                    field: format!("selectedTools[{i}].name"),
                });
            }
        }
        Ok(())
    }
}

mod millis_opt {
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(v: &Option<Duration>, s: S) -> Result<S::Ok, S::Error> {
        match v {
            // Validation keeps timeouts to whole milliseconds of at most a day.
            Some(d) => s.serialize_u64(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            None => s.serialize_none(),
        }
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<Duration>, D::Error> {
        Ok(Option::<u64>::deserialize(d)?.map(Duration::from_millis))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_become_variables() {
        assert_eq!(
            ParamMapping::from_template("{{ city }}"),
            ParamMapping::Variable("city".into())
        );
        assert_eq!(
            ParamMapping::from_template("{{}}"),
            ParamMapping::Value(Value::String("{{}}".into()))
        );
        assert_eq!(
            ParamMapping::from_template("Paris"),
            ParamMapping::Value(Value::String("Paris".into()))
        );
    }

    #[test]
    fn json_round_trips() {
        let preset = ToolPreset {
            name: "weather".into(),
            server_id: ServerId("w".into()),
            selected_tools: vec![SelectedTool {
                name: "forecast".into(),
                enabled: true,
                parameter_mappings: BTreeMap::from([
                    ("city".into(), ParamMapping::Variable("city".into())),
                    ("units".into(), ParamMapping::Value("metric".into())),
                ]),
            }],
            retry_on_error: true,
            max_retries: 3,
            timeout: Some(Duration::from_millis(2500)),
        };
        let json = serde_json::to_value(&preset).unwrap();
        assert_eq!(json["timeoutMs"], 2500);
        let back: ToolPreset = serde_json::from_value(json).unwrap();
        assert_eq!(back, preset);
    }
}
