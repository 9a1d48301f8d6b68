//! End-to-end set-up: a SQLite store, a real connection manager, real MCP servers written by
//! others, and the scripted LLM reached through the production HTTP clients.

#![allow(dead_code, clippy::unwrap_used)]

use std::sync::Arc;

use switchboard_agent::{Agent, AgentConfig, ApprovalPolicy, RunSpec};
use switchboard_core::{OwnerId, ServerSpec};
use switchboard_llm::{
    AnthropicConfig, AnthropicProvider, OpenAiConfig, OpenAiProvider, Provider, RetryPolicy,
    WireFormat,
};
use switchboard_mcp::{ConnectionManager, ManagerConfig};
use switchboard_store::{NewConversation, Store, ToolMode};
use switchboard_testkit::{Peers, PyGen, ScriptedLlm, StdioCommand};

pub struct World {
    _dir: tempfile::TempDir,
    pub store: Arc<dyn Store>,
    pub owner: OwnerId,
    pub manager: Arc<ConnectionManager>,
    pub agent: Agent,
}

impl World {
    pub async fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let (store, owner) = super::fakes::local_store(dir.path()).await;
        let manager = Arc::new(ConnectionManager::new(ManagerConfig::default()));
        let agent = Agent::new(Arc::clone(&store), manager.clone(), AgentConfig::default());
        World {
            _dir: dir,
            store,
            owner,
            manager,
            agent,
        }
    }

    /// The same store and servers, a new agent and manager: what a restart leaves.
    pub fn restarted(&self) -> (Agent, Arc<ConnectionManager>) {
        let manager = Arc::new(ConnectionManager::new(ManagerConfig::default()));
        let agent = Agent::new(
            Arc::clone(&self.store),
            manager.clone(),
            AgentConfig::default(),
        );
        (agent, manager)
    }

    pub async fn conversation(&self) -> String {
        self.store
            .create_conversation(&self.owner, &NewConversation::default())
            .await
            .unwrap()
            .id
    }
}

fn spec_of(name: &str, command: StdioCommand, auto: &[&str]) -> ServerSpec {
    let mut spec = ServerSpec::stdio(name, command.program, command.args);
    for (key, value) in command.env {
        spec.env.insert(key, value);
    }
    spec.auto_approved_tools = auto.iter().map(|t| (*t).to_owned()).collect();
    spec
}

/// `@modelcontextprotocol/server-everything` over stdio, `auto` tools auto-approved.
pub fn everything(auto: &[&str]) -> ServerSpec {
    spec_of("everything", Peers::locate().everything_stdio(), auto)
}

/// A server on the official Python SDK (FastMCP, mcp 1.x).
pub fn python(auto: &[&str]) -> ServerSpec {
    spec_of("py", Peers::locate().python_stdio(PyGen::V1), auto)
}

pub fn provider(llm: &ScriptedLlm, wire: WireFormat) -> Arc<dyn Provider> {
    match wire {
        WireFormat::OpenAi => Arc::new(OpenAiProvider::new(
            OpenAiConfig::new(llm.openai_base_url())
                .with_api_key("sk-test")
                .with_retry(RetryPolicy::none()),
        )),
        WireFormat::Anthropic => Arc::new(AnthropicProvider::new(
            AnthropicConfig::new(llm.anthropic_base_url())
                .with_api_key("sk-ant-test")
                .with_retry(RetryPolicy::none()),
        )),
    }
}

pub fn run_spec(
    llm: &ScriptedLlm,
    wire: WireFormat,
    mode: ToolMode,
    servers: Vec<ServerSpec>,
    approval: ApprovalPolicy,
) -> RunSpec {
    RunSpec {
        provider: provider(llm, wire),
        model: "scripted".into(),
        system_prompt: "You are a test.".into(),
        tool_mode: mode,
        max_rounds: 20,
        servers,
        nodes: Vec::new(),
        variables: Vec::new(),
        approval,
        max_tokens: None,
        temperature: None,
        exposure: Default::default(),
    }
}

/// Every request body the model received, as text.
pub fn bodies(llm: &ScriptedLlm) -> Vec<String> {
    llm.requests().iter().map(|r| r.body.to_string()).collect()
}
