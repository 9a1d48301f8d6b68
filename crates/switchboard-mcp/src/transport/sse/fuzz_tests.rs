//! Fuzzing the legacy SSE parser with proptest, bounded for CI (256 cases; run
//! longer with `PROPTEST_CASES=100000 cargo test -p switchboard-mcp sse::fuzz`): whatever bytes
//! a server sends, cut wherever the network cuts them, the parser neither panics nor holds an
//! event past its limit, and the events do not depend on where the chunks were cut. A failing
//! input is kept by proptest in `proptest-regressions/` and replayed first from then on.

use proptest::prelude::*;

use super::parser::{SseEvent, SseParser};

const LIMIT: usize = 256;

/// Bytes that look like SSE often enough to reach every branch: field names, colons, CR, LF,
/// a byte order mark, UTF-8 cut in the middle, and anything else.
fn body() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"data:".to_vec()),
        Just(b"data: ".to_vec()),
        Just(b"event: endpoint".to_vec()),
        Just(b"id: 7".to_vec()),
        Just(b"retry: 10".to_vec()),
        Just(b": comment".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\xEF\xBB\xBF".to_vec()),
        Just("é".as_bytes().to_vec()),
        Just(vec![0xC3]),
        prop::collection::vec(any::<u8>(), 0..24),
    ];
    prop::collection::vec(piece, 0..64).prop_map(|pieces| pieces.concat())
}

/// Feeds `body` cut at `cuts`; the events, or the first error.
fn feed(body: &[u8], cuts: &[usize]) -> Result<Vec<SseEvent>, ()> {
    let mut parser = SseParser::new(LIMIT);
    let mut events = Vec::new();
    let mut at = 0;
    let mut ends: Vec<usize> = cuts.iter().map(|c| c % (body.len() + 1)).collect();
    ends.sort_unstable();
    ends.push(body.len());
    for end in ends {
        let end = end.max(at);
        events.extend(parser.push(&body[at..end]).map_err(|_| ())?);
        at = end;
    }
    Ok(events)
}

proptest! {
    #[test]
    fn any_body_cut_anywhere_parses_the_same_within_the_limit(
        body in body(),
        cuts in prop::collection::vec(any::<usize>(), 0..16),
    ) {
        let whole = feed(&body, &[]);
        let cut = feed(&body, &cuts);
        prop_assert_eq!(&whole, &cut);
        if let Ok(events) = whole {
            for event in events {
                prop_assert!(event.data.len() <= LIMIT, "{} bytes kept", event.data.len());
            }
        }
    }
}
