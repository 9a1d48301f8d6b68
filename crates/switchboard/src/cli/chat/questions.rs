//! A server's question during a call (MCP elicitation), asked at the terminal on one line:
//! a form's fields as a JSON object (Enter alone accepts the defaults the server gave), or
//! for a URL, Enter once done there; `d` declines, `c` cancels. A sampling request and then
//! the model's answer to it are shown whole and sent on with Enter (or `y`); the web page is
//! where they can be edited.

use serde_json::{Map, Value};
use switchboard_core::{
    QuestionAction, QuestionAnswer, QuestionMode, SamplingStage, ServerQuestion,
};

/// What was typed.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Accept(Map<String, Value>),
    Decline,
    Cancel,
}

impl Reply {
    /// `line` as an answer to `question`, or why it is none.
    pub fn parse(question: &ServerQuestion, line: &str) -> Result<Reply, String> {
        let line = line.trim();
        match line.to_ascii_lowercase().as_str() {
            "d" | "decline" => return Ok(Reply::Decline),
            "c" | "cancel" => return Ok(Reply::Cancel),
            _ => {}
        }
        if question.mode == QuestionMode::Url {
            return if line.is_empty() {
                Ok(Reply::Accept(Map::new()))
            } else {
                Err("press Enter once done, or type d or c".into())
            };
        }
        if question.mode == QuestionMode::Sampling {
            return match line.to_ascii_lowercase().as_str() {
                "" | "y" | "yes" => Ok(Reply::Accept(Map::new())),
                "n" | "no" => Ok(Reply::Decline),
                _ => Err("press Enter (or y) to go on, n or d to reject, c to cancel".into()),
            };
        }
        let mut fields = defaults(question);
        if !line.is_empty() {
            match serde_json::from_str::<Value>(line) {
                Ok(Value::Object(given)) => fields.extend(given),
                _ => {
                    return Err("type the fields as a JSON object, like {\"name\": \"Ada\"}".into());
                }
            }
        }
        Ok(Reply::Accept(fields))
    }

    pub fn answer(self) -> QuestionAnswer {
        match self {
            Reply::Accept(content) => QuestionAnswer {
                action: QuestionAction::Accept,
                content: Some(content),
            },
            Reply::Decline => QuestionAnswer {
                action: QuestionAction::Decline,
                content: None,
            },
            Reply::Cancel => QuestionAnswer {
                action: QuestionAction::Cancel,
                content: None,
            },
        }
    }
}

/// The fields the server filled in itself (their `default`s).
fn defaults(question: &ServerQuestion) -> Map<String, Value> {
    properties(question)
        .filter_map(|(name, field)| field.get("default").map(|d| (name.clone(), d.clone())))
        .collect()
}

fn properties(question: &ServerQuestion) -> impl Iterator<Item = (&String, &Value)> {
    question
        .requested_schema
        .as_ref()
        .and_then(|schema| schema.get("properties"))
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
}

/// The question on one line, ending in what to type.
pub fn prompt(call: &str, question: &ServerQuestion) -> String {
    match question.mode {
        QuestionMode::Url => format!(
            "{call} asks: {}\n  open {}\n  then Enter / [d]ecline / [c]ancel: ",
            question.message,
            question.url.as_deref().unwrap_or_default()
        ),
        QuestionMode::Form => {
            let fields: Vec<String> = properties(question)
                .map(|(name, field)| {
                    let kind = field.get("type").and_then(Value::as_str).unwrap_or("value");
                    match field.get("default") {
                        Some(default) => format!("{name} ({kind}, default {default})"),
                        None => format!("{name} ({kind})"),
                    }
                })
                .collect();
            format!(
                "{call} asks: {}\n  fields: {}\n  JSON object (Enter: the defaults) / [d]ecline / [c]ancel: ",
                question.message,
                fields.join(", ")
            )
        }
        QuestionMode::Sampling => sampling_prompt(call, question),
    }
}

