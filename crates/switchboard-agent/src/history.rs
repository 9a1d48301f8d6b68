//! The stored conversation as the model reads it.

use switchboard_llm::ChatMessage;
use switchboard_store::{Message, MessageRole};

use crate::mode::Mode;
use crate::results::{MappedResult, map_stored};
use crate::turn::{calls_of, round_texts};

/// Every message, each assistant turn replayed round by round in the run's mode. System
/// messages are left to the system prompt. A result whose text is over `budget` characters
/// is given as its preview ([`crate::mode::read_result`]).
pub fn replay(
    messages: &[Message],
    mode: &Mode,
    max_result_chars: usize,
    budget: usize,
) -> Vec<ChatMessage> {
    let mut out = Vec::new();
    for message in messages {
        match message.role {
            MessageRole::User => out.extend(crate::input::replay_user(message)),
            MessageRole::Assistant => {
                for (round, text) in round_texts(message).iter().enumerate() {
                    let round = u32::try_from(round).unwrap_or(u32::MAX);
                    let calls: Vec<_> = calls_of(message, round)
                        .into_iter()
                        .filter(|c| c.status.is_terminal())
                        .map(|c| (c, shown_result(c, max_result_chars, budget)))
                        .collect();
                    out.extend(mode.replay_round(text, &calls));
                }
            }
            _ => {}
        }
    }
    out
}

/// The result of `record` as the model is given it: whole, or its preview when over `budget`.
pub(crate) fn shown_result(
    record: &switchboard_core::ToolCallRecord,
    max_result_chars: usize,
    budget: usize,
) -> MappedResult {
    let mapped = stored_result(record, usize::MAX);
    match crate::mode::read_result::preview(record, &mapped, budget) {
        Some(preview) => preview,
        None => stored_result(record, max_result_chars),
    }
}

/// Whether a result of `messages` is over `budget` characters (so `read_result` is offered).
pub(crate) fn any_over(messages: &[Message], budget: usize) -> bool {
    messages.iter().flat_map(|m| &m.tool_calls).any(|c| {
        c.status.is_terminal()
            && crate::mode::read_result::preview(c, &stored_result(c, usize::MAX), budget).is_some()
    })
}

fn stored_result(
    record: &switchboard_core::ToolCallRecord,
    max_result_chars: usize,
) -> MappedResult {
    map_stored(
        record.response.as_ref(),
        record.is_error.unwrap_or(false),
        max_result_chars,
    )
}
