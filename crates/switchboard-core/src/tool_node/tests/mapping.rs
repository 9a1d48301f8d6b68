use proptest::prelude::*;

use super::*;

fn read(value: Value) -> Mapping {
    serde_json::from_value(value).unwrap()
}

fn literal(value: Value) -> Mapping {
    Mapping::Literal(value)
}

#[test]
fn every_json_form_reads_as_the_docs_say() {
    assert_eq!(read(json!("metric")), literal(json!("metric")));
    assert_eq!(read(json!(5)), literal(json!(5)));
    assert_eq!(read(json!(null)), literal(Value::Null));
    assert_eq!(read(json!([1, "{{a}}"])), literal(json!([1, "{{a}}"])));
    assert_eq!(
        read(json!({"a": 1, "b": 2})),
        literal(json!({"a": 1, "b": 2}))
    );
    assert_eq!(
        read(json!({"variable": "a", "x": 1})),
        literal(json!({"variable": "a", "x": 1}))
    );
    assert_eq!(read(json!("{{city}}")), mapping("{{city}}"));
    assert_eq!(read(json!("Bearer {{token}}")), mapping("Bearer {{token}}"));
    assert_eq!(
        read(json!({"variable": "user.email"})),
        Mapping::Template(Template::parse("{{user.email}}").unwrap())
    );
    assert_eq!(
        read(json!({"value": "{{not a ref"})),
        literal(json!("{{not a ref"))
    );
    assert_eq!(
        read(json!({"value": {"variable": "x"}})),
        literal(json!({"variable": "x"}))
    );
    assert_eq!(
        read(json!({"value": {"value": 1}})),
        literal(json!({"value": 1}))
    );
}

#[test]
fn bad_templates_and_bad_references_are_refused() {
    for bad in [
        json!("{{unclosed"),
        json!("{{}}"),
        json!("a {{b c}}"),
        json!({"variable": "a..b"}),
        json!({"variable": ""}),
        json!({"variable": 5}),
    ] {
        assert!(
            serde_json::from_value::<Mapping>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn the_forms_stored_before_tool_nodes_read_back() {
    // What `ParamMapping` (externally tagged, snake_case) wrote into `selected_tools`.
    let stored = json!({
        "name": "forecast",
        "enabled": true,
        "parameterMappings": {
            "city": {"variable": "city"},
            "units": {"value": "metric"},
            "scale": {"value": 2.5},
            "extra": {"value": {"nested": true}}
        }
    });
    let tool: SelectedTool = serde_json::from_value(stored).unwrap();
    let m = &tool.parameter_mappings;
    assert_eq!(m["city"], mapping("{{city}}"));
    assert_eq!(m["units"], literal(json!("metric")));
    assert_eq!(m["scale"], literal(json!(2.5)));
    assert_eq!(m["extra"], literal(json!({"nested": true})));
    // Written back in the shortest forms.
    assert_eq!(
        serde_json::to_value(&tool).unwrap()["parameterMappings"],
        json!({
            "city": "{{city}}",
            "units": "metric",
            "scale": 2.5,
            "extra": {"nested": true}
        })
    );
}

#[test]
fn writing_uses_the_shortest_form_that_reads_back() {
    let cases = [
        (literal(json!("metric")), json!("metric")),
        (literal(json!(7)), json!(7)),
        (literal(json!("a {{b}}")), json!({"value": "a {{b}}"})),
        (literal(json!("{{")), json!({"value": "{{"})),
        (
            literal(json!({"variable": "x"})),
            json!({"value": {"variable": "x"}}),
        ),
        (literal(json!({"value": 1})), json!({"value": {"value": 1}})),
        (literal(json!({"other": 1})), json!({"other": 1})),
        (mapping("{{ a.b }}"), json!("{{ a.b }}")),
        (mapping("x/{{a}}"), json!("x/{{a}}")),
    ];
    for (m, json) in cases {
        assert_eq!(serde_json::to_value(&m).unwrap(), json, "{m:?}");
        assert_eq!(read(json), m);
    }
}

#[test]
fn from_text_reads_a_form_field() {
    assert_eq!(
        Mapping::from_text("Paris").unwrap(),
        literal(json!("Paris"))
    );
    assert_eq!(
        Mapping::from_text("{{ city }}")
            .unwrap()
            .references()
            .map(VarPath::as_str)
            .collect::<Vec<_>>(),
        ["city"]
    );
    assert_eq!(
        Mapping::from_text("{{}}"),
        Err(TemplateParseError::EmptyName)
    );
}

fn json_value() -> impl Strategy<Value = Value> {
    let text = "[a-z{}. ]{0,8}";
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        text.prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            // Keys include the two wrapper names, so single-key lookalikes come up.
            prop::collection::btree_map(
                prop_oneof![
                    Just("value".to_owned()),
                    Just("variable".to_owned()),
                    text.boxed()
                ],
                inner,
                0..3
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    /// Any literal, however much it looks like a template or a wrapper, comes back itself.
    #[test]
    fn every_literal_round_trips(value in json_value()) {
        let m = Mapping::Literal(value);
        let text = serde_json::to_string(&m).unwrap();
        prop_assert_eq!(serde_json::from_str::<Mapping>(&text).unwrap(), m);
    }

    /// Any template comes back itself, with its source exactly as written.
    #[test]
    fn every_template_round_trips(
        parts in prop::collection::vec(("[a-z /:}-]{0,4}", "[a-z_][a-z0-9_-]{0,3}(\\.[a-z0-9]{1,3}){0,2}", " ?"), 1..4),
        tail in "[a-z /:}-]{0,4}",
    ) {
        let mut source = String::new();
        for (text, name, pad) in &parts {
            source.push_str(&format!("{text}{{{{{pad}{name}{pad}}}}}"));
        }
        source.push_str(&tail);
        let m = Mapping::from_text(&source).unwrap();
        prop_assert!(matches!(m, Mapping::Template(_)));
        let json = serde_json::to_value(&m).unwrap();
        prop_assert_eq!(&json, &Value::String(source));
        prop_assert_eq!(read(json), m);
    }
}
