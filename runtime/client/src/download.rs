//! Downloads: a success body of bytes read as it arrives, never whole in memory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::Error;

/// A response body of bytes as it arrives ([`HttpClient::download`](super::HttpClient::download)):
/// its media type and length when the server says them, then its chunks. Each wait for the next
/// chunk is bounded by the client's timeout; a connection that breaks is `Error::Transport`, and
/// a body shorter than its `Content-Length` is an error too, never a silently short file.
/// Dropping it closes the connection.
#[derive(Debug)]
pub struct Download {
    response: reqwest::Response,
    idle: Duration,
    content_type: Option<String>,
    length: Option<u64>,
    received: u64,
}

impl Download {
    pub(super) fn new(response: reqwest::Response, idle: Duration) -> Self {
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let length = response.content_length();
        Self {
            response,
            idle,
            content_type,
            length,
            received: 0,
        }
    }

    /// The `Content-Type` the server sent.
    pub fn content_type(&self) -> Option<&str> {
        self.content_type.as_deref()
    }

    /// The body's length, when the server said it.
    pub fn length(&self) -> Option<u64> {
        self.length
    }

    /// The next chunk of the body; `None` at its end.
    pub async fn chunk(&mut self) -> Option<Result<Vec<u8>, Error<std::convert::Infallible>>> {
        Some(self.next_bytes().await?.map(|chunk| chunk.to_vec()))
    }

    /// [`Download::chunk`] as the connection gave it, without a copy.
    pub(super) async fn next_bytes(
        &mut self,
    ) -> Option<Result<bytes::Bytes, Error<std::convert::Infallible>>> {
        match tokio::time::timeout(self.idle, self.response.chunk()).await {
            Err(_) => Some(Err(Error::Timeout)),
            Ok(Err(_)) => Some(Err(Error::Transport)),
            Ok(Ok(Some(chunk))) => {
                self.received += chunk.len() as u64;
                Some(Ok(chunk))
            }
            Ok(Ok(None)) => match self.length {
                Some(length) if self.received < length => Some(Err(Error::Transport)),
                _ => None,
            },
        }
    }

    /// The body's chunks as a stream, ending after the first failure.
    fn into_chunks(
        self,
    ) -> impl futures::Stream<Item = Result<bytes::Bytes, Error<std::convert::Infallible>>> {
        futures::stream::unfold(Some(self), |download| async move {
            let mut download = download?;
            match download.next_bytes().await? {
                Ok(chunk) => Some((Ok(chunk), Some(download))),
                Err(error) => Some((Err(error), None)),
            }
        })
    }

    /// The body as a tool's output: its chunks as they arrive, a failure (a timeout, a broken
    /// or short body) ending them by its category.
    #[cfg(feature = "registry")]
    pub fn into_output(self) -> harness_gen_registry::ByteOutput {
        use futures::TryStreamExt;
        let (content_type, length) = (self.content_type.clone(), self.length);
        harness_gen_registry::ByteOutput {
            content_type,
            length,
            chunks: Box::pin(self.into_chunks().map_err(|error| error.category())),
        }
    }

    /// Writes the whole body to `out` as it arrives; returns how many bytes it had.
    pub async fn write_to<W>(mut self, out: &mut W) -> Result<u64, Error<std::convert::Infallible>>
    where
        W: tokio::io::AsyncWrite + Unpin,
    {
        use tokio::io::AsyncWriteExt;
        while let Some(chunk) = self.next_bytes().await {
            out.write_all(&chunk?)
                .await
                .map_err(|e| Error::Write(e.to_string()))?;
        }
        out.flush().await.map_err(|e| Error::Write(e.to_string()))?;
        Ok(self.received)
    }

    /// Saves the body at `path`: written to a temporary file beside it and renamed into place
    /// only once the whole body arrived, so an interrupted download leaves no file (and never
    /// a truncated one) at `path`. Returns how many bytes it had.
    pub async fn save(
        self,
        path: impl AsRef<Path>,
    ) -> Result<u64, Error<std::convert::Infallible>> {
        let path = path.as_ref();
        save_chunks(path, std::pin::pin!(self.into_chunks()))
            .await
            .map_err(|failure| match failure {
                Unsaved::Source(error) => error,
                Unsaved::Write(error) => Error::Write(format!("{}: {error}", path.display())),
            })
    }
}

/// Why [`save_chunks`] left no file.
#[derive(Debug)]
pub enum Unsaved<E> {
    /// The chunks failed.
    Source(E),
    /// The file could not be written or renamed.
    Write(std::io::Error),
}

/// Writes `chunks` to a temporary file beside `path` and renames it into place only once the
/// last chunk is written and synced; on any failure the temporary file is removed and nothing
/// is at `path` that was not there before. Returns how many bytes were written.
pub async fn save_chunks<S, E>(path: &Path, mut chunks: S) -> Result<u64, Unsaved<E>>
where
    S: futures::Stream<Item = Result<bytes::Bytes, E>> + Unpin,
{
    use futures::StreamExt;
    use tokio::io::AsyncWriteExt;
    let staged = staged_path(path);
    let mut file = tokio::fs::File::create(&staged)
        .await
        .map_err(Unsaved::Write)?;
    let mut written = 0;
    let outcome = async {
        while let Some(chunk) = chunks.next().await {
            let chunk = chunk.map_err(Unsaved::Source)?;
            file.write_all(&chunk).await.map_err(Unsaved::Write)?;
            written += chunk.len() as u64;
        }
        file.flush().await.map_err(Unsaved::Write)?;
        file.sync_all().await.map_err(Unsaved::Write)
    }
    .await;
    drop(file);
    let outcome = match outcome {
        Ok(()) => tokio::fs::rename(&staged, path)
            .await
            .map_err(Unsaved::Write),
        Err(failure) => Err(failure),
    };
    if outcome.is_err() {
        let _ = tokio::fs::remove_file(&staged).await;
    }
    outcome.map(|()| written)
}

/// `path` with a hidden, per-process temporary name in its directory.
fn staged_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "download".into());
    path.with_file_name(format!(".{name}.{}.part", std::process::id()))
}
