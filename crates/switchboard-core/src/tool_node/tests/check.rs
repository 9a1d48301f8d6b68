//! Examples of property 7; the random version is `tests/tool_node_property7.rs`.

use super::*;

#[test]
fn a_node_whose_references_are_known_passes() {
    let mut n = node(vec![selected(
        "list_issues",
        &[
            ("owner", mapping("{{user.name}}")),
            ("repo", mapping("{{repo}}")),
            ("path", mapping("repos/{{ org.login }}/{{repo}} at {{now}}")),
            ("limit", Mapping::Literal(json!(5))),
        ],
    )]);
    n.variables = vec![decl("repo", VariableType::String, None)];
    let outer = [decl("org", VariableType::Object, None)];
    assert_eq!(check_node(&n, &[issues_tool()], &outer), Ok(()));
    // Without the assistant's declaration `org` is unknown.
    let err = check_node(&n, &[issues_tool()], &[]).unwrap_err();
    assert_eq!(
        err,
        NodeCheckError::UnknownVariable {
            index: 0,
            tool: "list_issues".into(),
            parameter: "path".into(),
            variable: "org.login".into(),
        }
    );
    assert_eq!(err.field(), "selectedTools[0].parameterMappings.path");
    assert_eq!(err.tool(), "list_issues");
    assert_eq!(err.variable(), Some("org.login"));
    assert_eq!(
        err.to_string(),
        "selectedTools[0].parameterMappings.path: {{org.login}} is not a built-in variable \
         nor one that is declared"
    );
}

#[test]
fn an_unknown_tool_or_parameter_is_named() {
    let n = node(vec![
        selected("list_issues", &[]),
        selected("gone", &[("x", Mapping::Literal(json!(1)))]),
    ]);
    let err = check_node(&n, &[issues_tool()], &[]).unwrap_err();
    assert_eq!(err.field(), "selectedTools[1].name");
    assert_eq!(err.variable(), None);

    let n = node(vec![selected(
        "list_issues",
        &[("own", Mapping::Literal(json!("x")))],
    )]);
    let err = check_node(&n, &[issues_tool()], &[]).unwrap_err();
    assert_eq!(
        err,
        NodeCheckError::UnknownParameter {
            index: 0,
            tool: "list_issues".into(),
            parameter: "own".into()
        }
    );
    assert_eq!(err.field(), "selectedTools[0].parameterMappings.own");
}

#[test]
fn a_schema_without_properties_takes_no_mappings() {
    let bare = tool("ping", json!({"type": "object"}));
    let n = node(vec![selected("ping", &[])]);
    assert_eq!(check_node(&n, std::slice::from_ref(&bare), &[]), Ok(()));
    let n = node(vec![selected("ping", &[("x", Mapping::Literal(json!(1)))])]);
    assert!(check_node(&n, &[bare], &[]).is_err());
}

#[test]
fn resolving_fills_mapped_parameters_over_supplied_ones() {
    let tool = selected(
        "list_issues",
        &[
            ("owner", mapping("{{user.name}}")),
            ("repo", mapping("{{repo}}")),
            ("path", mapping("repos/{{user.name}}/{{repo}}#{{n}}")),
            ("limit", mapping("{{n}}")),
            ("state", Mapping::Literal(json!("open"))),
        ],
    );
    let vars = Variables::new(builtins())
        .with_declared(&[decl("n", VariableType::Integer, Some(json!(20)))])
        .with_layer(object(json!({"repo": "cargo"})));
    let arguments = object(json!({"owner": "model-chose-this", "state": "closed", "q": "bug"}));
    let resolved = resolve_arguments(&tool, arguments, &vars).unwrap();
    assert_eq!(
        Value::Object(resolved),
        json!({
            "owner": "ada",
            "repo": "cargo",
            "path": "repos/ada/cargo#20",
            "limit": 20,
            "state": "open",
            "q": "bug"
        })
    );
}

#[test]
fn a_variable_without_value_or_default_fails_by_name() {
    let tool = selected("list_issues", &[("repo", mapping("x/{{repo}}"))]);
    let vars = Variables::new(builtins()).with_declared(&[decl("repo", VariableType::Any, None)]);
    let err = resolve_arguments(&tool, Map::new(), &vars).unwrap_err();
    assert_eq!(
        err,
        ResolveError::MissingVariable {
            tool: "list_issues".into(),
            parameter: "repo".into(),
            variable: "repo".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "parameter \"repo\" of tool \"list_issues\" needs the variable {{repo}}, which has no \
         value and no default"
    );
}

#[test]
fn hiding_takes_mapped_parameters_out_of_the_schema_only() {
    let tool_info = issues_tool();
    let sel = selected(
        "list_issues",
        &[
            ("owner", mapping("{{user.name}}")),
            ("state", Mapping::Literal(json!("open"))),
        ],
    );
    let hidden = hide_mapped(&tool_info.input_schema, &sel);
    assert_eq!(
        Value::Object(hidden),
        json!({
            "type": "object",
            "properties": {
                "repo": {"type": "string"},
                "path": {"type": "string"},
                "limit": {"type": "integer"}
            },
            "required": ["repo", "limit"]
        })
    );
    // No mappings: the schema as it was.
    let plain = selected("list_issues", &[]);
    assert_eq!(
        hide_mapped(&tool_info.input_schema, &plain),
        tool_info.input_schema
    );
}
