//! One user message answered: the run, its events printed as they come, the approval
//! questions asked, and Ctrl-C.
//!
//! The run is polled in one `select!` with the event subscription, the input (only while a
//! question waits for its answer) and Ctrl-C, so the answer keeps streaming while a question
//! is open and a decision reaches the run as soon as it is typed. Calls waiting for a decision
//! are asked about one at a time, in the order they were recorded. Ctrl-C cancels the run and
//! the turn ends when the run has marked its unfinished calls cancelled.

use std::collections::{BTreeSet, VecDeque};
use std::io::Write;

use switchboard_agent::{Agent, AgentError, AgentEvent, OwnedEvent, RunOutcome, RunSpec};
use switchboard_core::{ServerId, ToolCallRecord, ToolCallStatus};
use switchboard_store::NewMessage;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio_util::sync::CancellationToken;

use super::error::ChatError;
use super::input::{Answer, Lines};
use super::interrupt::Interrupts;
use super::render::{self, Printer};
use super::words::Words;
use crate::cli::local::LocalServers;

/// A tool of a server: `(server id, tool name)`.
pub type ToolKey = (ServerId, String);

/// Everything one turn works with.
pub struct Turn<'a, W: Write> {
    pub agent: &'a Agent,
    pub servers: &'a LocalServers,
    pub conversation_id: &'a str,
    pub spec: &'a RunSpec,
    pub input: &'a mut Lines,
    pub interrupts: &'a mut Interrupts,
    pub printer: &'a mut Printer<W>,
    pub words: &'a Words,
    /// Whether a person is typing (a bad answer is asked again rather than an error).
    pub interactive: bool,
}

/// How a turn ended.
#[derive(Debug)]
pub struct TurnEnd {
    pub outcome: Result<RunOutcome, AgentError>,
    /// Ctrl-C cancelled the run.
    pub interrupted: bool,
    /// Tools answered with `always`, now on their server's auto-approve list.
    pub always: BTreeSet<ToolKey>,
}

/// A call waiting for a decision, or for the answer to its server's question (`asks`).
#[derive(Debug)]
struct Question {
    message_id: String,
    call: ToolCallRecord,
    /// The id of the server's question, when this is one rather than an approval.
    asks: Option<String>,
}

/// The questions of a turn.
#[derive(Debug, Default)]
struct Questions {
    queue: VecDeque<Question>,
    /// The one on screen, waiting for its answer.
    asking: Option<Question>,
    /// Every call asked about (or queued), so a later event for it does not ask again.
    seen: BTreeSet<String>,
    always: BTreeSet<ToolKey>,
}