/// A sampling request (its messages, the model, the cap) or the model's answer to it.
fn sampling_prompt(call: &str, question: &ServerQuestion) -> String {
    let Some(review) = &question.sampling else {
        return format!("{call} asks the model something unreadable: [d]ecline: ");
    };
    match review.stage {
        SamplingStage::Request => {
            let mut shown = format!(
                "{call} asks the model {} (at most {} tokens):\n",
                review.model, review.max_tokens
            );
            if let Some(system) = &review.system_prompt {
                shown.push_str(&format!("  system: {system}\n"));
            }
            for message in &review.messages {
                shown.push_str(&format!("  {}: {}\n", message.role, message.text));
            }
            shown.push_str("  send it to the model? Enter / [n]o / [c]ancel: ");
            shown
        }
        SamplingStage::Answer => format!(
            "{} answered {call}:\n  {}\n  return it to the server? Enter / [n]o / [c]ancel: ",
            review.model,
            review.answer.as_deref().unwrap_or_default()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn form() -> ServerQuestion {
        ServerQuestion {
            id: "q".into(),
            mode: QuestionMode::Form,
            message: "Who are you?".into(),
            requested_schema: Some(json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "color": {"type": "string", "default": "blue"},
                },
            })),
            url: None,
            sampling: None,
            answer: None,
        }
    }

    #[test]
    fn a_form_is_answered_with_json_over_the_defaults() {
        let question = form();
        let Reply::Accept(fields) = Reply::parse(&question, r#"{"name": "Ada"}"#).unwrap() else {
            panic!("accepted");
        };
        assert_eq!(
            Value::Object(fields),
            json!({"name": "Ada", "color": "blue"})
        );
        assert_eq!(
            Reply::parse(&question, "").unwrap(),
            Reply::Accept(json!({"color": "blue"}).as_object().unwrap().clone())
        );
        assert_eq!(Reply::parse(&question, "d").unwrap(), Reply::Decline);
        assert_eq!(Reply::parse(&question, "C").unwrap(), Reply::Cancel);
        assert!(Reply::parse(&question, "Ada").is_err());
        let shown = prompt("srv/tool", &question);
        assert!(
            shown.contains("Who are you?") && shown.contains("color (string, default \"blue\")")
        );
    }

    #[test]
    fn a_url_is_answered_with_enter_once_done() {
        let question = ServerQuestion {
            mode: QuestionMode::Url,
            requested_schema: None,
            url: Some("https://example.com/connect".into()),
            ..form()
        };
        assert_eq!(
            Reply::parse(&question, "").unwrap(),
            Reply::Accept(Map::new())
        );
        assert!(Reply::parse(&question, "{}").is_err());
        assert!(prompt("s/t", &question).contains("https://example.com/connect"));
    }

    #[test]
    fn a_sampling_review_goes_on_with_enter_and_is_rejected_with_n() {
        let question = ServerQuestion {
            id: "s".into(),
            mode: QuestionMode::Sampling,
            message: String::new(),
            requested_schema: None,
            url: None,
            sampling: Some(switchboard_core::SamplingReview {
                stage: SamplingStage::Request,
                messages: vec![switchboard_core::SamplingText {
                    role: "user".into(),
                    text: "What is 2+2?".into(),
                }],
                system_prompt: Some("Be brief.".into()),
                max_tokens: 100,
                model: "m".into(),
                model_hints: Vec::new(),
                answer: None,
                auto: false,
            }),
            answer: None,
        };
        assert_eq!(Reply::parse(&question, ""), Ok(Reply::Accept(Map::new())));
        assert_eq!(Reply::parse(&question, "y"), Ok(Reply::Accept(Map::new())));
        assert_eq!(Reply::parse(&question, "n"), Ok(Reply::Decline));
        assert!(Reply::parse(&question, "maybe").is_err());
        let shown = prompt("everything__trigger-sampling-request", &question);
        assert!(shown.contains("user: What is 2+2?"), "{shown}");
        assert!(shown.contains("system: Be brief."), "{shown}");
        assert!(shown.contains("at most 100 tokens"), "{shown}");
    }
}
