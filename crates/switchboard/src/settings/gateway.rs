//! `[gateway]`: the MCP gateway (`/mcp`, `switchboard mcp --stdio`): how re-exported
//! tools are named, what happens to a tool that needs approval when the client cannot be asked,
//! and how long an idle session of `/mcp` lives.

use std::time::Duration;

use switchboard_gateway::{GatewayConfig, Unapproved};

use super::error::SettingsError;
use super::key::Key;
use super::layers::Layers;
use super::value::{SettingValue, quoted};

const NAME_TEMPLATE: Key = Key::new("gateway", "name_template", "mcp__{server}__{tool}")
    .env("SWITCHBOARD_GATEWAY_NAME_TEMPLATE")
    .flag("--gateway-name-template");
const UNAPPROVED: Key = Key::new("gateway", "unapproved", "refuse")
    .env("SWITCHBOARD_GATEWAY_UNAPPROVED")
    .flag("--gateway-unapproved");
const SESSION_IDLE_TIMEOUT: Key = Key::new("gateway", "session_idle_timeout", "30m")
    .env("SWITCHBOARD_GATEWAY_SESSION_IDLE_TIMEOUT")
    .flag("--gateway-session-idle-timeout");

#[derive(Debug, Clone, Default, clap::Args)]
pub struct GatewayFlags {
    /// How the gateway names a server's tool where a view gives no prefix; `{server}` and
    /// `{tool}` are replaced [default: mcp__{server}__{tool}].
    #[arg(long, value_name = "TEMPLATE")]
    pub gateway_name_template: Option<String>,
    /// A call through the gateway of a tool that is not auto-approved, when the client cannot
    /// be asked (no elicitation): `refuse` it with a tool error, or `run` it [default: refuse].
    #[arg(long, value_name = "refuse|run")]
    pub gateway_unapproved: Option<String>,
    /// An MCP session of `/mcp` without a request for this long is closed [default: 30m].
    #[arg(long, value_name = "DURATION")]
    pub gateway_session_idle_timeout: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GatewaySettings {
    pub name_template: NameTemplate,
    pub unapproved: Unapproved,
    pub session_idle_timeout: Duration,
}

impl GatewaySettings {
    pub fn load(layers: &mut Layers<'_>, flags: &GatewayFlags) -> Result<Self, SettingsError> {
        Ok(Self {
            name_template: layers.take(&NAME_TEMPLATE, flags.gateway_name_template.as_slice())?,
            unapproved: layers.take(&UNAPPROVED, flags.gateway_unapproved.as_slice())?,
            session_idle_timeout: layers.take(
                &SESSION_IDLE_TIMEOUT,
                flags.gateway_session_idle_timeout.as_slice(),
            )?,
        })
    }

    /// The gateway's own configuration.
    pub fn gateway_config(&self) -> GatewayConfig {
        GatewayConfig {
            name_template: self.name_template.0.clone(),
            unapproved: self.unapproved,
        }
    }
}

/// A tool name template: it must place the tool's name, or every tool of a server would be
/// exported under one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameTemplate(pub String);

impl SettingValue for NameTemplate {
    const EXPECTED: &'static str = "a template containing {tool}, such as \"{server}_{tool}\"";

    fn from_text(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.contains("{tool}") {
            Ok(Self(text.to_owned()))
        } else {
            Err(format!("`{text}` does not contain {{tool}}"))
        }
    }

    fn to_toml(&self) -> String {
        quoted(&self.0)
    }
}

impl SettingValue for Unapproved {
    const EXPECTED: &'static str = "\"refuse\" or \"run\"";

    fn from_text(text: &str) -> Result<Self, String> {
        match text.trim() {
            "refuse" => Ok(Unapproved::Refuse),
            "run" => Ok(Unapproved::Run),
            other => Err(format!("`{other}`")),
        }
    }

    fn to_toml(&self) -> String {
        quoted(match self {
            Unapproved::Refuse => "refuse",
            Unapproved::Run => "run",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_must_place_the_tool() {
        assert_eq!(
            NameTemplate::from_text("{server}_{tool}").unwrap().0,
            "{server}_{tool}"
        );
        assert!(NameTemplate::from_text("{server}").is_err());
    }

    #[test]
    fn unapproved_reads_refuse_or_run() {
        assert_eq!(Unapproved::from_text("run").unwrap(), Unapproved::Run);
        assert_eq!(
            Unapproved::from_text(" refuse ").unwrap(),
            Unapproved::Refuse
        );
        assert!(Unapproved::from_text("ask").is_err());
        assert_eq!(Unapproved::Run.to_toml(), "\"run\"");
    }
}
