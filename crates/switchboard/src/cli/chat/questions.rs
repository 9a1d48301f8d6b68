//! A server's question during a call (MCP elicitation), asked at the terminal on one line:
//! a form's fields as a JSON object (Enter alone accepts the defaults the server gave), or
//! for a URL, Enter once done there; `d` declines, `c` cancels.

use serde_json::{Map, Value};
use switchboard_core::{QuestionAction, QuestionAnswer, QuestionMode, ServerQuestion};

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
}
