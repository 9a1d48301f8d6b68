//! A failed turn's stored failure (`metadata.failure` of its assistant message, kept in no
//! language by the agent) served in the reader's language, as an error answer would be:
//! `{code, message, hint, timestamp}`. The reader's language is the one their error answers
//! get: their stored choice, else `Accept-Language`.

use axum::http::{HeaderMap, header};
use serde::Serialize;
use serde_json::Value;
use switchboard_agent::{FAILURE_KEY, TurnFailure};
use switchboard_core::Locale;
use switchboard_store::{Message, User};

use super::LocaleTexts;

/// The language `user`'s answers are in, for a request with `headers`.
pub fn reader_locale(user: &User, headers: &HeaderMap) -> Locale {
    user.locale.unwrap_or_else(|| {
        super::negotiate(
            headers
                .get(header::ACCEPT_LANGUAGE)
                .and_then(|v| v.to_str().ok()),
        )
    })
}

/// `messages` with each stored failure worded in `locale`. A failure that does not read as
/// one is left as stored.
pub fn word_failures(messages: &mut [Message], texts: &LocaleTexts, locale: Locale) {
    for message in messages {
        let Some(failure) = TurnFailure::on(message) else {
            continue;
        };
        message
            .metadata
            .insert(FAILURE_KEY.into(), worded(&failure, texts, locale));
    }
}

/// Why a turn failed, as its assistant message's `metadata.failure` is served: in the
/// reader's language, like an error answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[schema(as = TurnFailure)]
pub struct ServedFailure {
    /// The error code, e.g. `UPSTREAM_UNAVAILABLE`.
    pub code: &'static str,
    /// What went wrong, for a person.
    pub message: String,
    /// What the person can do about it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// When the turn failed, RFC 3339 in UTC.
    pub timestamp: String,
}

/// The failure as an error body in `locale`: its sentence, else the code's template around
/// its English words; the code's hint.
fn worded(failure: &TurnFailure, texts: &LocaleTexts, locale: Locale) -> Value {
    let code = failure.code.as_str();
    let params: Vec<(&str, String)> = failure
        .params
        .iter()
        .map(|(name, value)| (name.as_str(), value.clone()))
        .collect();
    let message = failure
        .key
        .as_deref()
        .and_then(|key| texts.render(locale, key, &params))
        .or_else(|| {
            let template = format!("error.{code}.message");
            texts.render(locale, &template, &[("detail", failure.message.clone())])
        })
        .unwrap_or_else(|| failure.message.clone());
    let hint = texts.render(locale, &format!("error.{code}.hint"), &[]);
    let at = u64::try_from(failure.at.0).unwrap_or(0);
    let timestamp = std::time::UNIX_EPOCH + std::time::Duration::from_millis(at);
    let served = ServedFailure {
        code,
        message,
        hint,
        timestamp: humantime::format_rfc3339_millis(timestamp).to_string(),
    };
    serde_json::to_value(served).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use switchboard_agent::AgentError;
    use switchboard_llm::LlmError;
    use switchboard_store::{MessageRole, Timestamp};

    #[test]
    fn a_stored_failure_is_served_in_the_readers_language_with_its_hint() {
        let failure = TurnFailure::of(&AgentError::Llm(LlmError::Auth {
            status: 401,
            message: "key rejected".into(),
        }));
        let mut message = Message {
            id: "m".into(),
            conversation_id: "c".into(),
            role: MessageRole::Assistant,
            content: String::new(),
            tool_calls: Vec::new(),
            metadata: serde_json::Map::new(),
            created_at: Timestamp(0),
            updated_at: Timestamp(0),
        };
        message
            .metadata
            .insert(FAILURE_KEY.into(), failure.to_value());
        let texts = LocaleTexts::embedded().unwrap();

        let mut english = vec![message.clone()];
        word_failures(&mut english, &texts, Locale::EnUs);
        let served = &english[0].metadata[FAILURE_KEY];
        assert_eq!(served["code"], "UPSTREAM_UNAVAILABLE");
        assert_eq!(
            served["message"],
            "the model call failed: the provider refused the credentials: key rejected"
        );
        assert!(
            served["hint"].as_str().unwrap().contains("try again"),
            "{served}"
        );
        assert!(served["timestamp"].as_str().unwrap().ends_with('Z'));

        let mut chinese = vec![message];
        word_failures(&mut chinese, &texts, Locale::ZhHans);
        let served = &chinese[0].metadata[FAILURE_KEY];
        assert!(
            served["message"]
                .as_str()
                .unwrap()
                .starts_with("调用模型失败"),
            "{served}"
        );
        assert!(
            served["hint"].as_str().unwrap().contains("重试"),
            "{served}"
        );
    }
}
