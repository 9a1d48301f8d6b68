//! Golden names that pin the algorithm, then the properties every table must have.
//!
//! The golden hashes were computed outside Rust (Python `hashlib` over the documented input:
//! 8-byte big-endian length of the server name, server name, tool name), so they check the
//! encoding as well as the code.

use proptest::prelude::*;

use super::{MAX_NAME_LEN, NameTable, is_valid_tool_name, mangle_one, sanitize};

#[test]
fn golden_plain_names() {
    assert_eq!(mangle_one("github", "search"), "mcp__github__search");
    assert_eq!(
        mangle_one("my server", "get.weather"),
        "mcp__my_server__get_weather"
    );
    assert_eq!(mangle_one("日本", "検索"), "mcp________");
    assert_eq!(mangle_one("", ""), "mcp____");
}

#[test]
fn golden_too_long_name_is_cut_and_hashed() {
    let name = mangle_one(
        "a-very-long-server-name-for-testing",
        "and-an-even-longer-tool-name-that-overflows",
    );
    assert_eq!(
        name,
        "mcp__a-very-long-server-name-for-testing__and-an-even-lo_5fc344"
    );
    assert_eq!(name.len(), MAX_NAME_LEN);
}

#[test]
fn golden_clashing_names_all_get_suffixes() {
    let table = NameTable::new([("a.b", "c"), ("a_b", "c"), ("a b", "c"), ("x", "y")]);
    assert_eq!(table.mangled("a b", "c"), Some("mcp__a_b__c_b63e2f"));
    assert_eq!(table.mangled("a.b", "c"), Some("mcp__a_b__c_eaa01f"));
    assert_eq!(table.mangled("a_b", "c"), Some("mcp__a_b__c_6dab9f"));
    assert_eq!(table.mangled("x", "y"), Some("mcp__x__y"));
}

#[test]
fn golden_suffix_grows_when_a_hashed_name_still_clashes() {
    // The third tool is named exactly like the hashed name of the first.
    let table = NameTable::new([
        ("files", "read.file"),
        ("files", "read_file"),
        ("files", "read_file_82e246"),
    ]);
    assert_eq!(
        table.mangled("files", "read.file"),
        Some("mcp__files__read_file_82e2463c")
    );
    assert_eq!(
        table.mangled("files", "read_file"),
        Some("mcp__files__read_file_6c12f0")
    );
    assert_eq!(
        table.mangled("files", "read_file_82e246"),
        Some("mcp__files__read_file_82e246_cd71f5")
    );
}

#[test]
fn length_prefix_keeps_split_points_apart() {
    // Both sanitize to `mcp__a___b` and both concatenate to "a.b": only the length prefix in
    // the hash input tells them apart.
    let table = NameTable::new([("a.", "b"), ("a", ".b")]);
    let first = table.mangled("a.", "b");
    let second = table.mangled("a", ".b");
    assert!(first.is_some() && second.is_some());
    assert_ne!(first, second);
    assert_eq!(table.len(), 2);
}

#[test]
fn dense_clashes_stay_unique_and_reversible() {
    let servers = ["a.b", "a_b", "a b", "a-b", "ab", "a\u{e9}b", ""];
    let tools = ["x.y", "x_y", "x y", "x", "", "x\u{1F600}y"];
    let pairs: Vec<(&str, &str)> = servers
        .iter()
        .flat_map(|s| tools.iter().map(move |t| (*s, *t)))
        .collect();
    let table = NameTable::new(pairs.iter().copied());
    assert_eq!(table.len(), pairs.len());
    for (server, tool) in pairs {
        let name = table.mangled(server, tool).unwrap();
        assert!(is_valid_tool_name(name), "{name}");
        assert_eq!(table.resolve(name), Some((server, tool)));
    }
}

#[test]
fn singleton_table_agrees_with_mangle_one() {
    let long = "s".repeat(100);
    for (server, tool) in [("github", "search"), ("s p", "t.q"), (long.as_str(), "t")] {
        let table = NameTable::new([(server, tool)]);
        assert_eq!(
            table.mangled(server, tool),
            Some(mangle_one(server, tool).as_str())
        );
    }
}

