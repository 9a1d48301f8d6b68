//! Seed 002 property 6: any valid server spec and tool node, saved and loaded, is equal to
//! what was saved (and reads for display equal its masked form). On SQLite always, on
//! Postgres when `SWITCHBOARD_TEST_POSTGRES` is set.

// Test code: a failed unwrap is a failed test, which is what it should be.
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::Value;
use switchboard_core::{
    Auth, Mapping, OwnerId, SelectedTool, ServerId, ServerSpec, TasksPolicy, Template, ToolNode,
    TransportKind, VariableDecl, VariableType,
};

use common::TestDb;

fn text() -> impl Strategy<Value = String> {
    // Any Unicode but NUL, which no process or header can carry.
    "[^\u{0}]{0,12}"
}

fn header_value() -> impl Strategy<Value = String> {
    "[ -~\t]{0,16}"
}

fn name_set() -> impl Strategy<Value = BTreeSet<String>> {
    prop::collection::btree_set(text(), 0..4)
}

fn auth() -> impl Strategy<Value = Auth> {
    prop_oneof![
        Just(Auth::None),
        ("X-[A-Za-z]{1,8}", "[!-~]{1,20}").prop_map(|(header, key)| Auth::ApiKey { header, key }),
        "[!-~]{1,20}".prop_map(|token| Auth::Bearer { token }),
    ]
}

