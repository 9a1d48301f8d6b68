use std::time::Duration;

use super::*;
use crate::spec::SpecError;

fn field(n: &ToolNode) -> Option<String> {
    n.validate().err().map(|e| e.field().to_owned())
}

#[test]
fn a_good_node_is_valid() {
    let mut n = node(vec![selected("a", &[]), selected("b", &[])]);
    n.variables = vec![
        decl("owner", VariableType::String, Some(json!("x"))),
        decl("n", VariableType::Integer, Some(json!(3))),
        decl("any", VariableType::Any, Some(json!({"a": 1}))),
    ];
    n.max_retries = MAX_RETRIES;
    n.timeout = Some(Duration::from_millis(1));
    assert_eq!(n.validate(), Ok(()));
}

#[test]
fn each_rule_names_its_field() {
    let base = node(vec![selected("a", &[])]);
    let with = |edit: &dyn Fn(&mut ToolNode)| {
        let mut n = base.clone();
        edit(&mut n);
        n
    };
    let cases: Vec<(ToolNode, &str)> = vec![
        (with(&|n| n.name = "  ".into()), "name"),
        (with(&|n| n.server_id = ServerId(String::new())), "serverId"),
        (
            with(&|n| n.selected_tools.push(selected("", &[]))),
            "selectedTools[1].name",
        ),
        (
            with(&|n| n.selected_tools.push(selected("a", &[]))),
            "selectedTools[1].name",
        ),
        (with(&|n| n.max_retries = MAX_RETRIES + 1), "maxRetries"),
        (with(&|n| n.timeout = Some(Duration::ZERO)), "timeoutMs"),
        (
            with(&|n| n.timeout = Some(Duration::from_secs(86_401))),
            "timeoutMs",
        ),
        (
            with(&|n| n.timeout = Some(Duration::from_micros(1500))),
            "timeoutMs",
        ),
        (
            with(&|n| n.variables = vec![decl("a.b", VariableType::Any, None)]),
            "variables[0].name",
        ),
        (
            with(&|n| n.variables = vec![decl("", VariableType::Any, None)]),
            "variables[0].name",
        ),
        (
            with(&|n| n.variables = vec![decl("9lives", VariableType::Any, None)]),
            "variables[0].name",
        ),
        (
            with(&|n| n.variables = vec![decl("now", VariableType::Any, None)]),
            "variables[0].name",
        ),
        (
            with(&|n| {
                n.variables = vec![
                    decl("x", VariableType::Any, None),
                    decl("x", VariableType::String, None),
                ]
            }),
            "variables[1].name",
        ),
        (
            with(&|n| n.variables = vec![decl("x", VariableType::Integer, Some(json!(1.5)))]),
            "variables[0].default",
        ),
        (
            with(&|n| n.variables = vec![decl("x", VariableType::String, Some(json!(1)))]),
            "variables[0].default",
        ),
    ];
    for (n, expected) in cases {
        assert_eq!(field(&n).as_deref(), Some(expected), "{n:?}");
    }
}

#[test]
fn the_errors_say_what_is_wrong() {
    let mut n = node(vec![selected("a", &[]), selected("a", &[])]);
    assert_eq!(
        n.validate(),
        Err(SpecError::Duplicate {
            field: "selectedTools[1].name".into(),
            name: "a".into()
        })
    );
    n.selected_tools.pop();
    n.max_retries = 11;
    assert_eq!(
        n.validate().unwrap_err().to_string(),
        "maxRetries must be at most 10"
    );
    n.max_retries = 0;
    n.variables = vec![decl("now", VariableType::Any, None)];
    assert_eq!(
        n.validate().unwrap_err().to_string(),
        "variables[0].name: \"now\" is a built-in variable and cannot be declared"
    );
    n.variables = vec![decl("x", VariableType::Boolean, Some(json!("yes")))];
    assert_eq!(
        n.validate().unwrap_err().to_string(),
        "variables[0].default must be a value of type boolean"
    );
}

#[test]
fn an_assistants_variables_follow_the_same_rules() {
    assert_eq!(validate_variables(&[]), Ok(()));
    let err = validate_variables(&[decl("a b", VariableType::Any, None)]).unwrap_err();
    assert_eq!(err.field(), "variables[0].name");
    assert!(is_variable_name("owner_2-x"));
    assert!(!is_variable_name("user.id"));
}
