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

#[derive(Debug, Clone, Default, clap::Args)]
pub struct AgentFlags {
    /// No run makes more rounds of tool calls than this, whatever its assistant's own
    /// max_rounds (20 unless set) says [default: 1000].
    #[arg(long, value_name = "N")]
    pub max_rounds: Option<String>,
    /// The characters of one tool result the model sees, at most [default: 100000].
    #[arg(long, value_name = "N")]
    pub max_result_chars: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentSettings {
    pub max_rounds: u32,
    pub max_result_chars: usize,
}

impl AgentSettings {
    pub fn load(layers: &mut Layers<'_>, flags: &AgentFlags) -> Result<Self, SettingsError> {
        Ok(Self {
            max_rounds: layers.take(&MAX_ROUNDS, flags.max_rounds.as_slice())?,
            max_result_chars: layers.take(&MAX_RESULT_CHARS, flags.max_result_chars.as_slice())?,
        })
    }

    pub fn agent_config(&self) -> AgentConfig {
        AgentConfig {
            max_rounds: self.max_rounds,
            max_result_chars: self.max_result_chars,
            ..AgentConfig::default()
        }
    }
}
