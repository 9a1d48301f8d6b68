//! `[providers]`: where model servers on this machine are looked for when a person asks
//! (the providers page's offer on first start): the ports of 127.0.0.1 asked.

use switchboard_app::config::LocalPorts;

use super::error::SettingsError;
use super::key::Key;
use super::layers::Layers;
use super::value::SettingValue;
use super::value::a_kind;

const LOCAL_PORTS: Key = Key::new("providers", "local_ports", "11434, 1234, 8080, 8000")
    .env("SWITCHBOARD_LOCAL_PROVIDER_PORTS")
    .flag("--local-provider-port");

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ProviderFlags {
    /// A port of 127.0.0.1 where a model server is looked for when a person asks (repeat
    /// for more) [default: 11434 (Ollama), 1234 (LM Studio), 8080 (llama.cpp), 8000 (vLLM)].
    #[arg(
        long = "local-provider-port",
        value_name = "PORT",
        value_delimiter = ','
    )]
    pub local_provider_ports: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderSettings {
    pub local_ports: Ports,
}

impl ProviderSettings {
    pub fn load(layers: &mut Layers<'_>, flags: &ProviderFlags) -> Result<Self, SettingsError> {
        Ok(Self {
            local_ports: layers.take(&LOCAL_PORTS, &flags.local_provider_ports)?,
        })
    }

    pub fn local_ports(&self) -> LocalPorts {
        LocalPorts(self.local_ports.0.clone())
    }
}

/// TCP ports, each once, in the order given: `[11434, 1234]` in the file (numbers or
/// strings), comma-separated elsewhere; an empty list looks nowhere.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ports(pub Vec<u16>);

impl Ports {
    fn from_entries<'a>(entries: impl Iterator<Item = &'a str>) -> Result<Self, String> {
        let mut ports = Vec::new();
        for entry in entries.map(str::trim).filter(|e| !e.is_empty()) {
            let port: u16 = entry
                .parse()
                .ok()
                .filter(|p| *p != 0)
                .ok_or_else(|| format!("`{entry}` is not a port"))?;
            if !ports.contains(&port) {
                ports.push(port);
            }
        }
        Ok(Self(ports))
    }
}

impl SettingValue for Ports {
    const EXPECTED: &'static str = "a list of ports from 1 to 65535, such as [11434, 1234]";

    fn from_text(text: &str) -> Result<Self, String> {
        Self::from_entries(text.split(','))
    }

    fn from_flags(given: &[String]) -> Result<Self, String> {
        Self::from_entries(given.iter().map(String::as_str))
    }

    fn from_toml(value: &toml::Value) -> Result<Self, String> {
        match value {
            toml::Value::Array(entries) => {
                let texts = entries
                    .iter()
                    .map(|entry| match entry {
                        toml::Value::Integer(n) => Ok(n.to_string()),
                        toml::Value::String(text) => Ok(text.clone()),
                        other => Err(format!("{} in the list", a_kind(other))),
                    })
                    .collect::<Result<Vec<String>, String>>()?;
                Self::from_entries(texts.iter().map(String::as_str))
            }
            toml::Value::String(text) => Self::from_text(text),
            other => Err(format!("{} is not a list", a_kind(other))),
        }
    }

    fn to_toml(&self) -> String {
        let ports: Vec<String> = self.0.iter().map(u16::to_string).collect();
        format!("[{}]", ports.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_read_alike_from_every_layer() {
        let text = Ports::from_text("11434, 1234,,11434").unwrap();
        assert_eq!(text, Ports(vec![11434, 1234]));
        let file = toml::Value::Array(vec![
            toml::Value::Integer(11434),
            toml::Value::String("1234".into()),
        ]);
        assert_eq!(Ports::from_toml(&file).unwrap(), text);
        assert_eq!(text.to_toml(), "[11434, 1234]");
        assert_eq!(Ports::from_text("").unwrap(), Ports(Vec::new()));
        for bad in ["0", "65536", "x", "-1"] {
            assert!(Ports::from_text(bad).is_err(), "{bad}");
        }
        assert!(Ports::from_toml(&toml::Value::Array(vec![toml::Value::Integer(70000)])).is_err());
    }
}
