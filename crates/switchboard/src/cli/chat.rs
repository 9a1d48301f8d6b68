//! `switchboard chat`: a conversation with a model that uses the configured MCP servers'
//! tools, in the terminal or from a script.
//!
//! On a terminal it prompts with `> ` (on stderr), answers each message as it streams and asks
//! before a tool runs (`--approve ask`, the default there). When standard input is not a
//! terminal, each line of it is one user message, answered in turn, and the command exits 0
//! after the last; calls are rejected unless `--approve` says otherwise, and with
//! `--approve ask` the line after a message that led to a question answers it (`y`, `n`, `a`).
//! Every invocation is a new conversation in the store, titled after its first message.
//!
//! `/prompts`, `/resources`, `/attach SERVER URI` and `/SERVER:PROMPT NAME=VALUE ...` use what
//! the servers offer besides tools ([`commands`]), as the web page's composer does.
//!
//! The provider, model and servers are settled in [`setup`]; one message's run in [`turn`];
//! what is printed in [`render`]; the notices' words in [`words`]. Ctrl-C cancels the run: a person is back at the prompt, a
//! script exits non-zero. A run that fails prints its error code; a script then exits non-zero.

mod commands;
mod content;
mod error;
mod input;
mod interrupt;
mod questions;
mod render;
pub(super) mod setup;
mod turn;
mod words;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Args, ValueEnum};
use switchboard_agent::input::{AttachmentRef, PromptRef, UserInput};
use switchboard_agent::{Agent, ApprovalPolicy, StopReason};
use switchboard_mcp::ServerPool;
use switchboard_store::{NewConversation, ToolMode};

use commands::Line;
pub use error::ChatError;
use input::Lines;
use interrupt::Interrupts;
use render::Printer;
use setup::Setup;
use turn::{ToolKey, Turn};
use words::Words;

use super::local::LocalServers;
use super::{CliError, Context};
use crate::output;

