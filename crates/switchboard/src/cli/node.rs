//! `switchboard node`: an MCP node, serving the servers hosts send it over gRPC until SIGINT
//! or SIGTERM.
//!
//! The token comes from `--token-file` or `SWITCHBOARD_NODE_TOKEN`, never the command line
//! (where every process listing would show it). Without `--tls-cert`/`--tls-key` the node
//! serves plaintext, which it refuses off loopback unless `--allow-plaintext`. Its own rules
//! come from the layered settings like `serve`'s: `[manager]` (time limits, idle, retry) and
//! `[quotas]` (the launch templates a member's stdio server must fit on this node, and the
//! destinations a guarded remote server may reach). On shutdown it stops serving, then ends
//! every stdio server's process group.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context as _;
use switchboard_grpc::{Node, NodeError, NodeOptions, ServerTls};

use super::Context;
use crate::settings::{Settings, SettingsFlags};

/// The environment variable holding the node token when no `--token-file` is given.
const TOKEN_ENV: &str = "SWITCHBOARD_NODE_TOKEN";

#[derive(Debug, clap::Args)]
pub struct NodeArgs {
    /// The address to listen on, such as 0.0.0.0:7443 (127.0.0.1:0 picks a free port).
    #[arg(long, value_name = "ADDR")]
    pub listen: SocketAddr,
    /// A file holding the token hosts must send (else SWITCHBOARD_NODE_TOKEN).
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<PathBuf>,
    /// The node's certificate (PEM); with --tls-key, the node serves TLS.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,
    /// The key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
    /// Hosts must present a client certificate signed by this CA (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    pub client_ca: Option<PathBuf>,
    /// Serve without TLS on a non-loopback address (only on a network you trust).
    #[arg(long)]
    pub allow_plaintext: bool,
}

pub async fn run(context: &Context, args: NodeArgs) -> anyhow::Result<ExitCode> {
    let env = |name: &str| std::env::var(name).ok();
    let Settings {
        manager, quotas, ..
    } = Settings::load(
        &context.global.settings_file(),
        &env,
        &SettingsFlags::default(),
        &context.global.store_shown(),
    )?
    .settings;
    let options = NodeOptions {
        listen: args.listen,
        token: token(args.token_file.as_deref(), &env)?,
        tls: tls(&args)?,
        allow_plaintext: args.allow_plaintext,
        launch: quotas.launch_rules()?,
        destinations: quotas.destination_rules(),
        manager: switchboard_mcp::ManagerConfig {
            stdio_guard: super::guard::stdio_guard(),
            ..manager.manager_config()
        },
    };
    let scheme = if options.tls.is_some() {
        "https"
    } else {
        "http"
    };
    let node = Node::bind(options).await?;
    let signalled = super::serve::shutdown_signal();
    errln!(
        "switchboard node is listening on {scheme}://{}",
        node.local_addr()
    );
    node.run(signalled).await?;
    errln!("switchboard node stopped");
    Ok(ExitCode::SUCCESS)
}

/// The documented code of a node that could not start: a configuration it refuses is the
/// operator's to fix.
pub(super) fn code(error: &NodeError) -> Option<switchboard_core::ErrorCode> {
    match error {
        NodeError::NoToken | NodeError::PlaintextRefused(_) | NodeError::Tls(_) => {
            Some(switchboard_core::ErrorCode::ValidationError)
        }
        _ => None,
    }
}

/// The token: the file's contents, trimmed, else the environment variable's.
fn token(file: Option<&Path>, env: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<String> {
    let token = match file {
        Some(path) => std::fs::read_to_string(path)
            .with_context(|| format!("cannot read the token file {}", path.display()))?,
        None => env(TOKEN_ENV).unwrap_or_default(),
    };
    let token = token.trim();
    if token.is_empty() {
        return Err(NodeError::NoToken.into());
    }
    Ok(token.to_owned())
}

fn tls(args: &NodeArgs) -> anyhow::Result<Option<ServerTls>> {
    let (Some(cert), Some(key)) = (&args.tls_cert, &args.tls_key) else {
        return Ok(None);
    };
    let read = |path: &Path, what: &str| {
        std::fs::read(path).with_context(|| format!("cannot read the {what} {}", path.display()))
    };
    Ok(Some(ServerTls {
        cert_pem: read(cert, "certificate")?,
        key_pem: read(key, "key")?,
        client_ca_pem: args
            .client_ca
            .as_deref()
            .map(|ca| read(ca, "client CA"))
            .transpose()?,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_file_is_trimmed_and_wins_over_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "  from-file\n").unwrap();
        let env = |_: &str| Some("from-env".to_owned());
        assert_eq!(token(Some(&file), &env).unwrap(), "from-file");
        assert_eq!(token(None, &env).unwrap(), "from-env");
    }

    #[test]
    fn no_token_or_an_empty_one_is_refused() {
        let none = |_: &str| None;
        let error = token(None, &none).unwrap_err();
        assert!(
            error.to_string().contains("SWITCHBOARD_NODE_TOKEN"),
            "{error}"
        );
        let blank = |_: &str| Some(" \n".to_owned());
        assert!(token(None, &blank).is_err());
    }
}
