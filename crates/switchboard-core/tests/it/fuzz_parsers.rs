//! Fuzzing the text parsers of the core with proptest, bounded for CI (256 cases
//! each; run longer with `PROPTEST_CASES=100000 cargo test -p switchboard-core --test
//! fuzz_parsers`): the import of a Claude Desktop / Cursor / VS Code file (JSON with comments)
//! and the `{{variable}}` templates of tool nodes never panic on any text, keep their output
//! bounded by their input, and agree with themselves. A failing input is kept by proptest in
//! `proptest-regressions/` and replayed first.

use proptest::prelude::*;
use switchboard_core::import;
use switchboard_core::tool_node::{Template, VarPath};

/// Text that often looks like a config file: braces, quotes, comments, commas, escapes.
fn config_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("[".to_owned()),
        Just("]".to_owned()),
        Just("\"mcpServers\"".to_owned()),
        Just("\"servers\"".to_owned()),
        Just("\"command\"".to_owned()),
        Just("\"url\"".to_owned()),
        Just("\"type\"".to_owned()),
        Just(":".to_owned()),
        Just(",".to_owned()),
        Just("//".to_owned()),
        Just("/*".to_owned()),
        Just("*/".to_owned()),
        Just("\\".to_owned()),
        Just("\"".to_owned()),
        Just("\n".to_owned()),
        ".{0,8}",
    ];
    prop::collection::vec(piece, 0..48).prop_map(|pieces| pieces.concat())
}

/// Text that often looks like a template: braces, dots, brackets, names.
fn template_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("{{".to_owned()),
        Just("}}".to_owned()),
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just(".".to_owned()),
        Just("user".to_owned()),
        Just(" ".to_owned()),
        Just("[0]".to_owned()),
        "[a-z_]{0,6}",
        ".{0,6}",
    ];
    prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn jsonc_stripping_keeps_every_line_and_no_more_text(text in config_text()) {
        let stripped = import::jsonc::strip(&text);
        prop_assert!(stripped.len() <= text.len());
        prop_assert_eq!(stripped.matches('\n').count(), text.matches('\n').count());
    }

    #[test]
    fn any_file_imports_or_is_refused_without_panicking(text in config_text()) {
        if let Ok(imported) = import::parse(&text) {
            prop_assert!(imported.entries.len() <= text.len());
        }
    }

    #[test]
    fn any_template_parses_or_is_refused_and_keeps_its_source(text in template_text()) {
        if let Ok(template) = Template::parse(&text) {
            prop_assert_eq!(template.source(), text.as_str());
            prop_assert!(template.references().count() <= text.len());
        }
        let _ = VarPath::parse(&text);
    }
}
