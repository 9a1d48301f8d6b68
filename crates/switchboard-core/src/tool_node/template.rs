//! `{{variable}}` templates: the text a person writes in a parameter mapping.
//!
//! A template that is exactly one reference (`{{count}}`) stands for the variable's value with
//! its JSON type kept, so a number stays a number and an object stays an object. A reference
//! inside longer text (`"repos/{{owner}}/{{repo}}"`) is interpolated: strings as they are, any
//! other JSON as its compact text. Names are dotted paths (`{{user.email}}`) that reach into
//! objects (and, by a numeric segment, into arrays).
//!
//! Parsing is strict on purpose: an unclosed `{{`, an empty name or a malformed one is an
//! error at save time rather than text silently sent to a tool.

use std::fmt;

use serde_json::Value;
use thiserror::Error;

/// A dotted variable name: `name` or `name.field.sub`.
///
/// The first segment starts with a letter or `_`; every segment holds ASCII letters, digits,
/// `_` and `-`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VarPath(String);

impl VarPath {
    /// Reads a dotted name, refusing anything the template grammar would not accept.
    pub fn parse(text: &str) -> Result<VarPath, TemplateParseError> {
        let malformed = || TemplateParseError::MalformedName {
            name: text.to_owned(),
        };
        if text.is_empty() {
            return Err(TemplateParseError::EmptyName);
        }
        let segment_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-';
        let mut segments = text.split('.');
        let first = segments.next().unwrap_or_default();
        let starts_well = first
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
        if !starts_well || !first.chars().all(segment_char) {
            return Err(malformed());
        }
        for segment in segments {
            if segment.is_empty() || !segment.chars().all(segment_char) {
                return Err(malformed());
            }
        }
        Ok(VarPath(text.to_owned()))
    }

    /// The name as written, dots included.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The variable the path starts from (`user` in `user.email`).
    pub fn root(&self) -> &str {
        self.segments().next().unwrap_or_default()
    }

    /// Every segment, the root first.
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('.')
    }

    /// Follows the segments after the root into `value`: object keys, or array indexes.
    pub fn walk<'v>(&self, value: &'v Value) -> Option<&'v Value> {
        self.segments()
            .skip(1)
            .try_fold(value, |v, segment| match v {
                Value::Object(map) => map.get(segment),
                Value::Array(items) => segment.parse::<usize>().ok().and_then(|i| items.get(i)),
                _ => None,
            })
    }
}

impl fmt::Display for VarPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why a template or a variable name does not parse.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TemplateParseError {
    /// `{{` with no `}}` after it.
    #[error(
        "a {{{{ is not closed by }}}} (text that should contain {{{{ is written \
         {{\"value\": \"...\"}})"
    )]
    Unclosed,
    /// `{{}}` or `{{  }}`.
    #[error("a {{{{}}}} reference has no variable name")]
    EmptyName,
    /// A name outside the grammar (`{{a..b}}`, `{{1x}}`, `{{a b}}`).
    #[error(
        "{name:?} is not a variable name (letters, digits, `_` and `-`, segments joined by \
         `.`, starting with a letter or `_`)"
    )]
    MalformedName { name: String },
    /// Text with no `{{variable}}` in it is a literal, not a template.
    #[error("the text has no {{{{variable}}}} reference")]
    NoReference,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Var(VarPath),
}

/// A parsed template; it remembers its source so it is written back exactly as typed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    source: String,
    parts: Vec<Part>,
}

/// The most text one template may render to (1 MiB).
pub const MAX_RENDERED_BYTES: usize = 1 << 20;

/// Why a template could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenderError {
    /// The first reference with no value.
    Missing(VarPath),
    /// The text would be longer than [`MAX_RENDERED_BYTES`].
    TooLong,
}

impl Template {
    /// Parses `text`, which must hold at least one `{{variable}}`. Spaces inside the braces
    /// are allowed (`{{ repo }}`).
    pub fn parse(text: &str) -> Result<Template, TemplateParseError> {
        let mut parts = Vec::new();
        let mut rest = text;
        while let Some(open) = rest.find("{{") {
            if open > 0 {
                parts.push(Part::Text(rest[..open].to_owned()));
            }
            let after = &rest[open + 2..];
            let close = after.find("}}").ok_or(TemplateParseError::Unclosed)?;
            let name = after[..close].trim();
            parts.push(Part::Var(VarPath::parse(name)?));
            rest = &after[close + 2..];
        }
        if !rest.is_empty() {
            parts.push(Part::Text(rest.to_owned()));
        }
        if !parts.iter().any(|p| matches!(p, Part::Var(_))) {
            return Err(TemplateParseError::NoReference);
        }
        Ok(Template {
            source: text.to_owned(),
            parts,
        })
    }

    /// The template of one whole reference, `{{path}}`.
    pub fn variable(path: VarPath) -> Template {
        Template {
            source: format!("{{{{{path}}}}}"),
            parts: vec![Part::Var(path)],
        }
    }

    /// The text as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The single reference when the template is nothing else (its value keeps its JSON type).
    pub fn whole(&self) -> Option<&VarPath> {
        match self.parts.as_slice() {
            [Part::Var(path)] => Some(path),
            _ => None,
        }
    }

    /// Every variable referenced, in order of appearance (repeats included).
    pub fn references(&self) -> impl Iterator<Item = &VarPath> {
        self.parts.iter().filter_map(|p| match p {
            Part::Var(path) => Some(path),
            Part::Text(_) => None,
        })
    }

    /// The template's value, with each reference looked up; the first reference with no value
    /// is the error. Interpolated text longer than [`MAX_RENDERED_BYTES`] is refused: each
    /// reference copies its value again, so a short template over one large variable could
    /// otherwise ask for any amount of memory.
    pub fn render(
        &self,
        mut lookup: impl FnMut(&VarPath) -> Option<Value>,
    ) -> Result<Value, RenderError> {
        if let Some(path) = self.whole() {
            return lookup(path).ok_or_else(|| RenderError::Missing(path.clone()));
        }
        let mut out = String::new();
        for part in &self.parts {
            let value;
            let piece = match part {
                Part::Text(text) => text.as_str(),
                Part::Var(path) => {
                    value = match lookup(path) {
                        Some(Value::String(s)) => s,
                        Some(other) => other.to_string(),
                        None => return Err(RenderError::Missing(path.clone())),
                    };
                    value.as_str()
                }
            };
            if out.len() + piece.len() > MAX_RENDERED_BYTES {
                return Err(RenderError::TooLong);
            }
            out.push_str(piece);
        }
        Ok(Value::String(out))
    }
}

impl fmt::Display for Template {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.source)
    }
}
