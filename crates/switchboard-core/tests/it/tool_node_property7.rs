//! Seed 002 property 7 ("variable references are validated against the workflow's context,
//! and resolved to their values before the tool is called") for random tool schemas, random
//! mappings and random variable sets.
//!
//! Each case is built from parts, so the expected answer is computed from the parts by a
//! small model written here (not by the code under test): which parameters the schema has,
//! which variables are declared, the values supplied, and the pieces each template was
//! assembled from.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use switchboard_core::{
    BUILTIN_VARIABLES, Builtins, Mapping, NodeCheckError, ResolveError, SelectedTool, ServerId,
    ToolInfo, ToolNode, VariableDecl, VariableType, Variables, check_node, hide_mapped,
    resolve_arguments,
};

/// Parameters a schema may have; mappings may also name `q6`/`q7`, which no schema has.
const PARAMS: &[&str] = &["p0", "p1", "p2", "p3", "p4", "p5"];
const MAPPABLE: &[&str] = &["p0", "p1", "p2", "p3", "p4", "p5", "q6", "q7"];
/// Roots a reference may start from: the node's, the assistant's, never-declared ones, and
/// `user` (which supplied values try to spoof).
const NODE_VARS: &[&str] = &["v0", "v1", "v2"];
const OUTER_VARS: &[&str] = &["a0", "a1"];
const ROOTS: &[&str] = &["v0", "v1", "v2", "a0", "a1", "u0", "user"];

/// One reference as a template writes it, e.g. `v1` or `a0.x`.
#[derive(Debug, Clone)]
struct Ref(String);

impl Ref {
    fn root(&self) -> &str {
        self.0.split('.').next().unwrap_or_default()
    }
}

#[derive(Debug, Clone)]
enum MappingCase {
    Literal(Value),
    Whole(Ref, &'static str),
    /// Text, then (reference, text) pairs.
    Interpolated(String, Vec<(Ref, String)>),
}

impl MappingCase {
    fn source(&self) -> Value {
        match self {
            MappingCase::Literal(v) => Mapping::Literal(v.clone()).to_json(),
            MappingCase::Whole(r, pad) => Value::String(format!("{{{{{pad}{}{pad}}}}}", r.0)),
            MappingCase::Interpolated(head, rest) => {
                let mut s = head.clone();
                for (r, text) in rest {
                    s.push_str(&format!("{{{{{}}}}}{text}", r.0));
                }
                Value::String(s)
            }
        }
    }

    fn refs(&self) -> Vec<&Ref> {
        match self {
            MappingCase::Literal(_) => Vec::new(),
            MappingCase::Whole(r, _) => vec![r],
            MappingCase::Interpolated(_, rest) => rest.iter().map(|(r, _)| r).collect(),
        }
    }
}

#[derive(Debug, Clone)]
struct Case {
    /// Parameter → JSON type, and which are required.
    properties: BTreeMap<String, &'static str>,
    required: Vec<String>,
    node_vars: Vec<VariableDecl>,
    outer_vars: Vec<VariableDecl>,
    mappings: BTreeMap<String, MappingCase>,
    supplied: Map<String, Value>,
    arguments: Map<String, Value>,
    in_conversation: bool,
}

fn json_type() -> impl Strategy<Value = &'static str> {
    prop::sample::select(&["string", "number", "integer", "boolean", "object", "array"][..])
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(Value::from),
        "[a-z {}]{0,6}".prop_map(Value::String),
    ]
}

/// A value a variable may hold: sometimes an object with `x`/`y`, for dotted references.
fn var_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        leaf(),
        prop::collection::btree_map(prop::sample::select(&["x", "y"][..]), leaf(), 0..3)
            .prop_map(|m| Value::Object(m.into_iter().map(|(k, v)| (k.to_owned(), v)).collect())),
    ]
}

fn decls(names: &'static [&'static str]) -> impl Strategy<Value = Vec<VariableDecl>> {
    // Defaults need not fit the type: the type is enforced at call time, on every value.
    let kind = prop::sample::select(
        &[
            VariableType::Any,
            VariableType::Any,
            VariableType::Object,
            VariableType::String,
            VariableType::Integer,
        ][..],
    );
    prop::collection::btree_map(
        prop::sample::select(names),
        (prop::option::of(var_value()), kind),
        0..=names.len(),
    )
    .prop_map(|m| {
        m.into_iter()
            .map(|(name, (default, kind))| VariableDecl {
                name: name.to_owned(),
                kind,
                default,
                description: None,
            })
            .collect()
    })
}

