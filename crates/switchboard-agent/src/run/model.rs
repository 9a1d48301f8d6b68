//! One model round: ask, stream the answer into the turn's message, record the calls it asks
//! for.

use std::collections::HashSet;
use std::time::Instant;

use futures::StreamExt;
use serde_json::{Map, Value};
use switchboard_core::{ToolCallRecord, ToolCallStatus};
use switchboard_llm::{Assembler, ChatRequest};
use switchboard_store::{Message, MessageRole, NewMessage, ToolMode};

use super::Run;
use crate::error::AgentError;
use crate::events::AgentEvent;
use crate::history::replay;
use crate::mode::{FoundCall, read_result, search};
use crate::results::error_response;
use crate::turn::{ROUNDS_DONE_KEY, ROUNDS_KEY, before_round, round_texts, with_rounds};

impl Run<'_> {
    /// Returns the turn as its last write stored it, or `None` when the run was cancelled
    /// before the round ended.
    pub(super) async fn model_round(
        &self,
        history: &[Message],
        turn: Option<Message>,
        round: u32,
    ) -> Result<Option<Message>, AgentError> {
        let round_index = usize::try_from(round).unwrap_or(usize::MAX);
        let shown = turn
            .as_ref()
            .and_then(|turn| before_round(turn, round_index))
            .map(|shown| {
                let mut history = history.to_vec();
                if let Some(stored) = history.iter_mut().find(|m| m.id == shown.id) {
                    *stored = shown;
                }
                history
            });
        let asked = shown.as_deref().unwrap_or(history);
        let (tools, system) = self.offered_now(asked);
        let request = ChatRequest {
            model: self.spec.model.clone(),
            system,
            messages: replay(
                asked,
                &self.mode,
                self.agent.config.max_result_chars,
                self.agent.config.result_budget_chars(),
            ),
            tools,
            max_tokens: self.spec.max_tokens,
            temperature: self.spec.temperature,
        };
        let turn = match turn {
            Some(turn) => turn,
            None => self.start_turn().await?,
        };
        let mut rounds = round_texts(&turn);
        rounds.truncate(round_index);
        rounds.push(String::new());

        let mut events = tokio::select! {
            events = self.spec.provider.stream(&request) => events?,
            () = self.cancel.cancelled() => return Ok(None),
        };
        let mut assembler = Assembler::default();
        let mut pending = String::new();
        let mut last_flush = Instant::now();
        loop {
            let event = tokio::select! {
                event = events.next() => event,
                () = self.cancel.cancelled() => {
                    self.flush(&turn, &rounds, &mut pending).await?;
                    return Ok(None);
                }
            };
            let Some(event) = event else { break };
            let mut event = match event {
                Ok(event) => event,
                Err(error) => {
                    // What the model said before its answer broke off stays, with the failure.
                    self.flush(&turn, &rounds, &mut pending).await?;
                    return Err(error.into());
                }
            };
            if let switchboard_llm::StreamEvent::TextDelta { text } = &mut event {
                // Stored text never holds NUL (the store refuses it); a model that writes one
                // loses that character, not its answer.
                if text.contains('\0') {
                    text.retain(|c| c != '\0');
                }
                if let Some(current) = rounds.last_mut() {
                    current.push_str(text);
                }
                pending.push_str(text);
                if pending.len() >= self.agent.config.flush_chars
                    || last_flush.elapsed() >= self.agent.config.flush_interval
                {
                    self.flush(&turn, &rounds, &mut pending).await?;
                    last_flush = Instant::now();
                }
            }
            assembler.push(event);
        }
        let answer = assembler.finish()?;
        let found = self.mode.found_calls(&answer, &self.offer, round);
        // Last, the round is marked complete (even without text), in the same write as its
        // calls: a round cut off before this point is asked again on resume.
        let done = u32::try_from(rounds.len()).unwrap_or(u32::MAX);
        if found.is_empty() {
            return Ok(Some(
                self.save(&turn, &rounds, Some(done), &mut pending).await?,
            ));
        }
        let mut taken: HashSet<String> = turn.tool_calls.iter().map(|c| c.id.clone()).collect();
        let mut records: Vec<ToolCallRecord> = Vec::with_capacity(found.len());
        for f in found {
            let search = self.deferred.then(|| search::search_call(&f)).flatten();
            let read = read_result::read_call(&f);
            let mut record = match (search, read) {
                (Some(search), _) => self.search_record(f, &search, round).await,
                (None, Some(read)) => {
                    let page = self.agent.config.result_budget_chars() / 2;
                    let response = read_result::answer(asked, &read, page.max(1));
                    own_record(f, read_result::NAME, response, round)
                }
                (None, None) => self.record(f, round),
            };
            // Providers may reuse ids across responses (an OpenAI-compatible server
            // without ids gets `call_0` every time); ids must be unique in the turn.
            if !taken.insert(record.id.clone()) {
                record.id = format!("r{round}_{}", record.id);
                taken.insert(record.id.clone());
            }
            records.push(record);
        }
        self.resolve_for_approval(&mut records).await;
        let (content, metadata) = round_content(&turn, &rounds, Some(done));
        let stored = self
            .agent
            .store
            .add_tool_calls_with_content(self.owner, &turn.id, &records, &content, &metadata)
            .await?;
        self.announce_text(&turn, &mut pending);
        for call in stored.tool_calls.iter().filter(|c| c.round == round) {
            self.announce_call(&turn.id, call.clone());
        }
        Ok(Some(stored))
    }

    async fn start_turn(&self) -> Result<Message, AgentError> {
        let mut new = NewMessage::text(MessageRole::Assistant, "");
        new.metadata
            .insert(ROUNDS_KEY.into(), Value::Array(Vec::new()));
        new.metadata.insert(ROUNDS_DONE_KEY.into(), Value::from(0));
        crate::left_out::record(&mut new.metadata, &self.offer.unavailable);
        let message = self
            .agent
            .store
            .append_message(self.owner, self.conversation_id, &new)
            .await?;
        self.agent.events.publish(
            self.owner,
            AgentEvent::MessageCreated {
                conversation_id: self.conversation_id.to_owned(),
                message: Box::new(message.clone()),
            },
        );
        Ok(message)
    }

    /// Stores the text so far, then announces what was added since the last flush.
    async fn flush(
        &self,
        turn: &Message,
        rounds: &[String],
        pending: &mut String,
    ) -> Result<(), AgentError> {
        if pending.is_empty() {
            return Ok(());
        }
        self.save(turn, rounds, None, pending).await?;
        Ok(())
    }

    /// Stores the rounds' text (and how many rounds are complete, when given), then announces
    /// `pending` (if any) as a delta. Returns the turn as stored.
    async fn save(
        &self,
        turn: &Message,
        rounds: &[String],
        done: Option<u32>,
        pending: &mut String,
    ) -> Result<Message, AgentError> {
        let (content, metadata) = round_content(turn, rounds, done);
        let stored = self
            .agent
            .store
            .set_message_content(self.owner, &turn.id, &content, Some(&metadata))
            .await?;
        self.announce_text(turn, pending);
        Ok(stored)
    }

    /// Announces `pending` (if any) as a delta of the turn's text.
    fn announce_text(&self, turn: &Message, pending: &mut String) {
        if pending.is_empty() {
            return;
        }
        self.agent.events.publish(
            self.owner,
            AgentEvent::MessageDelta {
                conversation_id: self.conversation_id.to_owned(),
                message_id: turn.id.clone(),
                delta: std::mem::take(pending),
            },
        );
    }

    /// The record of a search the model made, answered at once: it needs no approval and no
    /// server, and what it found is offered from the next round on.
    async fn search_record(
        &self,
        found: FoundCall,
        search: &search::SearchCall,
        round: u32,
    ) -> ToolCallRecord {
        let tools = self
            .agent
            .search
            .search(self.owner, &self.offer, &search.query, search.limit)
            .await;
        let response = search::result(self.mode.kind, &search.query, &tools, &self.offer);
        own_record(found, search::NAME, response, round)
    }

    /// The record of a call the model asked for: an error at once when it cannot be made
    /// (unknown tool, arguments that do not fit the schema), else pending with its approval
    /// settled where the rules settle it.
    fn record(&self, found: FoundCall, round: u32) -> ToolCallRecord {
        let display_name = match (&self.mode.kind, &found.target) {
            (ToolMode::Prompt | ToolMode::Meta, Ok(tool)) => tool.display_name.clone(),
            _ => found.called_as.clone(),
        };
        let mut record = ToolCallRecord {
            id: found.id,
            server_id: switchboard_core::ServerId(String::new()),
            server_name: found.server_name,
            tool_name: found.tool_name,
            display_name,
            arguments: found.arguments,
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
        };
        let tool = match found.target {
            Ok(tool) => tool,
            Err(problem) => {
                record.status = ToolCallStatus::Error;
                record.response = Some(error_response(problem.code, &problem.message));
                record.is_error = Some(true);
                return record;
            }
        };
        record.server_id = tool.server.id.clone();
        record.server_name = tool.server.name.clone();
        // The schema the model saw: a parameter its node maps is filled in at call time (and
        // the resolved arguments are checked against the full schema then).
        let schema = Value::Object(tool.schema.clone());
        if let Err(e) = switchboard_schema::validate::validate_arguments(
            &schema,
            &Value::Object(record.arguments.clone()),
        ) {
            record.status = ToolCallStatus::Error;
            record.response = Some(error_response(e.code(), &e.to_string()));
            record.is_error = Some(true);
            return record;
        }
        record.approved =
            crate::approval::needed(&tool.server, &tool.tool.name, self.spec.approval).decision();
        record
    }
}

/// The record of a call Switchboard answered itself (`search_tools`, `read_result`): done at
/// once, on no server, needing no approval.
fn own_record(found: FoundCall, tool: &str, response: Value, round: u32) -> ToolCallRecord {
    let is_error = response.get("isError").and_then(Value::as_bool) == Some(true);
    ToolCallRecord {
        id: found.id,
        server_id: switchboard_core::ServerId(String::new()),
        server_name: search::SERVER.into(),
        tool_name: tool.into(),
        display_name: found.called_as,
        arguments: found.arguments,
        status: ToolCallStatus::Done,
        response: Some(response),
        is_error: Some(is_error),
        round,
        approved: Some(true),
        question: None,
        pending_input: None,
        task: None,
        resolved_arguments: None,
        mapped_parameters: Default::default(),
    }
}

/// The turn's content and metadata with `rounds` (and `done`, when given).
fn round_content(
    turn: &Message,
    rounds: &[String],
    done: Option<u32>,
) -> (String, Map<String, Value>) {
    let (content, mut metadata) = with_rounds(turn, rounds);
    if let Some(done) = done {
        metadata.insert(ROUNDS_DONE_KEY.into(), Value::from(done));
    }
    (content, metadata)
}
