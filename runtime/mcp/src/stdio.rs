//! The stdio transport with a guard in front of rmcp: every line a client sends gets an
//! answer, so a client never waits forever on a message the SDK would drop. A line that is not
//! JSON gets a JSON-RPC parse error; a line longer than [`MAX_MESSAGE_BYTES`] gets an invalid
//! request error without being buffered whole; everything else goes to rmcp unchanged. The
//! server keeps serving after either.

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The largest message accepted on stdio.
pub const MAX_MESSAGE_BYTES: usize = 4 * 1024 * 1024;

/// One line read with a bound.
enum Line {
    /// A complete line (without its newline), at most [`MAX_MESSAGE_BYTES`] long.
    Text(Vec<u8>),
    /// A line that was longer; its bytes were skipped up to its newline.
    TooLong,
}

/// The next line of `input`, never holding more than [`MAX_MESSAGE_BYTES`] of it in memory;
/// `None` at the end of the input.
async fn next_line(input: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let buffer = input.fill_buf().await?;
        if buffer.is_empty() {
            return Ok((!line.is_empty() || too_long).then(|| finish(line, too_long)));
        }
        let (chunk, found) = match buffer.iter().position(|&b| b == b'\n') {
            Some(at) => (&buffer[..at], true),
            None => (buffer, false),
        };
        if !too_long && line.len() + chunk.len() <= MAX_MESSAGE_BYTES {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let used = chunk.len() + usize::from(found);
        input.consume(used);
        if found {
            return Ok(Some(finish(line, too_long)));
        }
    }
}

fn finish(line: Vec<u8>, too_long: bool) -> Line {
    if too_long {
        Line::TooLong
    } else {
        Line::Text(line)
    }
}

fn error_line(code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message}}).to_string()
}

/// Serves `server` over `input`/`output` until `input` ends.
pub async fn serve<S>(
    server: S,
    input: impl AsyncRead + Unpin + Send + 'static,
    mut output: impl AsyncWrite + Unpin + Send + 'static,
) -> Result<(), String>
where
    S: rmcp::ServiceExt<rmcp::RoleServer>,
{
    let (ours, theirs) = tokio::io::duplex(64 * 1024);
    let (their_read, their_write) = tokio::io::split(theirs);
    let (our_read, mut our_write) = tokio::io::split(ours);
    let (lines, mut outgoing) = mpsc::unbounded_channel::<String>();

    // rmcp's replies, line by line, to the one writer.
    let replies = lines.clone();
    let forward = tokio::spawn(async move {
        let mut reader = BufReader::new(our_read).lines();
        while let Ok(Some(line)) = reader.next_line().await {
            if replies.send(line).is_err() {
                break;
            }
        }
    });
    let writer = tokio::spawn(async move {
        while let Some(line) = outgoing.recv().await {
            let written = async {
                output.write_all(line.as_bytes()).await?;
                output.write_all(b"\n").await?;
                output.flush().await
            };
            if written.await.is_err() {
                break;
            }
        }
    });
    let guard = tokio::spawn(async move {
        let mut input = BufReader::new(input);
        while let Ok(Some(line)) = next_line(&mut input).await {
            match line {
                Line::Text(line) if line.iter().all(u8::is_ascii_whitespace) => {}
                Line::Text(line) if serde_json::from_slice::<Value>(&line).is_err() => {
                    let _ = lines.send(error_line(-32700, "parse error: the message is not JSON"));
                }
                Line::Text(line) => {
                    let sent = async {
                        our_write.write_all(&line).await?;
                        our_write.write_all(b"\n").await
                    };
                    if sent.await.is_err() {
                        break;
                    }
                }
                Line::TooLong => {
                    let message = format!(
                        "invalid request: the message is larger than {MAX_MESSAGE_BYTES} bytes"
                    );
                    let _ = lines.send(error_line(-32600, &message));
                }
            }
        }
        // The client is gone: closing rmcp's input ends the session.
        let _ = our_write.shutdown().await;
    });
    let service = server
        .serve((their_read, their_write))
        .await
        .map_err(|e| format!("MCP session failed to start: {e}"))?;
    let ended = service.waiting().await;
    guard.abort();
    let _ = forward.await;
    let _ = writer.await;
    ended
        .map(|_| ())
        .map_err(|e| format!("MCP session ended abnormally: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn lines(input: &[u8]) -> Vec<Option<usize>> {
        let mut reader = BufReader::with_capacity(16, input);
        let mut seen = Vec::new();
        while let Some(line) = next_line(&mut reader).await.unwrap() {
            seen.push(match line {
                Line::Text(text) => Some(text.len()),
                Line::TooLong => None,
            });
        }
        seen
    }

    #[tokio::test]
    async fn lines_are_split_across_buffers_and_overlong_ones_are_skipped_whole() {
        let mut input = b"ab\n\n".to_vec();
        input.extend(vec![b'x'; MAX_MESSAGE_BYTES + 1]);
        input.extend(b"\nlast");
        assert_eq!(lines(&input).await, [Some(2), Some(0), None, Some(4)]);
        let exact = vec![b'y'; MAX_MESSAGE_BYTES];
        assert_eq!(lines(&exact).await, [Some(MAX_MESSAGE_BYTES)]);
    }
}
