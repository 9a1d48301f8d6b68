//! The gateway's stdio transport: the client's lines and the gateway's rewritten as
//! [`crate::wire_rewrite`] says, between the process's stdio and rmcp, which serves the end
//! [`rewritten`] returns.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};

/// How much of a message may wait between a pump and rmcp.
const BUFFER: usize = 64 * 1024;

/// The end rmcp serves: what the client writes to `reader` reaches it, and what it writes
/// reaches `writer`, each line rewritten. Reading ends with the client's input (the session
/// ends); writing ends with the session.
pub fn rewritten<R, W>(reader: R, writer: W) -> DuplexStream
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (ours, theirs) = tokio::io::duplex(BUFFER);
    let (from_rmcp, to_rmcp) = tokio::io::split(theirs);
    tokio::spawn(pump(reader, to_rmcp, crate::wire_rewrite::client_message));
    tokio::spawn(pump(from_rmcp, writer, crate::wire_rewrite::server_message));
    ours
}

/// Copies `from` to `to` a line at a time, each through `rewrite`, until `from` ends or `to`
/// is gone.
async fn pump<R, W>(from: R, mut to: W, rewrite: fn(&[u8]) -> Option<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut from = BufReader::new(from);
    let mut line = Vec::new();
    loop {
        line.clear();
        match from.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        let content = line.strip_suffix(b"\n").unwrap_or(&line);
        let written = match rewrite(content) {
            Some(mut rewritten) => {
                rewritten.push(b'\n');
                to.write_all(&rewritten).await
            }
            None => to.write_all(&line).await,
        };
        if written.is_err() || to.flush().await.is_err() {
            return;
        }
    }
    let _ = to.shutdown().await;
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt;

    use super::*;

    #[tokio::test]
    async fn lines_pass_rewritten_both_ways_and_the_end_passes_on() {
        let (client_in, mut client_writes) = tokio::io::duplex(1024);
        let (mut client_reads, client_out) = tokio::io::duplex(1024);
        let mut served = rewritten(client_in, client_out);
        client_writes
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n")
            .await
            .unwrap();
        drop(client_writes);
        let mut seen = String::new();
        served.read_to_string(&mut seen).await.unwrap();
        assert_eq!(
            seen,
            "{\"id\":1,\"jsonrpc\":\"2.0\",\"method\":\"switchboard/tools/list\"}\n\
             {\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n"
        );
        served
            .write_all(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n")
            .await
            .unwrap();
        drop(served);
        let mut answered = String::new();
        client_reads.read_to_string(&mut answered).await.unwrap();
        assert_eq!(answered, "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n");
    }
}
