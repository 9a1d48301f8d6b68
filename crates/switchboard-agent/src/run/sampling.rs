//! A server's `sampling/createMessage` during the agent's call: the request is
//! shown to the person with the call (its messages, the model that will answer, the token
//! cap), who may edit its messages or reject it; the assistant's model answers it; the answer
//! is shown again, to be edited, returned or rejected. A server whose sampling setting allows
//! it is answered without either review, the exchange still kept with the call for the
//! person to see. Every request is cut to the server's token cap.

// Sampling is deprecated by SEP-2577 but still asked by deployed servers.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::ErrorData;
use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, Role as McpRole, SamplingMessage,
    SamplingMessageContentBlock,
};
use serde_json::Value;
use switchboard_core::{
    QuestionAction, QuestionAnswer, QuestionMode, SamplingPolicy, SamplingReview, SamplingStage,
    SamplingText, ServerQuestion,
};
use switchboard_llm::{ChatMessage, ChatRequest, FinishReason, Part, Provider, Role};

use super::questions::Asker;

/// Who answers a server's sampling requests during one call: the assistant's provider and
/// model, under the server's setting.
#[derive(Clone)]
pub struct Sampler {
    pub provider: Arc<dyn Provider>,
    pub model: String,
    pub policy: SamplingPolicy,
}

/// The error a request is answered with when the conversation's model cannot be had.
fn no_model() -> ErrorData {
    ErrorData::invalid_request(
        "the conversation's model cannot answer sampling/createMessage now (its provider \
         could not be set up)",
        None,
    )
}

/// The error a rejected request is answered with (the spec's example code for a person's
/// refusal).
fn rejected() -> ErrorData {
    ErrorData::new(
        rmcp::model::ErrorCode(-1),
        "the person rejected the sampling request",
        None,
    )
}

