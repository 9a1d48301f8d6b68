//! `[gateway]` settings.

use serde::{Deserialize, Serialize};

/// How the gateway names and guards what it re-exports.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GatewayConfig {
    /// How a tool (and a prompt) of a server is named where a view gives no prefix:
    /// `{server}` and `{tool}` are replaced by the sanitized names.
    pub name_template: String,
    /// What happens to a call of a tool that is not auto-approved when the client cannot be
    /// asked (it did not declare elicitation).
    pub unapproved: Unapproved,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        Self {
            name_template: crate::naming::DEFAULT_TEMPLATE.to_owned(),
            unapproved: Unapproved::Refuse,
        }
    }
}

impl GatewayConfig {
    /// Whether the settings can be used: the name template must hold `{tool}` (else every
    /// tool of a server would get one name).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.name_template.contains("{tool}") {
            Ok(())
        } else {
            Err(ConfigError::TemplateWithoutTool(self.name_template.clone()))
        }
    }
}

/// Why `[gateway]` settings cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("gateway.name_template {0:?} must contain {{tool}}")]
    TemplateWithoutTool(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unapproved {
    /// Answer with a tool error saying the call needs approval.
    Refuse,
    /// Run it.
    Run,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_template_must_name_the_tool() {
        assert_eq!(GatewayConfig::default().validate(), Ok(()));
        let config = GatewayConfig {
            name_template: "{server}".into(),
            ..GatewayConfig::default()
        };
        assert_eq!(
            config.validate(),
            Err(ConfigError::TemplateWithoutTool("{server}".into()))
        );
    }
}
