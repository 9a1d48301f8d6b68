//! One turn as stored: the assistant message that answers a user message.
//!
//! A turn may take several model calls (rounds). Seed 001 keeps them in one assistant message:
//! every round's tool calls go into its `toolCalls` (each with its `round`), and the text the
//! model wrote in each round is kept in the message metadata under `rounds`, so the
//! conversation can be replayed to the model round by round; `content` is what a person reads,
//! the rounds' texts joined. Blocks of the provider's own that a round's answer carried
//! (Anthropic's tool search: the search and what it found) are kept beside them under
//! `providerBlocks`, one list per round, to be sent back with the round.

use serde_json::{Map, Value};
use switchboard_core::ToolCallRecord;
use switchboard_store::Message;

use crate::mode::prompt::display_round;

pub const ROUNDS_KEY: &str = "rounds";
/// How many rounds finished (their calls recorded); a round beyond it was cut off.
pub const ROUNDS_DONE_KEY: &str = "roundsDone";
/// The provider's own blocks of each round, a list per round (absent: none in any round).
pub const PROVIDER_BLOCKS_KEY: &str = "providerBlocks";
/// Set when the turn was cancelled: resuming does not reopen it.
pub const STOP_KEY: &str = "stop";

/// The rounds of `message` that finished: its text was fully stored and its calls recorded.
/// A round that was cut off (a crash or an error mid-answer) has neither the mark nor calls.
pub fn finished_rounds(message: &Message) -> usize {
    let texts = round_texts(message).len();
    let marked = message
        .metadata
        .get(ROUNDS_DONE_KEY)
        .and_then(Value::as_u64)
        .map_or(texts, |n| usize::try_from(n).unwrap_or(usize::MAX));
    if marked >= texts {
        return texts;
    }
    // Calls recorded but the mark not yet written: the round is complete.
    let last = u32::try_from(texts - 1).unwrap_or(u32::MAX);
    if calls_of(message, last).is_empty() {
        marked
    } else {
        texts
    }
}

/// Whether the turn was cancelled.
pub fn was_cancelled(message: &Message) -> bool {
    message.metadata.get(STOP_KEY).and_then(Value::as_str) == Some("cancelled")
}

/// The texts of the rounds so far (one per model call). A round whose calls were recorded
/// counts even if its text was not stored yet (a stop between the two writes).
pub fn round_texts(message: &Message) -> Vec<String> {
    let mut texts: Vec<String> = match message.metadata.get(ROUNDS_KEY).and_then(Value::as_array) {
        Some(rounds) => rounds
            .iter()
            .map(|r| r.as_str().unwrap_or_default().to_owned())
            .collect(),
        // An assistant message not written by a run: one round of plain text.
        None => vec![message.content.clone()],
    };
    if let Some(last_call) = message.tool_calls.iter().map(|c| c.round).max() {
        let rounds = usize::try_from(last_call)
            .unwrap_or(usize::MAX)
            .saturating_add(1);
        if texts.len() < rounds {
            texts.resize(rounds, String::new());
        }
    }
    texts
}

