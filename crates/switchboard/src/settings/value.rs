//! How one setting's value is read from each layer, and written back for `config show`.
//!
//! Environment variables, flags and defaults are text; the file is TOML, where numbers may be
//! numbers and lists arrays. Every type reads both, so a value means the same wherever it is
//! given, and is shown in TOML syntax, ready to paste into `switchboard.toml`.

use std::net::SocketAddr;
use std::time::Duration;

use switchboard_core::LaunchRules;
use switchboard_core::destination::AllowedDestination;

/// A type a setting can have.
pub trait SettingValue: Sized {
    /// What a good value looks like, for error messages.
    const EXPECTED: &'static str;

    /// From an environment variable or a default.
    fn from_text(text: &str) -> Result<Self, String>;

    /// From a flag given once or more (lists take every occurrence, others the last).
    fn from_flags(given: &[String]) -> Result<Self, String> {
        Self::from_text(given.last().map_or("", String::as_str))
    }

    /// From the settings file. Strings are read as text; other TOML types where they fit.
    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::String(text) => Self::from_text(text),
            other => Err(format!("{} is not allowed here", a_kind(other))),
        }
    }

    /// The value as TOML.
    fn to_toml(&self) -> String;
}

/// `text` quoted as a TOML basic string.
pub fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

macro_rules! integer {
    ($($type:ty),*) => {$(
        impl SettingValue for $type {
            const EXPECTED: &'static str = "a whole number";

            fn from_text(text: &str) -> Result<Self, String> {
                text.trim().parse().map_err(|e| format!("`{text}`: {e}"))
            }

            fn from_toml(value: &toml::Value) -> Result<Self, String> {
                match value {
                    toml::Value::Integer(n) => <$type>::try_from(*n).map_err(|e| format!("{n}: {e}")),
                    toml::Value::String(text) => Self::from_text(text),
                    other => Err(format!("{} is not a number", a_kind(other))),
                }
            }

            fn to_toml(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

integer!(u32, usize);

impl SettingValue for bool {
    const EXPECTED: &'static str = "true or false";

    fn from_text(text: &str) -> Result<Self, String> {
        match text.trim() {
            "true" | "1" => Ok(true),
            "false" | "0" | "" => Ok(false),
            other => Err(format!("`{other}`")),
        }
    }

    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::Boolean(b) => Ok(*b),
            toml::Value::String(text) => Self::from_text(text),
            other => Err(format!("{} is not true or false", a_kind(other))),
        }
    }

    fn to_toml(&self) -> String {
        self.to_string()
    }
}

impl SettingValue for Duration {
    const EXPECTED: &'static str = "a duration such as \"500ms\", \"30s\", \"5m\" or \"1h\"";

    fn from_text(text: &str) -> Result<Self, String> {
        humantime::parse_duration(text.trim()).map_err(|e| format!("`{text}`: {e}"))
    }

    fn to_toml(&self) -> String {
        quoted(&humantime::format_duration(*self).to_string())
    }
}

impl SettingValue for SocketAddr {
    const EXPECTED: &'static str = "an address such as \"127.0.0.1:8080\"";

    fn from_text(text: &str) -> Result<Self, String> {
        text.trim().parse().map_err(|e| format!("`{text}`: {e}"))
    }

    fn to_toml(&self) -> String {
        quoted(&self.to_string())
    }
}

/// An optional value: empty text means none.
impl<T: SettingValue> SettingValue for Option<T> {
    const EXPECTED: &'static str = T::EXPECTED;

    fn from_text(text: &str) -> Result<Self, String> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        T::from_text(text).map(Some)
    }

    fn to_toml(&self) -> String {
        self.as_ref().map_or_else(|| quoted(""), T::to_toml)
    }
}

/// One entry of a list setting, kept as its text so it is shown as given.
pub trait ListItem: Sized {
    /// What separates entries in an environment variable.
    const SEPARATOR: char = ',';
    const EXPECTED: &'static str;
    fn parse(text: &str) -> Result<Self, String>;
    fn text(&self) -> &str;
}

/// A list: an array in the file, separated entries in the environment, a repeated flag.
impl<T: ListItem> SettingValue for Vec<T> {
    const EXPECTED: &'static str = T::EXPECTED;

    fn from_text(text: &str) -> Result<Self, String> {
        text.split(T::SEPARATOR)
            .map(str::trim)
            .filter(|entry| !entry.is_empty())
            .map(T::parse)
            .collect()
    }

    fn from_flags(given: &[String]) -> Result<Self, String> {
        given.iter().map(|entry| T::parse(entry.trim())).collect()
    }

    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::Array(entries) => entries
                .iter()
                .map(|entry| match entry {
                    toml::Value::String(text) => T::parse(text.trim()),
                    other => Err(format!("{} in the list", a_kind(other))),
                })
                .collect(),
            toml::Value::String(text) => Self::from_text(text),
            other => Err(format!("{} is not a list", a_kind(other))),
        }
    }

    fn to_toml(&self) -> String {
        let entries: Vec<String> = self.iter().map(|entry| quoted(entry.text())).collect();
        format!("[{}]", entries.join(", "))
    }
}

