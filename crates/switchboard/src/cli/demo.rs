//! `switchboard demo-server [--http ADDR]`: runs [`crate::demo`] until the client hangs up
//! (stdio) or the process is asked to stop (Ctrl-C, or SIGTERM on Unix).

use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use tokio::net::TcpListener;

use crate::demo;

#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio, e.g. 127.0.0.1:8931
    /// (port 0 picks a free port; the address is printed on stderr).
    #[arg(long, value_name = "ADDR")]
    pub http: Option<String>,
}

pub async fn run(args: DemoArgs) -> anyhow::Result<ExitCode> {
    match args.http {
        None => demo::serve_stdio(stop_requested()).await?,
        Some(addr) => {
            let listener = TcpListener::bind(&addr)
                .await
                .with_context(|| format!("cannot listen on {addr}"))?;
            let local = listener
                .local_addr()
                .with_context(|| format!("cannot listen on {addr}"))?;
            // Scripts and tests wait for this line to learn the port.
            errln!("listening on http://{local}{}", demo::HTTP_PATH);
            demo::serve_http(listener, stop_requested()).await?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Completes on Ctrl-C or, on Unix, SIGTERM; never if neither can be listened for.
async fn stop_requested() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {}
        () = terminate => {}
    }
}
