//! The chat's slash commands for what servers offer besides tools, as the web
//! page's composer has them:
//!
//! - `/prompts` lists the prompts of the chat's servers, `/resources` their resources and
//!   resource templates;
//! - `/attach SERVER URI` attaches a resource to the next message (its contents go to the model
//!   as context);
//! - `/SERVER:PROMPT [NAME=VALUE ...] [TEXT]` starts a turn with a server's prompt, its
//!   arguments given as `NAME=VALUE` words, anything after them sent as text too.
//!
//! `/exit` leaves; a line starting with `//` is sent with one slash less.

use serde_json::{Map, Value};

/// A line, read as what it asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    /// A message to send (its text).
    Message(String),
    Exit,
    Prompts,
    Resources,
    Attach {
        server: String,
        uri: String,
    },
    Prompt {
        server: String,
        name: String,
        arguments: Map<String, Value>,
        text: String,
    },
    /// A command this chat does not know, or one written wrong: what to say.
    Unknown(String),
}

const HELP: &str = "commands: /prompts, /resources, /attach SERVER URI, \
                    /SERVER:PROMPT [NAME=VALUE ...] [TEXT], /exit (// sends a line starting with /)";

impl Line {
    pub fn parse(line: &str) -> Line {
        let line = line.trim();
        if let Some(literal) = line.strip_prefix("//") {
            return Line::Message(format!("/{literal}"));
        }
        let Some(command) = line.strip_prefix('/') else {
            return Line::Message(line.to_owned());
        };
        let (head, rest) = command
            .split_once(char::is_whitespace)
            .map_or((command, ""), |(head, rest)| (head, rest.trim()));
        match head {
            "exit" => Line::Exit,
            "prompts" => Line::Prompts,
            "resources" => Line::Resources,
            "attach" => match rest.split_once(char::is_whitespace) {
                Some((server, uri)) if !uri.trim().is_empty() => Line::Attach {
                    server: server.to_owned(),
                    uri: uri.trim().to_owned(),
                },
                _ => Line::Unknown("usage: /attach SERVER URI (see /resources)".into()),
            },
            _ => match head.split_once(':') {
                Some((server, name)) if !server.is_empty() && !name.is_empty() => {
                    let (arguments, text) = arguments_and_text(rest);
                    Line::Prompt {
                        server: server.to_owned(),
                        name: name.to_owned(),
                        arguments,
                        text,
                    }
                }
                _ => Line::Unknown(format!("unknown command /{head}; {HELP}")),
            },
        }
    }
}

/// The leading `NAME=VALUE` words as arguments, and the rest as text.
fn arguments_and_text(rest: &str) -> (Map<String, Value>, String) {
    let mut arguments = Map::new();
    let mut remaining = rest;
    loop {
        let word_end = remaining
            .find(char::is_whitespace)
            .unwrap_or(remaining.len());
        let word = &remaining[..word_end];
        match word.split_once('=') {
            Some((name, value)) if !name.is_empty() => {
                arguments.insert(name.to_owned(), Value::String(value.to_owned()));
                remaining = remaining[word_end..].trim_start();
            }
            _ => return (arguments, remaining.to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_messages_unless_they_are_commands() {
        assert_eq!(Line::parse("hello"), Line::Message("hello".into()));
        assert_eq!(
            Line::parse("//etc/hosts"),
            Line::Message("/etc/hosts".into())
        );
        assert_eq!(Line::parse("/exit"), Line::Exit);
        assert_eq!(Line::parse("/prompts"), Line::Prompts);
        assert_eq!(Line::parse(" /resources "), Line::Resources);
        assert!(matches!(Line::parse("/nonsense"), Line::Unknown(_)));
    }

    #[test]
    fn attach_names_a_server_and_a_uri() {
        assert_eq!(
            Line::parse("/attach everything demo://resource/dynamic/text/3"),
            Line::Attach {
                server: "everything".into(),
                uri: "demo://resource/dynamic/text/3".into()
            }
        );
        assert!(matches!(
            Line::parse("/attach everything"),
            Line::Unknown(_)
        ));
    }

    #[test]
    fn a_prompt_takes_name_value_words_then_text() {
        let Line::Prompt {
            server,
            name,
            arguments,
            text,
        } = Line::parse("/everything:args-prompt city=Lisbon state=PT in French please")
        else {
            panic!("not a prompt");
        };
        assert_eq!(
            (server.as_str(), name.as_str()),
            ("everything", "args-prompt")
        );
        assert_eq!(
            Value::Object(arguments),
            serde_json::json!({"city": "Lisbon", "state": "PT"})
        );
        assert_eq!(text, "in French please");
        assert_eq!(
            Line::parse("/s:p"),
            Line::Prompt {
                server: "s".into(),
                name: "p".into(),
                arguments: Map::new(),
                text: String::new()
            }
        );
    }
}
