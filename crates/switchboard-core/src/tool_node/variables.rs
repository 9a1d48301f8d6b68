//! What one run knows: the values `{{variable}}` references are resolved against.
//!
//! Three sources, highest first: the built-ins (who is asking, in which conversation, when),
//! the values supplied for the run in layers (a conversation's variables, then a request's
//! context, then a proxy body: each later layer wins), and the defaults the node or assistant
//! declares. Built-ins are reserved: a supplied `user.id` never replaces the real one, so a
//! mapping of `{{user.id}}` cannot be spoofed by whoever supplies variables.
//!
//! A declared type is a promise to the tool, so it holds for supplied values too, not only
//! for defaults: [`Variables::lookup_checked`] refuses a value of another type.

use serde_json::{Map, Value};

use super::template::VarPath;
use super::{VariableDecl, VariableType};

/// The names Switchboard fills itself; a variable may not be declared under any of them.
pub const BUILTIN_VARIABLES: &[&str] = &["user.id", "user.name", "conversation.id", "now"];

/// Whether `name` is one of [`BUILTIN_VARIABLES`].
pub fn is_builtin(name: &str) -> bool {
    BUILTIN_VARIABLES.contains(&name)
}

/// The built-in values of one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Builtins {
    pub user_id: String,
    pub user_name: String,
    /// Only set when the run belongs to a conversation.
    pub conversation_id: Option<String>,
    /// RFC 3339, UTC.
    pub now: String,
}

impl Builtins {
    fn get(&self, name: &str) -> Option<Value> {
        let text = match name {
            "user.id" => &self.user_id,
            "user.name" => &self.user_name,
            "conversation.id" => self.conversation_id.as_ref()?,
            "now" => &self.now,
            _ => return None,
        };
        Some(Value::String(text.clone()))
    }
}

/// Every value a run may resolve references against.
#[derive(Debug, Clone, PartialEq)]
pub struct Variables {
    builtins: Builtins,
    /// Supplied values, lowest first.
    layers: Vec<Map<String, Value>>,
    /// Declared defaults, in declaration order (the first declaration of a name wins).
    defaults: Vec<(String, Value)>,
    /// Declared types other than `any`, in declaration order (the first declaration wins).
    types: Vec<(String, VariableType)>,
}

impl Variables {
    pub fn new(builtins: Builtins) -> Self {
        Variables {
            builtins,
            layers: Vec::new(),
            defaults: Vec::new(),
            types: Vec::new(),
        }
    }

    /// Adds supplied values over the ones already given.
    pub fn with_layer(mut self, values: Map<String, Value>) -> Self {
        self.layers.push(values);
        self
    }

    /// Adds declared defaults below every supplied value, and the declared types every value
    /// of those names must have (earlier declarations win).
    pub fn with_declared(mut self, decls: &[VariableDecl]) -> Self {
        for decl in decls {
            if let Some(default) = &decl.default {
                self.defaults.push((decl.name.clone(), default.clone()));
            }
            if !self.types.iter().any(|(name, _)| *name == decl.name) {
                self.types.push((decl.name.clone(), decl.kind));
            }
        }
        self
    }

    /// The type `name` is declared with (`any` when it is not declared).
    pub fn declared_type(&self, name: &str) -> VariableType {
        self.types
            .iter()
            .find(|(declared, _)| declared == name)
            .map_or(VariableType::Any, |(_, kind)| *kind)
    }

    pub fn builtins(&self) -> &Builtins {
        &self.builtins
    }

    /// The value at `path`: a built-in name is answered by the built-ins alone; otherwise the
    /// first source (latest layer first, then defaults) in which the whole path exists.
    pub fn lookup(&self, path: &VarPath) -> Option<Value> {
        if is_builtin(path.as_str()) {
            return self.builtins.get(path.as_str());
        }
        let root = self.root_value(path)?;
        path.walk(root).cloned()
    }

    /// As [`Variables::lookup`], but the value of the path's root must have the type the root
    /// is declared with (the whole value for `{{name}}`; for `{{name.field}}` the object it is
    /// taken from): `Err` is the declared type a value broke.
    pub fn lookup_checked(&self, path: &VarPath) -> Result<Option<Value>, VariableType> {
        if is_builtin(path.as_str()) {
            return Ok(self.builtins.get(path.as_str()));
        }
        let Some(root) = self.root_value(path) else {
            return Ok(None);
        };
        let expected = self.declared_type(path.root());
        if !expected.accepts(root) {
            return Err(expected);
        }
        Ok(path.walk(root).cloned())
    }

    /// The value of the path's root in the first source (latest layer first, then defaults)
    /// in which the whole path exists.
    fn root_value(&self, path: &VarPath) -> Option<&Value> {
        let root = path.root();
        let supplied = self.layers.iter().rev().filter_map(|layer| layer.get(root));
        let defaults = self
            .defaults
            .iter()
            .filter(|(name, _)| name == root)
            .map(|(_, value)| value);
        supplied
            .chain(defaults)
            .find(|value| path.walk(value).is_some())
    }
}