/// A message's content as text: text blocks as they are, anything else named in brackets.
fn text_of(message: &SamplingMessage) -> String {
    message
        .content
        .clone()
        .into_vec()
        .iter()
        .map(|block| match block {
            SamplingMessageContentBlock::Text(text) => text.text.clone(),
            SamplingMessageContentBlock::Image(image) => format!("[image, {}]", image.mime_type),
            SamplingMessageContentBlock::Audio(audio) => format!("[audio, {}]", audio.mime_type),
            SamplingMessageContentBlock::ToolUse(tool) => format!("[tool use: {}]", tool.name),
            SamplingMessageContentBlock::ToolResult(_) => "[tool result]".to_owned(),
            _ => "[content]".to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The request as the person reviews it.
pub(crate) fn review_of(params: &CreateMessageRequestParams, sampler: &Sampler) -> SamplingReview {
    SamplingReview {
        stage: SamplingStage::Request,
        messages: params
            .messages
            .iter()
            .map(|message| SamplingText {
                role: match message.role {
                    McpRole::Assistant => "assistant".to_owned(),
                    _ => "user".to_owned(),
                },
                text: text_of(message),
            })
            .collect(),
        system_prompt: params.system_prompt.clone(),
        max_tokens: params.max_tokens.clamp(1, sampler.policy.max_tokens),
        model: sampler.model.clone(),
        model_hints: params
            .model_preferences
            .as_ref()
            .and_then(|preferences| preferences.hints.as_ref())
            .map(|hints| hints.iter().filter_map(|hint| hint.name.clone()).collect())
            .unwrap_or_default(),
        answer: None,
        auto: sampler.policy.auto_approve,
    }
}

/// `review` with the person's edits of an accepted request (`messages`, `systemPrompt`),
/// already checked by `Agent::answer`.
fn edited(mut review: SamplingReview, answer: &QuestionAnswer) -> SamplingReview {
    let Some(content) = &answer.content else {
        return review;
    };
    if let Some(messages) = content
        .get("messages")
        .and_then(|m| serde_json::from_value::<Vec<SamplingText>>(m.clone()).ok())
    {
        review.messages = messages;
    }
    match content.get("systemPrompt") {
        Some(Value::String(system)) => review.system_prompt = Some(system.clone()),
        Some(Value::Null) => review.system_prompt = None,
        _ => {}
    }
    review
}

/// The answer's text as the person returned it (edited, or the model's own).
fn returned_text(review: &SamplingReview, answer: &QuestionAnswer) -> String {
    answer
        .content
        .as_ref()
        .and_then(|content| content.get("text"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .or_else(|| review.answer.clone())
        .unwrap_or_default()
}

fn question(review: SamplingReview) -> ServerQuestion {
    ServerQuestion {
        id: uuid::Uuid::now_v7().to_string(),
        mode: QuestionMode::Sampling,
        message: String::new(),
        requested_schema: None,
        url: None,
        sampling: Some(review),
        answer: None,
    }
}

impl Asker {
    pub(super) async fn sample_with_review(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ErrorData> {
        let Some(sampler) = &self.sampler else {
            return Err(no_model());
        };
        let mut review = review_of(&params, sampler);
        if !review.auto {
            let asked = question(review.clone());
            if !self.put(asked.clone()).await {
                return Err(rejected());
            }
            match self.answer_to(&asked.id).await? {
                Some(answer) if answer.action == QuestionAction::Accept => {
                    review = edited(review, &answer);
                }
                _ => return Err(rejected()),
            }
        }
        let (text, finish) = self.generate(sampler, &review, params.temperature).await?;
        review.stage = SamplingStage::Answer;
        review.answer = Some(text.clone());
        let text = if review.auto {
            // Kept with the call, answered already, for the person to see what was sent.
            let mut shown = question(review);
            shown.answer = Some(QuestionAnswer {
                action: QuestionAction::Accept,
                content: None,
            });
            self.put(shown).await;
            text
        } else {
            let asked = question(review.clone());
            if !self.put(asked.clone()).await {
                return Err(rejected());
            }
            match self.answer_to(&asked.id).await? {
                Some(answer) if answer.action == QuestionAction::Accept => {
                    returned_text(&review, &answer)
                }
                _ => return Err(rejected()),
            }
        };
        let stop = match finish {
            FinishReason::Length => CreateMessageResult::STOP_REASON_END_MAX_TOKEN,
            _ => CreateMessageResult::STOP_REASON_END_TURN,
        };
        Ok(CreateMessageResult::new(
            SamplingMessage::new(McpRole::Assistant, SamplingMessageContentBlock::text(text)),
            sampler.model.clone(),
        )
        .with_stop_reason(stop))
    }

    /// The assistant's model's answer to `review` (no tools offered).
    async fn generate(
        &self,
        sampler: &Sampler,
        review: &SamplingReview,
        temperature: Option<f32>,
    ) -> Result<(String, FinishReason), ErrorData> {
        let request = ChatRequest {
            model: sampler.model.clone(),
            system: review.system_prompt.clone(),
            messages: review
                .messages
                .iter()
                .map(|message| ChatMessage {
                    role: if message.role == "assistant" {
                        Role::Assistant
                    } else {
                        Role::User
                    },
                    content: vec![Part::Text(message.text.clone())],
                })
                .collect(),
            tools: Vec::new(),
            max_tokens: Some(review.max_tokens),
            temperature,
            native_tool_search: None,
        };
        let completion = tokio::select! {
            completion = switchboard_llm::complete(sampler.provider.as_ref(), &request) => completion,
            () = self.cancel.cancelled() => return Err(rejected()),
        };
        let completion = completion.map_err(|error| {
            ErrorData::internal_error(format!("the model could not answer: {error}"), None)
        })?;
        Ok((completion.text, completion.finish))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Silent;

    #[async_trait::async_trait]
    impl Provider for Silent {
        fn wire_format(&self) -> switchboard_llm::WireFormat {
            switchboard_llm::WireFormat::OpenAi
        }
        async fn stream(
            &self,
            _request: &ChatRequest,
        ) -> Result<switchboard_llm::EventStream, switchboard_llm::LlmError> {
            Ok(Box::pin(futures::stream::empty()))
        }
    }

    fn sampler(max_tokens: u32) -> Sampler {
        Sampler {
            provider: Arc::new(Silent),
            model: "the-model".into(),
            policy: SamplingPolicy {
                auto_approve: false,
                max_tokens,
            },
        }
    }

    #[test]
    fn a_request_is_cut_to_the_servers_cap_and_shown_as_text() {
        let mut params = CreateMessageRequestParams::new(
            vec![
                SamplingMessage::user_text("What is 2+2?"),
                SamplingMessage::assistant_text("Let me see."),
            ],
            5000,
        );
        params.system_prompt = Some("Be brief.".into());
        let review = review_of(&params, &sampler(100));
        assert_eq!(review.max_tokens, 100);
        assert_eq!(review.model, "the-model");
        assert_eq!(review.system_prompt.as_deref(), Some("Be brief."));
        assert_eq!(
            review.messages,
            vec![
                SamplingText {
                    role: "user".into(),
                    text: "What is 2+2?".into()
                },
                SamplingText {
                    role: "assistant".into(),
                    text: "Let me see.".into()
                },
            ]
        );
        assert_eq!(review_of(&params, &sampler(32_768)).max_tokens, 5000);
    }

    #[test]
    fn edits_replace_the_messages_and_the_system_prompt() {
        let params =
            CreateMessageRequestParams::new(vec![SamplingMessage::user_text("original")], 10);
        let review = review_of(&params, &sampler(100));
        let answer = QuestionAnswer {
            action: QuestionAction::Accept,
            content: serde_json::json!({
                "messages": [{"role": "user", "text": "edited"}],
                "systemPrompt": null,
            })
            .as_object()
            .cloned(),
        };
        let edited = edited(review.clone(), &answer);
        assert_eq!(edited.messages[0].text, "edited");
        assert_eq!(edited.system_prompt, None);
        let untouched = QuestionAnswer {
            action: QuestionAction::Accept,
            content: None,
        };
        assert_eq!(super::edited(review.clone(), &untouched), review);
    }

    #[test]
    fn the_returned_text_is_the_edit_or_else_the_models() {
        let mut review = review_of(
            &CreateMessageRequestParams::new(vec![SamplingMessage::user_text("q")], 10),
            &sampler(100),
        );
        review.answer = Some("model says".into());
        let plain = QuestionAnswer {
            action: QuestionAction::Accept,
            content: None,
        };
        assert_eq!(returned_text(&review, &plain), "model says");
        let edit = QuestionAnswer {
            action: QuestionAction::Accept,
            content: serde_json::json!({"text": "person says"})
                .as_object()
                .cloned(),
        };
        assert_eq!(returned_text(&review, &edit), "person says");
    }
}