fn reference() -> impl Strategy<Value = Ref> {
    prop_oneof![
        3 => (prop::sample::select(ROOTS), prop::option::of(prop::sample::select(&["x", "y"][..])))
            .prop_map(|(root, field)| Ref(match field {
                Some(f) => format!("{root}.{f}"),
                None => root.to_owned(),
            })),
        1 => prop::sample::select(BUILTIN_VARIABLES).prop_map(|b| Ref(b.to_owned())),
    ]
}

fn text() -> impl Strategy<Value = String> {
    "[a-z /:#-]{0,4}"
}

fn mapping_case() -> impl Strategy<Value = MappingCase> {
    prop_oneof![
        leaf().prop_map(MappingCase::Literal),
        (reference(), prop::sample::select(&["", " "][..]))
            .prop_map(|(r, pad)| MappingCase::Whole(r, pad)),
        (text(), prop::collection::vec((reference(), text()), 1..3))
            // `{{r}}` alone is a whole reference; keep interpolations interpolations.
            .prop_filter("not a whole reference", |(head, rest)| {
                !(head.is_empty() && rest.len() == 1 && rest[0].1.is_empty())
            })
            .prop_map(|(head, rest)| MappingCase::Interpolated(head, rest)),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    let properties = prop::collection::btree_map(prop::sample::select(PARAMS), json_type(), 0..6);
    (
        properties,
        any::<u64>(),
        decls(NODE_VARS),
        decls(OUTER_VARS),
        prop::collection::btree_map(prop::sample::select(MAPPABLE), mapping_case(), 0..5),
        prop::collection::btree_map(prop::sample::select(ROOTS), var_value(), 0..5),
        prop::collection::btree_map(prop::sample::select(MAPPABLE), leaf(), 0..4),
        any::<bool>(),
    )
        .prop_map(
            |(props, bits, node_vars, outer_vars, mappings, supplied, arguments, in_conv)| Case {
                required: props
                    .keys()
                    .enumerate()
                    .filter(|(i, _)| bits & (1 << i) != 0)
                    .map(|(_, k)| (*k).to_owned())
                    .collect(),
                properties: props.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
                node_vars,
                outer_vars,
                mappings: mappings
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect(),
                supplied: supplied
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect(),
                arguments: arguments
                    .into_iter()
                    .map(|(k, v)| (k.to_owned(), v))
                    .collect(),
                in_conversation: in_conv,
            },
        )
}

impl Case {
    fn schema(&self) -> Map<String, Value> {
        let properties: Map<String, Value> = self
            .properties
            .iter()
            .map(|(name, kind)| (name.clone(), json!({"type": kind})))
            .collect();
        let Value::Object(schema) = json!({
            "type": "object",
            "properties": properties,
            "required": self.required,
            "additionalProperties": false,
        }) else {
            unreachable!()
        };
        schema
    }

    fn tool_info(&self) -> ToolInfo {
        ToolInfo {
            server_id: ServerId("s".into()),
            name: "t".into(),
            title: None,
            description: None,
            input_schema: self.schema(),
            output_schema: None,
            annotations: Default::default(),
            icons: Vec::new(),
            meta: None,
            tasks: None,
        }
    }

    /// The mappings as a person would send them in JSON, read through serde.
    fn selected(&self) -> SelectedTool {
        let mappings: Map<String, Value> = self
            .mappings
            .iter()
            .map(|(p, m)| (p.clone(), m.source()))
            .collect();
        serde_json::from_value(json!({"name": "t", "parameterMappings": mappings}))
            .expect("every generated mapping parses")
    }

    fn node(&self) -> ToolNode {
        ToolNode {
            name: "n".into(),
            server_id: ServerId("s".into()),
            selected_tools: vec![self.selected()],
            retry_on_error: false,
            max_retries: 3,
            timeout: None,
            variables: self.node_vars.clone(),
            assistant_id: None,
        }
    }

    fn builtins(&self) -> Builtins {
        Builtins {
            user_id: "u-1".into(),
            user_name: "ada".into(),
            conversation_id: self.in_conversation.then(|| "c-1".to_owned()),
            now: "2026-01-01T00:00:00Z".into(),
        }
    }

    fn variables(&self) -> Variables {
        Variables::new(self.builtins())
            .with_declared(&self.node_vars)
            .with_layer(self.supplied.clone())
    }

    /// The model's answer for a reference being known at save.
    fn declared(&self, r: &Ref) -> bool {
        BUILTIN_VARIABLES.contains(&r.0.as_str())
            || self
                .node_vars
                .iter()
                .chain(&self.outer_vars)
                .any(|d| d.name == r.root())
    }

    /// The model's value for a reference at execution.
    fn value(&self, r: &Ref) -> Option<Value> {
        let b = self.builtins();
        match r.0.as_str() {
            "user.id" => return Some(json!(b.user_id)),
            "user.name" => return Some(json!(b.user_name)),
            "conversation.id" => return b.conversation_id.map(Value::String),
            "now" => return Some(json!(b.now)),
            _ => {}
        }
        let field = r.0.split('.').nth(1);
        let pick = |v: &Value| match field {
            None => Some(v.clone()),
            Some(f) => v.as_object().and_then(|o| o.get(f)).cloned(),
        };
        let supplied = self.supplied.get(r.root()).and_then(pick);
        let default = || {
            self.node_vars
                .iter()
                .find(|d| d.name == r.root())
                .and_then(|d| d.default.as_ref())
                .and_then(pick)
        };
        supplied.or_else(default)
    }

    /// The model's type check for a reference at execution: the declared type (other than
    /// `any`) that the root value the reference is taken from breaks.
    fn type_error(&self, r: &Ref) -> Option<VariableType> {
        if BUILTIN_VARIABLES.contains(&r.0.as_str()) {
            return None;
        }
        let field = r.0.split('.').nth(1);
        let reaches = |v: &&Value| match field {
            None => true,
            Some(f) => v.as_object().is_some_and(|o| o.contains_key(f)),
        };
        let decl = self.node_vars.iter().find(|d| d.name == r.root());
        let root = self
            .supplied
            .get(r.root())
            .filter(reaches)
            .or_else(|| decl.and_then(|d| d.default.as_ref()).filter(reaches))?;
        let kind = decl?.kind;
        (!kind.accepts(root)).then_some(kind)
    }

    /// Whether some reference of `m` breaks its variable's declared type.
    fn wrong_type(&self, m: &MappingCase) -> bool {
        m.refs().iter().any(|r| self.type_error(r).is_some())
    }

    fn as_text(value: Value) -> String {
        match value {
            Value::String(s) => s,
            other => other.to_string(),
        }
    }

    /// What the model says a mapping resolves to, or the first reference with no value.
    fn expected(&self, m: &MappingCase) -> Result<Value, String> {
        let value = |r: &Ref| self.value(r).ok_or_else(|| r.0.clone());
        match m {
            MappingCase::Literal(v) => Ok(v.clone()),
            MappingCase::Whole(r, _) => value(r),
            MappingCase::Interpolated(head, rest) => {
                let mut s = head.clone();
                for (r, text) in rest {
                    s.push_str(&Self::as_text(value(r)?));
                    s.push_str(text);
                }
                Ok(Value::String(s))
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// At save: accepted exactly when every mapped parameter is in the schema and every
    /// reference is a built-in or declared (by the node or its assistant); a refusal names a
    /// mapping and variable that really are at fault.
    #[test]
    fn check_node_accepts_exactly_the_sound_nodes(case in case()) {
        let bad_parameter = |p: &String| !case.properties.contains_key(p);
        let bad_ref = |m: &MappingCase| m.refs().into_iter().any(|r| !case.declared(r));
        let sound = case
            .mappings
            .iter()
            .all(|(p, m)| !bad_parameter(p) && !bad_ref(m));
        let result = check_node(&case.node(), &[case.tool_info()], &case.outer_vars);
        prop_assert_eq!(result.is_ok(), sound, "{:?}", result);
        match result {
            Ok(()) => {}
            Err(NodeCheckError::UnknownParameter { index, tool, parameter }) => {
                prop_assert_eq!(index, 0);
                prop_assert_eq!(tool, "t");
                prop_assert!(bad_parameter(&parameter));
            }
            Err(NodeCheckError::UnknownVariable { index, tool, parameter, variable }) => {
                prop_assert_eq!(index, 0);
                prop_assert_eq!(tool, "t");
                prop_assert!(!bad_parameter(&parameter));
                let m = &case.mappings[&parameter];
                prop_assert!(m.refs().iter().any(|r| r.0 == variable && !case.declared(r)));
            }
            Err(other) => prop_assert!(false, "unexpected {other:?}"),
        }
    }

    /// At execution: either every mapped parameter is filled (a whole reference with the
    /// variable's JSON value, an interpolation as text, a literal as itself), over whatever
    /// was supplied, and other arguments are kept; or the call fails naming a variable, of
    /// that parameter's mapping, that has no value and no default, or whose value (the root
    /// it is taken from) breaks the type the variable is declared with.
    #[test]
    fn resolve_arguments_fills_every_mapping_or_names_the_missing_variable(case in case()) {
        let result = resolve_arguments(&case.selected(), case.arguments.clone(), &case.variables());
        let expected: BTreeMap<&String, Result<Value, String>> = case
            .mappings
            .iter()
            .map(|(p, m)| (p, case.expected(m)))
            .collect();
        let all_resolve = expected.values().all(Result::is_ok)
            && !case.mappings.values().any(|m| case.wrong_type(m));
        match result {
            Ok(resolved) => {
                prop_assert!(all_resolve, "resolved despite a missing variable: {:?}", expected);
                for (parameter, value) in &expected {
                    prop_assert_eq!(Some(value.as_ref().unwrap()), resolved.get(*parameter));
                }
                for (name, value) in &case.arguments {
                    if !case.mappings.contains_key(name) {
                        prop_assert_eq!(Some(value), resolved.get(name));
                    }
                }
                let expected_keys: BTreeSet<&String> =
                    case.arguments.keys().chain(case.mappings.keys()).collect();
                prop_assert_eq!(resolved.keys().collect::<BTreeSet<_>>(), expected_keys);
            }
            Err(ResolveError::MissingVariable { tool, parameter, variable }) => {
                prop_assert!(!all_resolve);
                prop_assert_eq!(tool, "t");
                let m = &case.mappings[&parameter];
                prop_assert!(!case.wrong_type(m));
                prop_assert!(m.refs().iter().any(|r| r.0 == variable && case.value(r).is_none()));
            }
            Err(ResolveError::WrongType { tool, parameter, variable, expected }) => {
                prop_assert_eq!(tool, "t");
                let m = &case.mappings[&parameter];
                prop_assert!(m
                    .refs()
                    .iter()
                    .any(|r| r.root() == variable && case.type_error(r) == Some(expected)));
            }
            Err(other) => prop_assert!(false, "unexpected {other:?}"),
        }
    }

    /// The model's schema: no mapped parameter in `properties` or `required`, every other
    /// one kept, in order, and nothing else changed.
    #[test]
    fn hide_mapped_hides_exactly_the_mapped_parameters(case in case()) {
        let schema = case.schema();
        let hidden = hide_mapped(&schema, &case.selected());
        let mapped = |p: &str| case.mappings.contains_key(p);
        let properties = hidden["properties"].as_object().unwrap();
        let kept: Vec<&String> = case.properties.keys().filter(|p| !mapped(p)).collect();
        prop_assert_eq!(properties.keys().collect::<Vec<_>>(), kept);
        for (name, schema) in properties {
            prop_assert_eq!(schema, &json!({"type": case.properties[name]}));
        }
        let required: Vec<&str> = hidden["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let kept_required: Vec<&str> =
            case.required.iter().map(String::as_str).filter(|p| !mapped(p)).collect();
        prop_assert_eq!(required, kept_required);
        prop_assert_eq!(hidden.len(), schema.len());
        prop_assert_eq!(&hidden["type"], &schema["type"]);
        prop_assert_eq!(&hidden["additionalProperties"], &schema["additionalProperties"]);
    }
}