fn spec() -> impl Strategy<Value = ServerSpec> {
    let process = (
        "[a-z/][a-z0-9/._-]{0,15}",
        prop::collection::vec(text(), 0..4),
        prop::collection::btree_map("[A-Z_][A-Z0-9_]{0,8}", text(), 0..4),
        prop::option::of("/[a-z]{1,8}"),
    );
    let remote = (
        prop_oneof![
            Just(TransportKind::StreamableHttp),
            Just(TransportKind::Sse)
        ],
        "https://[a-z]{1,8}\\.example/[a-z]{0,6}",
        prop::collection::btree_map("X-[A-Za-z-]{1,8}", header_value(), 0..3),
        auth(),
    );
    (
        "[A-Za-z][A-Za-z0-9 ._-]{0,20}",
        prop::option::of(prop_oneof![Just(None), Just(Some(()))]).prop_map(|o| o.flatten()),
        process,
        remote,
        prop::option::of(1u64..86_400_000),
        any::<bool>(),
        name_set(),
        name_set(),
        any::<prop::sample::Index>(),
        prop::option::of("[a-z0-9][a-z0-9_-]{0,12}"),
        prop::option::of(prop_oneof![
            Just(TasksPolicy::Auto),
            Just(TasksPolicy::Always),
            Just(TasksPolicy::Never),
        ]),
    )
        .prop_map(
            |(
                name,
                use_stdio,
                process,
                remote,
                timeout,
                enabled,
                disabled,
                auto,
                secret_pick,
                node,
                tasks,
            )| {
                let mut spec = if use_stdio.is_some() {
                    let (command, args, env, cwd) = process;
                    let mut spec = ServerSpec::stdio(name, command, args);
                    spec.env = env;
                    // Mark some env values secret.
                    let keys: Vec<String> = spec.env.keys().cloned().collect();
                    if !keys.is_empty() {
                        spec.secret_env.insert(secret_pick.get(&keys).clone());
                    }
                    spec.cwd = cwd.map(PathBuf::from);
                    spec
                } else {
                    let (transport, url, headers, auth) = remote;
                    let mut spec = ServerSpec::http(name, url, Some(transport));
                    spec.headers = headers;
                    spec.auth = auth;
                    spec
                };
                spec.timeout = timeout.map(Duration::from_millis);
                spec.enabled = enabled;
                spec.disabled_tools = disabled;
                spec.auto_approved_tools = auto;
                spec.node = node;
                spec.tasks = tasks;
                spec
            },
        )
        .prop_filter("valid specs only", |spec| spec.validate().is_ok())
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        text().prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(text(), inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn variable_type() -> impl Strategy<Value = VariableType> {
    prop_oneof![
        Just(VariableType::String),
        Just(VariableType::Number),
        Just(VariableType::Integer),
        Just(VariableType::Boolean),
        Just(VariableType::Object),
        Just(VariableType::Array),
        Just(VariableType::Any),
    ]
}

fn variables() -> impl Strategy<Value = Vec<VariableDecl>> {
    // Distinct names, none of them a built-in (`now` is the only one these could spell), each
    // default of its declared type.
    let typed = prop_oneof![
        variable_type().prop_map(|kind| (kind, None)),
        prop::option::of(json_value()).prop_map(|default| (VariableType::Any, default)),
        text().prop_map(|t| (VariableType::String, Some(Value::String(t)))),
        any::<i32>().prop_map(|n| (VariableType::Integer, Some(Value::from(n)))),
    ];
    let decl = (typed, prop::option::of(text()));
    prop::collection::btree_map("[a-z][a-z0-9_]{0,6}", decl, 0..4).prop_map(|decls| {
        decls
            .into_iter()
            .filter(|(name, _)| name != "now")
            .map(|(name, ((kind, default), description))| VariableDecl {
                name,
                kind,
                default,
                description,
            })
            .collect()
    })
}

fn node() -> impl Strategy<Value = ToolNode> {
    // A whole-value template, or one inside text (with a dotted path), or any literal: strings
    // holding `{{` and objects shaped like a mapping come back as literals too.
    let path = "[a-z_][a-z0-9_]{0,5}(\\.[a-z0-9_]{1,4}){0,2}";
    let mapping = prop_oneof![
        json_value().prop_map(Mapping::Literal),
        path.prop_map(|p| Mapping::Template(Template::parse(&format!("{{{{{p}}}}}")).unwrap())),
        ("[a-z /]{0,6}", path, "[a-z /]{0,6}").prop_map(|(a, p, b)| {
            Mapping::Template(Template::parse(&format!("{a}{{{{ {p} }}}}{b}")).unwrap())
        }),
    ];
    let tool = (
        "[a-z_]{1,10}",
        any::<bool>(),
        prop::collection::btree_map(text(), mapping, 0..4),
    )
        .prop_map(|(name, enabled, parameter_mappings)| SelectedTool {
            name,
            enabled,
            parameter_mappings,
        });
    (
        "[A-Za-z][A-Za-z0-9 ]{0,12}",
        // Each tool once: a node selects a tool at most once.
        prop::collection::vec(tool, 0..4).prop_map(|mut tools| {
            let mut seen = BTreeSet::new();
            tools.retain(|t: &SelectedTool| seen.insert(t.name.clone()));
            tools
        }),
        any::<bool>(),
        0u32..=10,
        prop::option::of(1u64..86_400_000),
        variables(),
    )
        .prop_map(
            |(name, selected_tools, retry_on_error, max_retries, timeout, variables)| ToolNode {
                name,
                server_id: ServerId("target".into()),
                selected_tools,
                retry_on_error,
                max_retries,
                timeout: timeout.map(Duration::from_millis),
                variables,
                assistant_id: None,
            },
        )
}

fn check_round_trips(db: &TestDb, runtime: &tokio::runtime::Runtime, cases: u32) {
    let owner: OwnerId = runtime.block_on(db.local());
    let store = &db.store;
    runtime
        .block_on(store.create_server(
            &owner,
            &ServerSpec::stdio("target", "true", Vec::<String>::new()),
        ))
        .unwrap();
    let config = ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    };
    proptest!(config, |(spec in spec(), node in node())| {
        // Read everything back, clean up, and only then compare, so a failing case leaves
        // nothing behind for the shrunk cases that follow.
        let (created, loaded, shown) = runtime.block_on(async {
            let created = store.create_server(&owner, &spec).await;
            let loaded = store.connection_spec(&owner, &spec.id).await;
            let shown = store.server(&owner, &spec.id).await;
            let _ = store.delete_server(&owner, &spec.id).await;
            (created, loaded, shown)
        });
        prop_assert_eq!(&created.map_err(|e| TestCaseError::fail(e.to_string()))?.spec, &spec.masked());
        prop_assert_eq!(&loaded.map_err(|e| TestCaseError::fail(e.to_string()))?, &spec);
        prop_assert_eq!(&shown.map_err(|e| TestCaseError::fail(e.to_string()))?.spec, &spec.masked());

        let (saved, loaded) = runtime.block_on(async {
            let saved = store.create_tool_node(&owner, &node).await;
            let loaded = match &saved {
                Ok(saved) => {
                    let loaded = store.tool_node(&owner, &saved.id).await;
                    let _ = store.delete_tool_node(&owner, &saved.id).await;
                    loaded.map(|l| l.node)
                }
                Err(_) => Ok(node.clone()),
            };
            (saved, loaded)
        });
        saved.map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&loaded.map_err(|e| TestCaseError::fail(e.to_string()))?, &node);
    });
    // Every case cleaned up after itself.
    let left = runtime.block_on(store.servers(&owner)).unwrap();
    assert_eq!(left.len(), 1);
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

#[test]
fn sqlite_saves_and_loads_every_valid_spec_and_tool_node_unchanged() {
    let runtime = runtime();
    let db = runtime.block_on(TestDb::sqlite());
    check_round_trips(&db, &runtime, 128);
}

#[test]
fn postgres_saves_and_loads_every_valid_spec_and_tool_node_unchanged() {
    let runtime = runtime();
    let Some(db) = runtime.block_on(TestDb::postgres()) else {
        return;
    };
    check_round_trips(&db, &runtime, 64);
}