/// The provider's own blocks of `round`, as the provider sent them.
pub fn provider_blocks(message: &Message, round: usize) -> Vec<Value> {
    message
        .metadata
        .get(PROVIDER_BLOCKS_KEY)
        .and_then(Value::as_array)
        .and_then(|rounds| rounds.get(round))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

/// `metadata` with `blocks` as the provider blocks of `round`, and none for the rounds after
/// it (a round asked again replaces what it said before). Metadata without provider blocks
/// gains the key only for blocks to keep.
pub fn set_provider_blocks(metadata: &mut Map<String, Value>, round: usize, blocks: Vec<Value>) {
    if blocks.is_empty() && !metadata.contains_key(PROVIDER_BLOCKS_KEY) {
        return;
    }
    let mut rounds = match metadata.remove(PROVIDER_BLOCKS_KEY) {
        Some(Value::Array(rounds)) => rounds,
        _ => Vec::new(),
    };
    rounds.truncate(round);
    if !blocks.is_empty() {
        rounds.resize(round, Value::Array(Vec::new()));
        rounds.push(Value::Array(blocks));
    }
    metadata.insert(PROVIDER_BLOCKS_KEY.into(), Value::Array(rounds));
}

/// The most characters of one tool result shown in place of its prompt-mode block.
const DISPLAY_RESULT_CHARS: usize = 20_000;

/// The metadata and content for `rounds`: the metadata keeps each round's text as the model
/// wrote it (for the replay); the content is what a person reads, where a prompt-mode call's
/// block is replaced by its result once it has one ([`display_round`]).
pub fn with_rounds(message: &Message, rounds: &[String]) -> (String, Map<String, Value>) {
    let mut metadata = message.metadata.clone();
    // A turn written by a run goes on: it is no longer failed.
    metadata.remove(crate::failure::FAILURE_KEY);
    metadata.insert(
        ROUNDS_KEY.into(),
        Value::Array(rounds.iter().cloned().map(Value::String).collect()),
    );
    let content = rounds
        .iter()
        .enumerate()
        .map(|(round, text)| {
            let round = u32::try_from(round).unwrap_or(u32::MAX);
            display_round(text, round, &message.tool_calls, DISPLAY_RESULT_CHARS)
        })
        .map(|text| text.trim().to_owned())
        .filter(|text| !text.is_empty())
        .collect::<Vec<_>>()
        .join("\n\n");
    (content, metadata)
}

/// The content a person reads for `message` as it is stored now (its calls' results in).
pub fn display_content(message: &Message) -> String {
    with_rounds(message, &round_texts(message)).0
}

/// `message` as the model is shown it when `round` is asked (again): the rounds before it
/// only. A round cut off is asked anew, so the text it broke off with is not put in the
/// model's mouth. `None` when there is nothing to leave out.
pub fn before_round(message: &Message, round: usize) -> Option<Message> {
    let rounds = message.metadata.get(ROUNDS_KEY)?.as_array()?;
    if rounds.len() <= round {
        return None;
    }
    let mut shown = message.clone();
    shown.metadata.insert(
        ROUNDS_KEY.into(),
        Value::Array(rounds.iter().take(round).cloned().collect()),
    );
    Some(shown)
}

/// The calls made in `round`.
pub fn calls_of(message: &Message, round: u32) -> Vec<&ToolCallRecord> {
    message
        .tool_calls
        .iter()
        .filter(|c| c.round == round)
        .collect()
}

/// How many rounds asked for tools.
pub fn tool_rounds(message: &Message) -> u32 {
    let rounds: std::collections::BTreeSet<u32> =
        message.tool_calls.iter().map(|c| c.round).collect();
    u32::try_from(rounds.len()).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use switchboard_core::{ServerId, ToolCallStatus};
    use switchboard_store::{MessageRole, Timestamp};

    use super::*;

    fn message(metadata: Value, call_rounds: &[u32]) -> Message {
        Message {
            id: "m".into(),
            conversation_id: "c".into(),
            role: MessageRole::Assistant,
            content: String::new(),
            tool_calls: call_rounds
                .iter()
                .map(|&round| ToolCallRecord {
                    id: format!("call_{round}"),
                    server_id: ServerId("s".into()),
                    server_name: "s".into(),
                    tool_name: "t".into(),
                    display_name: "mcp__s__t".into(),
                    arguments: Map::new(),
                    status: ToolCallStatus::Pending,
                    response: None,
                    is_error: None,
                    round,
                    approved: None,
                    question: None,
                    pending_input: None,
                    task: None,
                    resolved_arguments: None,
                    mapped_parameters: Default::default(),
                })
                .collect(),
            metadata: metadata.as_object().cloned().unwrap_or_default(),
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
        }
    }

    #[test]
    fn a_round_with_recorded_calls_counts_before_its_text_is_stored() {
        // Stopped between recording the calls and storing the round's text.
        let m = message(json!({"rounds": [], "roundsDone": 0}), &[0]);
        assert_eq!(round_texts(&m), vec![String::new()]);
        assert_eq!(
            finished_rounds(&m),
            1,
            "the round is complete: its calls are there"
        );
    }

    #[test]
    fn provider_blocks_are_kept_per_round_and_a_round_asked_again_replaces_them() {
        let mut m = message(json!({"rounds": ["a", "b"]}), &[]);
        set_provider_blocks(&mut m.metadata, 0, Vec::new());
        assert!(!m.metadata.contains_key(PROVIDER_BLOCKS_KEY));
        set_provider_blocks(&mut m.metadata, 1, vec![json!({"type": "server_tool_use"})]);
        assert_eq!(
            m.metadata[PROVIDER_BLOCKS_KEY],
            json!([[], [{"type": "server_tool_use"}]])
        );
        assert_eq!(provider_blocks(&m, 0), Vec::<Value>::new());
        assert_eq!(
            provider_blocks(&m, 1),
            vec![json!({"type": "server_tool_use"})]
        );
        assert_eq!(provider_blocks(&m, 2), Vec::<Value>::new());
        set_provider_blocks(&mut m.metadata, 1, Vec::new());
        assert_eq!(m.metadata[PROVIDER_BLOCKS_KEY], json!([[]]));
    }

    #[test]
    fn a_round_with_text_but_no_mark_and_no_calls_was_cut_off() {
        let m = message(json!({"rounds": ["half"], "roundsDone": 0}), &[]);
        assert_eq!(finished_rounds(&m), 0);
        let legacy = message(json!({}), &[]);
        assert_eq!(
            finished_rounds(&legacy),
            1,
            "messages not written by a run are whole"
        );
    }
}