/// A host name (`NAME` or `NAME:PORT`) or an origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name(pub String);

impl ListItem for Name {
    const EXPECTED: &'static str = "a list of names";

    fn parse(text: &str) -> Result<Self, String> {
        Ok(Self(text.to_owned()))
    }

    fn text(&self) -> &str {
        &self.0
    }
}

impl ListItem for url::Url {
    const EXPECTED: &'static str = "a list of URLs such as \"https://switchboard.example.com\"";

    fn parse(text: &str) -> Result<Self, String> {
        text.parse().map_err(|e| format!("`{text}`: {e}"))
    }

    fn text(&self) -> &str {
        self.as_str()
    }
}

/// A destination members may reach although it is not public (`--allow-destination`).
#[derive(Debug, Clone)]
pub struct Destination {
    text: String,
    pub rule: AllowedDestination,
}

impl ListItem for Destination {
    const EXPECTED: &'static str =
        "a list of host names, IP addresses or networks such as \"10.20.0.0/16\"";

    fn parse(text: &str) -> Result<Self, String> {
        let rule = text.parse().map_err(|e| format!("{e}"))?;
        Ok(Self {
            text: text.to_owned(),
            rule,
        })
    }

    fn text(&self) -> &str {
        &self.text
    }
}

/// A launch template (`--launch-template`), checked when read.
#[derive(Debug, Clone)]
pub struct Template(pub String);

impl ListItem for Template {
    /// A template's own arguments are separated by spaces and commas (`env=A,B`).
    const SEPARATOR: char = ';';
    const EXPECTED: &'static str = "a list of launch templates such as \"npx -y @modelcontextprotocol/server-* env=GITHUB_TOKEN\"";

    fn parse(text: &str) -> Result<Self, String> {
        LaunchRules::parse_all(&[text]).map_err(|e| e.to_string())?;
        Ok(Self(text.to_owned()))
    }

    fn text(&self) -> &str {
        &self.0
    }
}

/// A TOML value's kind as a sentence says it ("an integer is not allowed here").
pub(super) fn a_kind(value: &toml::Value) -> &'static str {
    match value {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a decimal number",
        toml::Value::Boolean(_) => "true or false",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "a list",
        toml::Value::Table(_) => "a table",
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_wrong_kind_is_said_with_its_article() {
        let integer = toml::Value::Integer(3);
        assert_eq!(a_kind(&integer), "an integer");
        assert_eq!(a_kind(&toml::Value::Array(Vec::new())), "a list");
        let refused = <bool as SettingValue>::from_toml(&integer).unwrap_err();
        assert_eq!(refused, "an integer is not true or false");
    }

    use super::*;

    #[test]
    fn every_layer_reads_the_same_value() {
        let from_text = Duration::from_text("5m").unwrap();
        let from_toml = Duration::from_toml(&toml::Value::String("5m".into())).unwrap();
        assert_eq!(from_text, from_toml);
        assert_eq!(from_text.to_toml(), "\"5m\"");
        assert_eq!(u32::from_toml(&toml::Value::Integer(7)).unwrap(), 7);
        assert_eq!(u32::from_text("7").unwrap(), 7);
        assert!(u32::from_toml(&toml::Value::Integer(-1)).is_err());
    }

    #[test]
    fn lists_split_on_their_separator() {
        let hosts = Vec::<Name>::from_text("a, b,,c").unwrap();
        assert_eq!(hosts.to_toml(), r#"["a", "b", "c"]"#);
        let templates = Vec::<Template>::from_text("uvx mcp-a; uvx mcp-b env=X,Y").unwrap();
        assert_eq!(templates.len(), 2);
        assert!(Vec::<Destination>::from_text("10.0.0.0/99").is_err());
    }

    #[test]
    fn quoting_escapes_what_toml_needs_escaped() {
        assert_eq!(quoted(r#"a"b\c"#), r#""a\"b\\c""#);
        assert_eq!(quoted("x\ny"), r#""x\ny""#);
    }

    #[test]
    fn an_empty_optional_value_is_none() {
        assert_eq!(Option::<SocketAddr>::from_text("").unwrap(), None);
        assert_eq!(Option::<SocketAddr>::None.to_toml(), "\"\"");
    }
}
