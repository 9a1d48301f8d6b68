//! Fuzzing the prompt-mode instruction parser with proptest, bounded for CI (256
//! cases; run longer with `PROPTEST_CASES=100000 cargo test -p switchboard-agent --test
//! fuzz_prompt_mode`): a model's answer of any shape — fenced blocks opened and never closed,
//! broken JSON, other languages, nested fences — yields calls without panicking, at most one
//! per fenced block, each with an id of its own. A failing input is kept by proptest in
//! `proptest-regressions/` and replayed first.

use std::collections::HashSet;

use proptest::prelude::*;
use switchboard_agent::Offer;
use switchboard_agent::mode::prompt::found_calls;

fn answer() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("```json\n".to_owned()),
        Just("```\n".to_owned()),
        Just("```".to_owned()),
        Just("```rust\n".to_owned()),
        Just("{\"tool\": \"mcp__demo__echo\", \"arguments\": {\"message\": \"hi\"}}".to_owned()),
        Just("{\"tool\": ".to_owned()),
        Just("\"arguments\": ".to_owned()),
        Just("{".to_owned()),
        Just("}".to_owned()),
        Just("\n".to_owned()),
        Just("`".to_owned()),
        ".{0,16}",
    ];
    prop::collection::vec(piece, 0..40).prop_map(|pieces| pieces.concat())
}

proptest! {
    #[test]
    fn any_answer_yields_calls_without_panicking(text in answer(), round in 0u32..4) {
        let calls = found_calls(&text, &Offer::default(), round);
        prop_assert!(calls.len() <= text.matches("```").count());
        let ids: HashSet<String> = calls.iter().map(|c| c.id.clone()).collect();
        prop_assert_eq!(ids.len(), calls.len(), "call ids are unique");
    }
}
