//! Examples of property 7; the random version is `tests/it/tool_node_property7.rs`.

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

#[test]
fn a_supplied_value_of_another_type_than_declared_fails_naming_variable_and_type() {
    let tool = selected(
        "list_issues",
        &[
            ("limit", mapping("{{limit}}")),
            ("q", mapping("q={{filter.q}}")),
        ],
    );
    let declared = [
        decl("limit", VariableType::Integer, None),
        decl("filter", VariableType::Object, None),
    ];
    let vars = |values: Value| {
        Variables::new(builtins())
            .with_layer(object(values))
            .with_declared(&declared)
    };
    let ok = resolve_arguments(
        &tool,
        Map::new(),
        &vars(json!({"limit": 5, "filter": {"q": "bug"}})),
    )
    .unwrap();
    assert_eq!(
        (ok["limit"].clone(), ok["q"].clone()),
        (json!(5), json!("q=bug"))
    );

    let err = resolve_arguments(
        &tool,
        Map::new(),
        &vars(json!({"limit": "five", "filter": {"q": "bug"}})),
    )
    .unwrap_err();
    assert_eq!(
        err,
        ResolveError::WrongType {
            tool: "list_issues".into(),
            parameter: "limit".into(),
            variable: "limit".into(),
            expected: VariableType::Integer,
        }
    );
    assert_eq!(
        err.to_string(),
        "parameter \"limit\" of tool \"list_issues\" needs the variable {{limit}} to be of type \
         integer, and its value is not"
    );
    // A dotted reference: the root's value is what is checked (an array is not an object,
    // though `filter.0` reaches into it).
    let dotted = selected("list_issues", &[("q", mapping("{{filter.0}}"))]);
    let err =
        resolve_arguments(&dotted, Map::new(), &vars(json!({"filter": ["bug"]}))).unwrap_err();
    assert!(
        matches!(&err, ResolveError::WrongType { variable, expected: VariableType::Object, .. }
            if variable == "filter"),
        "{err:?}"
    );
    // Undeclared and `any` variables take whatever they are given.
    let loose = selected("t", &[("p", mapping("{{free}}"))]);
    let vars = Variables::new(builtins())
        .with_layer(object(json!({"free": [1], "anything": "x"})))
        .with_declared(&[decl("anything", VariableType::Any, None)]);
    assert!(resolve_arguments(&loose, Map::new(), &vars).is_ok());
}

#[test]
fn the_first_declaration_of_a_name_sets_its_type() {
    let vars = Variables::new(builtins())
        .with_declared(&[decl("n", VariableType::String, None)])
        .with_declared(&[decl("n", VariableType::Integer, None)]);
    assert_eq!(vars.declared_type("n"), VariableType::String);
    assert_eq!(vars.declared_type("undeclared"), VariableType::Any);
}

#[test]
fn rendered_text_is_capped_per_parameter() {
    let big = "x".repeat(64 * 1024);
    // 16 copies fit exactly; one more does not.
    let fits = "{{big}}".repeat(16);
    let grows = format!("{fits}{{{{big}}}}");
    let tool = selected("t", &[("small", mapping(&fits)), ("huge", mapping(&grows))]);
    let vars = Variables::new(builtins()).with_layer(object(json!({"big": big})));
    let err = resolve_arguments(&tool, Map::new(), &vars).unwrap_err();
    assert_eq!(
        err,
        ResolveError::TooLong {
            tool: "t".into(),
            parameter: "huge".into(),
        }
    );
    assert_eq!(
        err.to_string(),
        "parameter \"huge\" of tool \"t\" renders to more than 1048576 bytes"
    );
    let only_fits = selected("t", &[("small", mapping(&fits))]);
    let ok = resolve_arguments(&only_fits, Map::new(), &vars).unwrap();
    assert_eq!(ok["small"].as_str().map(str::len), Some(MAX_RENDERED_BYTES));
}