#[derive(Debug, Args)]
pub struct ChatArgs {
    /// A stored assistant (by name or id): its provider, model, tool mode, rounds, system
    /// prompt and servers. The other options override them.
    #[arg(long, value_name = "NAME")]
    pub assistant: Option<String>,
    /// A stored provider (by name or id), or `openai` / `anthropic` for the one the
    /// environment describes (OPENAI_API_KEY / OPENAI_BASE_URL, ANTHROPIC_API_KEY /
    /// ANTHROPIC_BASE_URL). By default the first stored provider, else the environment's.
    #[arg(long, value_name = "NAME")]
    pub provider: Option<String>,
    /// The model; by default the provider's (OPENAI_MODEL / ANTHROPIC_MODEL for a provider
    /// from the environment).
    #[arg(long)]
    pub model: Option<String>,
    /// A server whose tools the model may use (by name or id; repeatable). By default the
    /// assistant's servers, else every enabled server.
    #[arg(long = "server", value_name = "NAME")]
    pub servers: Vec<String>,
    /// How tools are offered to the model.
    #[arg(long, value_enum, value_name = "MODE")]
    pub tool_mode: Option<ToolModeArg>,
    /// Tool calls not on their server's auto-approve list: ask, approve or reject them. By
    /// default `ask` on a terminal and `never` otherwise.
    #[arg(long, value_enum, value_name = "POLICY")]
    pub approve: Option<Approve>,
    /// The most rounds of tool calls for one message (default 20).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_rounds: Option<u32>,
    /// The system prompt.
    #[arg(long, value_name = "TEXT")]
    pub system: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ToolModeArg {
    /// One function per tool, through the provider's function calling.
    Native,
    /// Tools described in the system prompt, calls written as JSON blocks.
    Prompt,
    /// One `mcp_query` tool over every server.
    Meta,
}

impl From<ToolModeArg> for ToolMode {
    fn from(mode: ToolModeArg) -> ToolMode {
        match mode {
            ToolModeArg::Native => ToolMode::Native,
            ToolModeArg::Prompt => ToolMode::Prompt,
            ToolModeArg::Meta => ToolMode::Meta,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Approve {
    /// Ask for each call (on a terminal, or the next line of a script).
    Ask,
    /// Approve every call.
    Auto,
    /// Reject every call that is not auto-approved.
    Never,
}

pub async fn run(context: &Context, args: ChatArgs) -> anyhow::Result<ExitCode> {
    let interactive = std::io::stdin().is_terminal();
    let approval = match args.approve {
        Some(Approve::Ask) => ApprovalPolicy::Ask,
        Some(Approve::Auto) => ApprovalPolicy::ApproveAll,
        Some(Approve::Never) => ApprovalPolicy::RejectUnapproved,
        None if interactive => ApprovalPolicy::Ask,
        None => ApprovalPolicy::RejectUnapproved,
    };
    let servers = context.servers().await?;
    let env = |name: &str| std::env::var(name).ok();
    let setup = setup::resolve(&servers, &args, approval, &env).await?;
    for note in &setup.notes {
        errln!("note: {note}");
    }
    if interactive {
        let names: Vec<&str> = (setup.spec.servers.iter())
            .map(|spec| spec.name.as_str())
            .collect();
        let tools = match names.as_slice() {
            [] => "no tool servers".to_owned(),
            names => format!("tools of {}", names.join(", ")),
        };
        errln!(
            "chatting with {} ({tools}); /exit or Ctrl-D leaves",
            setup.description
        );
    }
    // The application's agent: `[agent]` from the settings file and the environment, its
    // calls through the one tool-call service, servers with a node run on it.
    let app = Arc::clone(servers.app());
    let mut chat = Chat {
        agent: app.agent.clone(),
        servers,
        setup,
        input: Lines::stdin(),
        interrupts: Interrupts::listen(),
        printer: Printer::new(std::io::stdout()),
        words: Words::from_env(&env),
        interactive,
        conversation_id: None,
        pool: Arc::clone(&app.pool),
        attached: Vec::new(),
    };
    let result = chat.run().await;
    // The calls' audit records are written out, every server the chat started ends, and the
    // store is closed.
    app.shutdown(std::time::Duration::ZERO).await;
    result
}

/// One chat: a conversation, its settings, and the terminal or script it talks to.
struct Chat<W: Write> {
    agent: Agent,
    servers: LocalServers,
    setup: Setup,
    input: Lines,
    interrupts: Interrupts,
    printer: Printer<W>,
    /// The notices' words, in the terminal's language.
    words: Words,
    interactive: bool,
    /// Created with the first message.
    conversation_id: Option<String>,
    /// Where resources are read and prompts fetched.
    pool: Arc<dyn ServerPool>,
    /// Resources `/attach`ed to the next message.
    attached: Vec<AttachmentRef>,
}

impl<W: Write> Chat<W> {
    async fn run(&mut self) -> anyhow::Result<ExitCode> {
        loop {
            if self.interactive {
                err!("> ");
                let _ = std::io::stderr().flush();
            }
            let line = tokio::select! {
                line = self.input.next() => line,
                () = self.interrupts.next() => {
                    if !self.interactive {
                        return Err(CliError::Interrupted.into());
                    }
                    errln!("\n(/exit or Ctrl-D leaves)");
                    continue;
                }
            };
            let Some(line) = line else {
                if self.interactive {
                    // Ctrl-D leaves the cursor after the prompt.
                    errln!();
                }
                break;
            };
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            match Line::parse(&line) {
                Line::Exit => break,
                Line::Message(text) => {
                    let input = UserInput {
                        text,
                        attachments: std::mem::take(&mut self.attached),
                        prompt: None,
                    };
                    self.turn(input).await?;
                }
                Line::Prompt {
                    server,
                    name,
                    arguments,
                    text,
                } => {
                    let Some(server_id) = self.server_id(&server)? else {
                        continue;
                    };
                    let input = UserInput {
                        text,
                        attachments: std::mem::take(&mut self.attached),
                        prompt: Some(PromptRef {
                            server_id,
                            name,
                            arguments,
                        }),
                    };
                    self.turn(input).await?;
                }
                Line::Attach { server, uri } => {
                    if let Some(server_id) = self.server_id(&server)? {
                        errln!("attached {uri} (it goes with your next message)");
                        self.attached.push(AttachmentRef { server_id, uri });
                    }
                }
                Line::Prompts => {
                    let listed = content::prompts(
                        self.pool.as_ref(),
                        self.servers.owner(),
                        &self.setup.spec.servers,
                    )
                    .await;
                    outln!("{listed}");
                }
                Line::Resources => {
                    let listed = content::resources(
                        self.pool.as_ref(),
                        self.servers.owner(),
                        &self.setup.spec.servers,
                    )
                    .await;
                    outln!("{listed}");
                }
                Line::Unknown(said) => self.refuse(said)?,
            }
        }
        Ok(ExitCode::SUCCESS)
    }

    /// The id of the chat's server named (or with the id) `name`; `None` after saying there
    /// is none (an error in a script).
    fn server_id(&self, name: &str) -> anyhow::Result<Option<switchboard_core::ServerId>> {
        let found = self
            .setup
            .spec
            .servers
            .iter()
            .find(|spec| spec.name == name || spec.id.0 == name)
            .map(|spec| spec.id.clone());
        if found.is_none() {
            self.refuse(format!(
                "this chat has no server {name:?} (its servers: {})",
                self.setup
                    .spec
                    .servers
                    .iter()
                    .map(|spec| spec.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ))?;
        }
        Ok(found)
    }

    /// Says why a line was not taken: a person reads it and goes on; a script fails.
    fn refuse(&self, said: String) -> anyhow::Result<()> {
        if self.interactive {
            errln!("{said}");
            Ok(())
        } else {
            Err(anyhow::anyhow!(said))
        }
    }

    /// Answers one message. A failed run is reported and the chat goes on, except in a
    /// script, where it (and Ctrl-C) ends the chat with an error.
    async fn turn(&mut self, input: UserInput) -> anyhow::Result<()> {
        let title = match &input.prompt {
            Some(prompt) if input.text.is_empty() => format!("/{}", prompt.name),
            _ => input.text.clone(),
        };
        let message = match switchboard_agent::input::compose(
            self.pool.as_ref(),
            self.servers.owner(),
            &self.setup.spec.servers,
            input,
        )
        .await
        {
            Ok(message) => message,
            Err(error) if self.interactive => {
                output::print_error(false, Some(error.code()), &error.to_string());
                return Ok(());
            }
            Err(error) => return Err(error.into()),
        };
        let conversation_id = self.conversation(&title).await?;
        let end = Turn {
            agent: &self.agent,
            servers: &self.servers,
            conversation_id: &conversation_id,
            spec: &self.setup.spec,
            input: &mut self.input,
            interrupts: &mut self.interrupts,
            printer: &mut self.printer,
            words: &self.words,
            interactive: self.interactive,
        }
        .run(&message)
        .await?;
        self.printer.end_turn();
        self.auto_approve(&end.always);
        match end.outcome {
            Ok(outcome) => match outcome.stop {
                StopReason::Answered => {}
                StopReason::MaxRounds => errln!(
                    "(stopped after {} rounds of tool calls; --max-rounds raises the limit)",
                    outcome.tool_rounds
                ),
                StopReason::Cancelled => errln!("(cancelled)"),
                // Tasks are not followed by the command line: its runs wait for them.
                StopReason::WaitingOnTasks => errln!("(waiting on a task)"),
            },
            Err(_) if end.interrupted => errln!("(cancelled)"),
            Err(error) if self.interactive => {
                output::print_error(false, Some(error.code()), &error.to_string());
            }
            Err(error) => return Err(error.into()),
        }
        if end.interrupted && !self.interactive {
            return Err(CliError::Interrupted.into());
        }
        Ok(())
    }

    /// The conversation, created with the first message as its title.
    async fn conversation(&mut self, first_message: &str) -> anyhow::Result<String> {
        if let Some(id) = &self.conversation_id {
            return Ok(id.clone());
        }
        let new = NewConversation {
            title: render::title(first_message),
            assistant_id: self.setup.assistant_id.clone(),
        };
        let store = self.servers.store();
        let created = store
            .create_conversation(self.servers.owner(), &new)
            .await?;
        self.conversation_id = Some(created.id.clone());
        Ok(created.id)
    }

    /// Later runs of this chat see the tools answered `always` as auto-approved, as the
    /// store now has them.
    fn auto_approve(&mut self, tools: &std::collections::BTreeSet<ToolKey>) {
        for (server_id, tool) in tools {
            for spec in &mut self.setup.spec.servers {
                if spec.id == *server_id {
                    spec.auto_approved_tools.insert(tool.clone());
                }
            }
        }
    }
}
