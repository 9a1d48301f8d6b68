//! `[nodes.NAME]`: the MCP nodes this host sends servers to. Each table is one
//! node; a server's `node` names it.
//!
//! ```toml
//! [nodes.build-box]
//! url = "https://build-box.internal:7443"
//! token_file = "/etc/switchboard/build-box.token"   # or token = "…"
//! ca = "/etc/switchboard/nodes-ca.pem"
//! client_cert = "/etc/switchboard/host.pem"          # optional, with client_key (mTLS)
//! client_key = "/etc/switchboard/host-key.pem"
//! allow_plaintext = false
//! ```
//!
//! Only the file declares nodes (their names are the user's, so no environment variable or
//! flag could). The files named here are read at load time, relative paths from the settings
//! file's directory, so a missing certificate stops `serve` with the key and file that are
//! wrong instead of failing each call later. The token never reaches `config show`, a log or
//! an error. An `http://` URL sends the token in clear: refused unless the host is a loopback
//! address or the table says `allow_plaintext = true`.

use std::net::IpAddr;
use std::path::{Path, PathBuf};

use switchboard_grpc::NodeConfig;

use super::error::SettingsError;
use super::layers::Layers;
use super::value::a_kind;
use super::value::quoted;

const SECTION: &str = "nodes";

/// Every `[nodes.NAME]` of the file, in name order.
pub fn load(layers: &mut Layers<'_>) -> Result<Vec<NodeConfig>, SettingsError> {
    layers
        .tables_in(SECTION)
        .into_iter()
        .map(|name| load_one(layers, name))
        .collect()
}

/// One node's keys; what is left in its table is reported as unknown by [`Layers::finish`].
fn load_one(layers: &mut Layers<'_>, name: String) -> Result<NodeConfig, SettingsError> {
    let file = layers.file_path().map(Path::to_owned).unwrap_or_default();
    let mut table = Table {
        layers,
        name: &name,
        file,
    };
    if !valid_name(&name) {
        return Err(table.bad(
            "",
            "a node's name is 1 to 63 of a-z, 0-9, `-` and `_`, starting with a letter or digit"
                .to_owned(),
        ));
    }
    let url = table
        .string("url")?
        .ok_or_else(|| table.bad("url", "missing".to_owned()))?;
    let allow_plaintext = table.boolean("allow_plaintext")?.unwrap_or(false);
    check_url(&url, allow_plaintext).map_err(|reason| table.bad("url", reason))?;
    table.show("url", quoted(&url));
    table.show("allow_plaintext", allow_plaintext.to_string());

    let token = match (table.string("token")?, table.string("token_file")?) {
        (Some(token), None) => token,
        (None, Some(file)) => {
            table.show("token_file", quoted(&file));
            let text = table.read("token_file", &file)?;
            String::from_utf8(text)
                .map_err(|_| table.bad("token_file", format!("{file} is not UTF-8 text")))?
                .trim()
                .to_owned()
        }
        (Some(_), Some(_)) => {
            return Err(table.bad("token", "give token or token_file, not both".to_owned()));
        }
        (None, None) => {
            return Err(table.bad("token", "missing: give token or token_file".to_owned()));
        }
    };
    if token.trim().is_empty() {
        return Err(table.bad("token", "the node's token is empty".to_owned()));
    }
    table.show("token", "\"***\"".to_owned());

    let ca_pem = match table.string("ca")? {
        Some(file) => {
            table.show("ca", quoted(&file));
            Some(table.read("ca", &file)?)
        }
        None => None,
    };
    let client_identity = match (table.string("client_cert")?, table.string("client_key")?) {
        (Some(cert), Some(key)) => {
            table.show("client_cert", quoted(&cert));
            table.show("client_key", quoted(&key));
            Some((
                table.read("client_cert", &cert)?,
                table.read("client_key", &key)?,
            ))
        }
        (None, None) => None,
        (Some(_), None) => {
            return Err(table.bad("client_key", "missing: client_cert needs it".to_owned()));
        }
        (None, Some(_)) => {
            return Err(table.bad("client_cert", "missing: client_key needs it".to_owned()));
        }
    };
    Ok(NodeConfig {
        name,
        url,
        token,
        ca_pem,
        client_identity,
        allow_plaintext,
    })
}

/// `[a-z0-9][a-z0-9_-]{0,62}`.
fn valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && name.len() <= 63
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

/// An `https://` URL, or `http://` to a loopback host (any host with `allow_plaintext`).
fn check_url(text: &str, allow_plaintext: bool) -> Result<(), String> {
    let url = url::Url::parse(text).map_err(|e| format!("`{text}` is not a URL: {e}"))?;
    let host = match url.host() {
        Some(host) => host,
        None => return Err(format!("`{text}` has no host")),
    };
    match url.scheme() {
        "https" => Ok(()),
        "http" => {
            let loopback = match host {
                url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
                url::Host::Ipv4(ip) => IpAddr::V4(ip).is_loopback(),
                url::Host::Ipv6(ip) => IpAddr::V6(ip).is_loopback(),
            };
            if loopback || allow_plaintext {
                Ok(())
            } else {
                Err(format!(
                    "`{text}` would send the node's token in clear to a host that is not \
                     loopback: use https://, or set allow_plaintext = true"
                ))
            }
        }
        other => Err(format!(
            "the scheme `{other}` is not one of https, http (`{text}`)"
        )),
    }
}

/// The keys of one `[nodes.NAME]`, read off the file.
struct Table<'l, 'a> {
    layers: &'l mut Layers<'a>,
    name: &'l str,
    /// The settings file.
    file: PathBuf,
}

impl Table<'_, '_> {
    fn path(&self, key: &str) -> String {
        if key.is_empty() {
            format!("{SECTION}.{}", self.name)
        } else {
            format!("{SECTION}.{}.{key}", self.name)
        }
    }

    fn bad(&self, key: &str, reason: String) -> SettingsError {
        SettingsError::BadNode {
            key: self.path(key),
            path: self.file.clone(),
            reason,
        }
    }

    fn value(&mut self, key: &str) -> Option<toml::Value> {
        self.layers.take_file(&self.path(key))
    }

    fn string(&mut self, key: &str) -> Result<Option<String>, SettingsError> {
        match self.value(key) {
            None => Ok(None),
            Some(toml::Value::String(text)) => Ok(Some(text)),
            Some(other) => Err(self.bad(
                key,
                format!("{} is not allowed here; expected a string", a_kind(&other)),
            )),
        }
    }

    fn boolean(&mut self, key: &str) -> Result<Option<bool>, SettingsError> {
        match self.value(key) {
            None => Ok(None),
            Some(toml::Value::Boolean(flag)) => Ok(Some(flag)),
            Some(other) => Err(self.bad(
                key,
                format!(
                    "{} is not allowed here; expected true or false",
                    a_kind(&other)
                ),
            )),
        }
    }

    /// The whole file `named` (relative to the settings file's directory).
    fn read(&self, key: &str, named: &str) -> Result<Vec<u8>, SettingsError> {
        let file = match self.file.parent() {
            Some(dir) => dir.join(named),
            None => Path::new(named).to_owned(),
        };
        std::fs::read(&file).map_err(|source| SettingsError::NodeFile {
            key: self.path(key),
            file,
            source,
        })
    }

    fn show(&mut self, key: &str, value: String) {
        let path = self.path(key);
        self.layers.note_file(path, value, self.file.clone());
    }
}

#[cfg(test)]
mod tests;