#[test]
fn unknown_pairs_and_names_are_not_found() {
    let table = NameTable::new([("github", "search")]);
    assert_eq!(table.mangled("github", "other"), None);
    assert_eq!(table.mangled("other", "search"), None);
    assert_eq!(table.resolve("mcp__github__other"), None);
    assert_eq!(table.len(), 1);
    assert!(NameTable::default().is_empty());
}

#[test]
fn duplicates_in_the_input_count_once() {
    let table: NameTable = [("s", "t"), ("s", "t")].into_iter().collect();
    assert_eq!(table.len(), 1);
    assert_eq!(table.mangled("s", "t"), Some("mcp__s__t"));
}

#[test]
fn sanitize_replaces_each_foreign_character_once() {
    assert_eq!(sanitize("a.b c/d-e_f"), "a_b_c_d-e_f");
    assert_eq!(sanitize("é😀"), "__");
}

#[test]
fn tool_name_validity() {
    assert!(is_valid_tool_name("mcp__a__b"));
    assert!(is_valid_tool_name("_x"));
    assert!(!is_valid_tool_name(""));
    assert!(!is_valid_tool_name("1abc"));
    assert!(!is_valid_tool_name("-abc"));
    assert!(!is_valid_tool_name("a.b"));
    assert!(!is_valid_tool_name(&"a".repeat(MAX_NAME_LEN + 1)));
}

/// Names drawn from a tiny alphabet clash often once sanitized ("a.b", "a b", "a_b", "a-b").
fn near_duplicate() -> impl Strategy<Value = String> {
    "[ab._ é-]{0,4}"
}

fn any_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => near_duplicate(),
        2 => any::<String>(),
        1 => "[a-z_.-]{40,90}",
        1 => "\\PC{60,120}",
    ]
}

fn pairs() -> impl Strategy<Value = Vec<(String, String)>> {
    proptest::collection::vec((any_name(), any_name()), 0..50)
}

proptest! {
    #[test]
    fn names_are_always_valid(pairs in pairs()) {
        let table = NameTable::new(pairs.iter().cloned());
        for (server, tool) in &pairs {
            let name = table.mangled(server, tool);
            prop_assert!(name.is_some(), "{:?} has no name", (server, tool));
            let name = name.unwrap_or_default();
            prop_assert!(is_valid_tool_name(name), "{name:?}");
            prop_assert!(name.len() <= MAX_NAME_LEN);
        }
    }

    #[test]
    fn names_are_unique_and_reversible(pairs in pairs()) {
        let table = NameTable::new(pairs.iter().cloned());
        let distinct: std::collections::BTreeSet<_> = pairs.iter().collect();
        prop_assert_eq!(table.len(), distinct.len());
        for (server, tool) in &pairs {
            let name = table.mangled(server, tool).unwrap_or_default();
            prop_assert_eq!(table.resolve(name), Some((server.as_str(), tool.as_str())));
        }
        for (name, server, tool) in table.iter() {
            prop_assert_eq!(table.mangled(server, tool), Some(name));
        }
    }

    #[test]
    fn names_do_not_depend_on_input_order(
        (pairs, shuffled) in pairs().prop_flat_map(|p| (Just(p.clone()), Just(p).prop_shuffle()))
    ) {
        let reversed: Vec<_> = pairs.iter().rev().cloned().collect();
        let table = NameTable::new(pairs);
        prop_assert_eq!(&table, &NameTable::new(shuffled));
        prop_assert_eq!(&table, &NameTable::new(reversed));
    }

    #[test]
    fn a_name_without_clashes_is_mangle_one(server in any_name(), tool in any_name()) {
        let name = mangle_one(&server, &tool);
        prop_assert!(is_valid_tool_name(&name), "{name:?}");
        let table = NameTable::new([(server.as_str(), tool.as_str())]);
        prop_assert_eq!(table.mangled(&server, &tool), Some(name.as_str()));
    }
}
