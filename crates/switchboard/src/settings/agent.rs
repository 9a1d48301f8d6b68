//! `[agent]`: how far one run of the model may go (the agent's [`AgentConfig`]).

use switchboard_agent::AgentConfig;

use super::error::SettingsError;
use super::key::Key;
use super::layers::Layers;

const MAX_ROUNDS: Key = Key::new("agent", "max_rounds", "1000")
    .env("SWITCHBOARD_MAX_ROUNDS")
    .flag("--max-rounds");
const MAX_RESULT_CHARS: Key = Key::new("agent", "max_result_chars", "100000")
    .env("SWITCHBOARD_MAX_RESULT_CHARS")
    .flag("--max-result-chars");

const DEFER_ABOVE_TOOLS: Key = Key::new("agent", "defer_above_tools", "30")
    .env("SWITCHBOARD_DEFER_ABOVE_TOOLS")
    .flag("--defer-above-tools");
const DEFER_ABOVE_TOKENS: Key = Key::new("agent", "defer_above_tokens", "8000")
    .env("SWITCHBOARD_DEFER_ABOVE_TOKENS")
    .flag("--defer-above-tokens");
const RESULT_BUDGET_TOKENS: Key = Key::new("agent", "result_budget_tokens", "8000")
    .env("SWITCHBOARD_RESULT_BUDGET_TOKENS")
    .flag("--result-budget-tokens");

#[derive(Debug, Clone, Default, clap::Args)]
pub struct AgentFlags {
    /// No run makes more rounds of tool calls than this, whatever its assistant's own
    /// max_rounds (20 unless set) says [default: 1000].
    #[arg(long, value_name = "N")]
    pub max_rounds: Option<String>,
    /// The characters of one tool result the model sees, at most [default: 100000].
    #[arg(long, value_name = "N")]
    pub max_result_chars: Option<String>,
    /// An assistant whose tool exposure is `auto` is shown its pinned tools and a search
    /// instead of every tool past this many tools [default: 30].
    #[arg(long, value_name = "N")]
    pub defer_above_tools: Option<String>,
    /// ... or past this many tokens of tool definitions (estimated) [default: 8000].
    #[arg(long, value_name = "N")]
    pub defer_above_tokens: Option<String>,
    /// A tool result over this many tokens (estimated) reaches the model as a preview it
    /// reads on with read_result [default: 8000].
    #[arg(long, value_name = "N")]
    pub result_budget_tokens: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSettings {
    pub max_rounds: u32,
    pub max_result_chars: usize,
    pub defer_above_tools: usize,
    pub defer_above_tokens: usize,
    pub result_budget_tokens: usize,
}

impl AgentSettings {
    pub fn load(layers: &mut Layers<'_>, flags: &AgentFlags) -> Result<Self, SettingsError> {
        Ok(Self {
            max_rounds: layers.take(&MAX_ROUNDS, flags.max_rounds.as_slice())?,
            max_result_chars: layers.take(&MAX_RESULT_CHARS, flags.max_result_chars.as_slice())?,
            defer_above_tools: layers
                .take(&DEFER_ABOVE_TOOLS, flags.defer_above_tools.as_slice())?,
            defer_above_tokens: layers
                .take(&DEFER_ABOVE_TOKENS, flags.defer_above_tokens.as_slice())?,
            result_budget_tokens: layers
                .take(&RESULT_BUDGET_TOKENS, flags.result_budget_tokens.as_slice())?,
        })
    }

    pub fn agent_config(&self) -> AgentConfig {
        AgentConfig {
            max_rounds: self.max_rounds,
            max_result_chars: self.max_result_chars,
            defer: switchboard_agent::exposure::DeferBudget {
                tools: self.defer_above_tools,
                tokens: self.defer_above_tokens,
            },
            result_budget_tokens: self.result_budget_tokens,
            ..AgentConfig::default()
        }
    }
}
