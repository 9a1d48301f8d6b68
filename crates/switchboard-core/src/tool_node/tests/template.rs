use super::*;

fn render(text: &str, vars: &Value) -> Result<Value, VarPath> {
    render_capped(text, vars).map_err(|e| match e {
        RenderError::Missing(path) => path,
        RenderError::TooLong => panic!("{text} rendered too long"),
    })
}

fn render_capped(text: &str, vars: &Value) -> Result<Value, RenderError> {
    let vars = vars.as_object().unwrap();
    Template::parse(text)
        .unwrap()
        .render(|path| path.walk(vars.get(path.root())?).cloned())
}

#[test]
fn interpolated_text_stops_at_the_cap_and_a_whole_reference_is_not_interpolated() {
    let half = "y".repeat(MAX_RENDERED_BYTES / 2);
    let vars = json!({"half": half, "list": [half]});
    assert_eq!(
        render_capped("{{half}}{{half}}", &vars).map(|v| v.as_str().map(str::len)),
        Ok(Some(MAX_RENDERED_BYTES))
    );
    assert_eq!(
        render_capped("{{half}}{{half}}!", &vars),
        Err(RenderError::TooLong)
    );
    // A value as JSON text counts too (the quotes and brackets make it just too long).
    assert_eq!(
        render_capped("{{list}}{{half}}", &vars),
        Err(RenderError::TooLong)
    );
    assert!(render_capped("{{list}}", &vars).is_ok());
}

#[test]
fn a_whole_reference_keeps_the_json_type() {
    let vars = json!({"n": 3, "flag": true, "obj": {"a": [1, 2]}, "none": null});
    assert_eq!(render("{{n}}", &vars), Ok(json!(3)));
    assert_eq!(render("{{ flag }}", &vars), Ok(json!(true)));
    assert_eq!(render("{{obj}}", &vars), Ok(json!({"a": [1, 2]})));
    assert_eq!(render("{{none}}", &vars), Ok(Value::Null));
}

#[test]
fn a_reference_inside_text_is_interpolated_as_text() {
    let vars = json!({"owner": "rust-lang", "repo": "cargo", "n": 3, "obj": {"a": [1, 2]}});
    assert_eq!(
        render("repos/{{owner}}/{{ repo }}", &vars),
        Ok(json!("repos/rust-lang/cargo"))
    );
    assert_eq!(
        render("Bearer {{owner}}", &vars),
        Ok(json!("Bearer rust-lang"))
    );
    assert_eq!(render("n={{n}}", &vars), Ok(json!("n=3")));
    assert_eq!(render("{{obj}}!", &vars), Ok(json!("{\"a\":[1,2]}!")));
    // Two references with nothing between them are still an interpolation.
    assert_eq!(
        render("{{owner}}{{repo}}", &vars),
        Ok(json!("rust-langcargo"))
    );
    assert_eq!(render(" {{n}}", &vars), Ok(json!(" 3")));
}

#[test]
fn dotted_paths_reach_into_objects_and_arrays() {
    let vars = json!({"user": {"email": "a@b.c", "tags": ["x", "y"]}});
    assert_eq!(render("{{user.email}}", &vars), Ok(json!("a@b.c")));
    assert_eq!(render("{{user.tags.1}}", &vars), Ok(json!("y")));
    assert_eq!(
        render("mailto:{{user.email}}", &vars),
        Ok(json!("mailto:a@b.c"))
    );
    let missing = render("{{user.phone}}", &vars).unwrap_err();
    assert_eq!(missing.as_str(), "user.phone");
    assert_eq!(
        render("{{user.email.deeper}}", &vars).unwrap_err().as_str(),
        "user.email.deeper"
    );
}

#[test]
fn the_first_missing_reference_is_the_error() {
    let vars = json!({"a": 1});
    assert_eq!(
        render("{{a}}-{{b}}-{{c}}", &vars).unwrap_err().as_str(),
        "b"
    );
}

#[test]
fn bad_templates_do_not_parse() {
    use TemplateParseError::*;
    let cases: &[(&str, TemplateParseError)] = &[
        ("{{owner", Unclosed),
        ("a {{b}} {{c", Unclosed),
        ("{{}}", EmptyName),
        ("{{   }}", EmptyName),
        (
            "{{a..b}}",
            MalformedName {
                name: "a..b".into(),
            },
        ),
        ("{{1a}}", MalformedName { name: "1a".into() }),
        ("{{a b}}", MalformedName { name: "a b".into() }),
        ("{{.a}}", MalformedName { name: ".a".into() }),
        ("{{a.}}", MalformedName { name: "a.".into() }),
        ("{{{a}}}", MalformedName { name: "{a".into() }),
        ("{{a$}}", MalformedName { name: "a$".into() }),
        ("no reference", NoReference),
        ("closing only }}", NoReference),
    ];
    for (text, expected) in cases {
        assert_eq!(Template::parse(text).as_ref(), Err(expected), "{text}");
    }
}

#[test]
fn parse_errors_say_how_to_write_it() {
    assert_eq!(
        TemplateParseError::Unclosed.to_string(),
        "a {{ is not closed by }} (text that should contain {{ is written {\"value\": \"...\"})"
    );
    assert_eq!(
        TemplateParseError::EmptyName.to_string(),
        "a {{}} reference has no variable name"
    );
    assert_eq!(
        TemplateParseError::NoReference.to_string(),
        "the text has no {{variable}} reference"
    );
}

#[test]
fn names_follow_the_grammar() {
    for good in ["a", "_a", "A-b_9", "user.email", "a.0", "a.b-c.D_e"] {
        assert!(VarPath::parse(good).is_ok(), "{good}");
    }
    for bad in ["", "-a", "9", "a..b", "a.", ".a", "a b", "é", "a.b c"] {
        assert!(VarPath::parse(bad).is_err(), "{bad:?}");
    }
}

#[test]
fn a_template_keeps_its_source_and_lists_its_references() {
    let t = Template::parse("repos/{{ owner }}/{{repo}}/{{owner}}").unwrap();
    assert_eq!(t.source(), "repos/{{ owner }}/{{repo}}/{{owner}}");
    assert_eq!(t.whole(), None);
    let refs: Vec<&str> = t.references().map(VarPath::as_str).collect();
    assert_eq!(refs, ["owner", "repo", "owner"]);
    let whole = Template::parse("{{ user.id }}").unwrap();
    assert_eq!(whole.whole().map(VarPath::as_str), Some("user.id"));
    // Stray closing braces in the text are text.
    let t = Template::parse("a}} {{b}}").unwrap();
    assert_eq!(t.render(|_| Some(json!("B"))), Ok(json!("a}} B")));
}

#[test]
fn a_variable_template_reads_back_from_its_source() {
    let path = VarPath::parse("a.b").unwrap();
    let t = Template::variable(path.clone());
    assert_eq!(t.source(), "{{a.b}}");
    assert_eq!(Template::parse(t.source()).unwrap(), t);
    assert_eq!(t.whole(), Some(&path));
}