impl<W: Write> Turn<'_, W> {
    /// Sends `message` and drives the run to its end. An error here ends the chat (the store
    /// failed, or a script answered a question with something else than y, n or a); the run's
    /// own failure is in [`TurnEnd::outcome`].
    pub async fn run(mut self, message: &NewMessage) -> anyhow::Result<TurnEnd> {
        let (agent, spec, servers) = (self.agent, self.spec, self.servers);
        let owner = servers.owner();
        let mut events = agent.events().subscribe();
        let cancel = CancellationToken::new();
        let send = agent.send_message(owner, self.conversation_id, message, spec, cancel.clone());
        tokio::pin!(send);

        let mut questions = Questions::default();
        let mut was_interrupted = false;
        let mut failure: Option<anyhow::Error> = None;
        let mut events_open = true;
        let outcome = loop {
            if !cancel.is_cancelled() {
                self.ask_next(&mut questions).await?;
            }
            tokio::select! {
                outcome = &mut send => break outcome,
                received = events.recv(), if events_open => match received {
                    Ok(event) => self.show(event, &mut questions),
                    Err(RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "the chat fell behind the run's events");
                    }
                    Err(RecvError::Closed) => events_open = false,
                },
                line = self.input.next(), if questions.asking.is_some() => {
                    if let Err(error) = self.answer(line, &mut questions).await {
                        failure = Some(error);
                        stop(&cancel, &mut questions);
                    }
                }
                // Read even after the first, so a second Ctrl-C while the run winds down is
                // not taken for one at the prompt.
                () = self.interrupts.next() => {
                    was_interrupted = true;
                    stop(&cancel, &mut questions);
                }
            }
        };
        // Everything the run announced was published before it returned.
        loop {
            match events.try_recv() {
                Ok(event) => self.show(event, &mut questions),
                Err(TryRecvError::Lagged(_)) => {}
                Err(TryRecvError::Empty | TryRecvError::Closed) => break,
            }
        }
        if let Some(error) = failure {
            return Err(error);
        }
        Ok(TurnEnd {
            outcome,
            interrupted: was_interrupted,
            always: questions.always,
        })
    }

    /// Prints an event of this conversation, and queues a question for a call that waits.
    fn show(&mut self, event: OwnedEvent, questions: &mut Questions) {
        if event.owner != *self.servers.owner() {
            return;
        }
        match event.event {
            // A turn started without some servers' tools says so (on stderr, with the other
            // notes) before its answer.
            AgentEvent::MessageCreated {
                conversation_id,
                message,
            } if conversation_id == self.conversation_id => {
                match switchboard_agent::left_out::left_out(&message) {
                    Ok(servers) => {
                        for server in &servers {
                            errln!("{}", self.words.left_out(server));
                        }
                    }
                    Err(error) => {
                        tracing::warn!(%error, "the turn's left-out servers could not be read");
                    }
                }
            }
            AgentEvent::MessageDelta {
                conversation_id,
                delta,
                ..
            } if conversation_id == self.conversation_id => self.printer.text(&delta),
            AgentEvent::ToolCallUpdated {
                conversation_id,
                message_id,
                tool_call,
            } if conversation_id == self.conversation_id => {
                self.printer.call(&tool_call);
                let waiting =
                    tool_call.status == ToolCallStatus::Pending && tool_call.approved.is_none();
                if waiting {
                    if questions.seen.insert(tool_call.id.clone()) {
                        questions.queue.push_back(Question {
                            message_id,
                            call: *tool_call,
                            asks: None,
                        });
                    }
                    return;
                }
                // A server's question during the call: asked once, like an approval.
                let asked = tool_call
                    .question
                    .as_ref()
                    .filter(|q| q.answer.is_none() && tool_call.status == ToolCallStatus::Invoking)
                    .map(|q| q.id.clone());
                if let Some(id) = asked {
                    if questions.seen.insert(format!("{}/{id}", tool_call.id)) {
                        questions.queue.push_back(Question {
                            message_id,
                            call: *tool_call,
                            asks: Some(id),
                        });
                    }
                    return;
                }
                questions.queue.retain(|q| q.call.id != tool_call.id);
                if questions
                    .asking
                    .as_ref()
                    .is_some_and(|q| q.call.id == tool_call.id)
                {
                    questions.asking = None;
                    errln!();
                }
            }
            _ => {}
        }
    }

    /// Puts the next question on screen, approving at once the calls of tools that were
    /// answered `always` meanwhile.
    async fn ask_next(&mut self, questions: &mut Questions) -> anyhow::Result<()> {
        while questions.asking.is_none() {
            let Some(question) = questions.queue.pop_front() else {
                return Ok(());
            };
            if question.asks.is_none() && questions.always.contains(&key(&question.call)) {
                self.decide(&question, true).await?;
                continue;
            }
            prompt(&question);
            questions.asking = Some(question);
        }
        Ok(())
    }

    /// Applies the answer `line` to the question on screen. The end of the input rejects the
    /// call.
    async fn answer(
        &mut self,
        line: Option<Result<String, ChatError>>,
        questions: &mut Questions,
    ) -> anyhow::Result<()> {
        let Some(question) = questions.asking.take() else {
            return Ok(());
        };
        let Some(line) = line else {
            if question.asks.is_some() {
                errln!("(end of input: declined)");
                let declined = super::questions::Reply::Decline.answer();
                return self.reply(&question, declined).await;
            }
            errln!("(end of input: rejected)");
            return self.decide(&question, false).await;
        };
        let line = line?;
        if !self.interactive {
            // The terminal echoes what a person types; a script's answer is shown here.
            errln!("{line}");
        }
        if let Some(asked) = question
            .call
            .question
            .as_ref()
            .filter(|_| question.asks.is_some())
        {
            return match super::questions::Reply::parse(asked, &line) {
                Ok(reply) => self.reply(&question, reply.answer()).await,
                Err(why) if self.interactive => {
                    errln!("{why}");
                    prompt(&question);
                    questions.asking = Some(question);
                    Ok(())
                }
                Err(why) => Err(ChatError::BadAnswer(format!("{line} ({why})")).into()),
            };
        }
        match Answer::parse(&line) {
            Some(Answer::Yes) => self.decide(&question, true).await,
            Some(Answer::No) => self.decide(&question, false).await,
            Some(Answer::Always) => {
                let call = &question.call;
                self.servers
                    .auto_approve(&call.server_id, &call.tool_name)
                    .await?;
                questions.always.insert(key(call));
                self.decide(&question, true).await
            }
            None if self.interactive => {
                prompt(&question);
                questions.asking = Some(question);
                Ok(())
            }
            None => Err(ChatError::BadAnswer(line).into()),
        }
    }

    /// Records the answer to a server's question; one no longer waiting is left as it is.
    async fn reply(
        &self,
        question: &Question,
        answer: switchboard_core::QuestionAnswer,
    ) -> anyhow::Result<()> {
        let Some(id) = &question.asks else {
            return Ok(());
        };
        let owner = self.servers.owner();
        match (self.agent)
            .answer(owner, &question.message_id, &question.call.id, id, answer)
            .await
        {
            Ok(_) | Err(AgentError::NoQuestion { .. }) => Ok(()),
            Err(error) => Err(error.into()),
        }
    }

    /// Records a decision; a call that no longer waits for one is left as it is.
    async fn decide(&self, question: &Question, approved: bool) -> anyhow::Result<()> {
        let owner = self.servers.owner();
        match (self.agent)
            .decide(owner, &question.message_id, &question.call.id, approved)
            .await
        {
            Ok(_) | Err(AgentError::NotPending { .. }) => Ok(()),
            Err(error) => Err(error.into()),
        }
    }
}

/// Cancels the run and forgets the questions (the run marks their calls cancelled).
fn stop(cancel: &CancellationToken, questions: &mut Questions) {
    cancel.cancel();
    questions.queue.clear();
    if questions.asking.take().is_some() {
        errln!();
    }
}

fn key(call: &ToolCallRecord) -> ToolKey {
    (call.server_id.clone(), call.tool_name.clone())
}

/// `Approve demo/calculate {"expression":"6*7"}? [y]es / [n]o / [a]lways: ` on stderr, or
/// the server's question.
fn prompt(question: &Question) {
    let call = &question.call;
    match call.question.as_ref().filter(|_| question.asks.is_some()) {
        Some(asked) => err!("{}", super::questions::prompt(&render::label(call), asked)),
        None => err!(
            "Approve {} {}? [y]es / [n]o / [a]lways: ",
            render::label(call),
            render::arguments(call)
        ),
    }
    let _ = std::io::stderr().flush();
}
