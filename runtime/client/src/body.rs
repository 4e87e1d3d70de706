//! Sending a request whose body holds uploads read as they are sent (files, streams): the
//! request's head is built once, its body again for every attempt, so a retried upload reads
//! its file from the start and a file that cannot be read fails the call before anything is
//! sent.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use tokio::io::AsyncReadExt;

use super::Error;
use super::encode::{Payload, Piece};
use crate::upload::Source;

pub use crate::upload::ByteStream;

/// How much of a file is read at a time.
const FILE_CHUNK: usize = 64 * 1024;

/// A request ready to send: its head (method, URL, headers, and its body when that is all in
/// memory) and, for a body holding files or streams, what is read for each attempt.
pub(super) struct Outgoing {
    pub head: reqwest::Request,
    streamed: Option<Streamed>,
}

/// A body read as it is sent.
struct Streamed {
    payload: Payload,
    /// The longest silence allowed while it is sent and then while the reply's head is awaited
    /// (a whole-request timeout would cut a large upload short).
    idle: Duration,
    /// How many of its bytes were handed to the connection so far.
    progress: Arc<AtomicU64>,
}

type Fault = Error<std::convert::Infallible>;

impl Outgoing {
    /// The request `head`, with `payload` (when it is not all in memory) read for each attempt
    /// and bounded by `timeout` of silence rather than by the head's whole-request timeout.
    pub fn new(mut head: reqwest::Request, payload: Option<Payload>, timeout: Duration) -> Self {
        let streamed = payload.map(|payload| Streamed {
            payload,
            idle: timeout,
            progress: Arc::default(),
        });
        if streamed.is_some() {
            *head.timeout_mut() = None;
        }
        Self { head, streamed }
    }

    /// The same request to send again as it is (a redirect that keeps the body), or `None`
    /// when its body is streamed (read once) or cannot be cloned.
    pub fn again(&self) -> Option<Self> {
        if self.streamed.is_some() {
            return None;
        }
        Some(Self {
            head: self.head.try_clone()?,
            streamed: None,
        })
    }

    /// The same request as `method` without a body or the headers that described it (a
    /// redirect that turns a `POST` into a `GET`).
    pub fn without_body(&self, method: reqwest::Method) -> Option<Self> {
        let mut head = reqwest::Request::new(method, self.head.url().clone());
        *head.timeout_mut() = self.head.timeout().copied().or(self.idle());
        *head.headers_mut() = self.head.headers().clone();
        for name in [
            reqwest::header::CONTENT_TYPE,
            reqwest::header::CONTENT_LENGTH,
            reqwest::header::CONTENT_ENCODING,
        ] {
            head.headers_mut().remove(name);
        }
        Some(Self {
            head,
            streamed: None,
        })
    }

    /// The silence allowed to a streamed body, if this request has one.
    pub fn idle(&self) -> Option<Duration> {
        self.streamed.as_ref().map(|streamed| streamed.idle)
    }

    /// Whether a failed attempt may be sent again: not when it sent a stream, which is read
    /// once.
    pub fn repeatable(&self) -> bool {
        !self.streamed.as_ref().is_some_and(|streamed| {
            streamed.payload.pieces.iter().any(|piece| {
                matches!(piece, Piece::Upload { upload, .. } if matches!(upload.source(), Source::Stream(..) | Source::Stdin))
            })
        })
    }

    /// Sends one attempt through `client`, waiting at most `first_byte` for the reply's head
    /// (none: the head's own timeout), or, for a streamed body, failing only after its
    /// silence bound passes with no byte of the body taken by the connection.
    pub async fn send(
        &self,
        client: &reqwest::Client,
        first_byte: Option<Duration>,
    ) -> Result<reqwest::Result<reqwest::Response>, Fault> {
        let sent = client.execute(self.attempt().await?);
        match (&self.streamed, first_byte) {
            (Some(streamed), _) => idle_bounded(sent, &streamed.progress, streamed.idle).await,
            (None, Some(limit)) => tokio::time::timeout(limit, sent)
                .await
                .map_err(|_| Error::Timeout),
            (None, None) => Ok(sent.await),
        }
    }

    /// The request for one attempt: the head, with a body read afresh.
    async fn attempt(&self) -> Result<reqwest::Request, Fault> {
        let mut request = self
            .head
            .try_clone()
            .ok_or_else(|| Error::InvalidRequest("the request cannot be repeated".into()))?;
        if let Some(Streamed {
            payload, progress, ..
        }) = &self.streamed
        {
            let (body, length) = open(payload, progress).await?;
            if let Some(length) = length {
                request
                    .headers_mut()
                    .insert(reqwest::header::CONTENT_LENGTH, length.into());
            }
            *request.body_mut() = Some(body);
        }
        Ok(request)
    }
}

/// The body of `payload` as a stream, every file opened (so one that cannot be is an error
/// before anything is sent), with its length when every piece's is known.
async fn open(
    payload: &Payload,
    progress: &Arc<AtomicU64>,
) -> Result<(reqwest::Body, Option<u64>), Fault> {
    let mut streams: Vec<super::ByteStream> = Vec::with_capacity(payload.pieces.len());
    let mut length = Some(0u64);
    for piece in &payload.pieces {
        let (stream, size): (super::ByteStream, Option<u64>) = match piece {
            Piece::Bytes(bytes) => (single(bytes.clone()), Some(bytes.len() as u64)),
            Piece::Upload { upload, at } => match upload.source() {
                Source::Memory(bytes) => (single(bytes.clone()), Some(bytes.len() as u64)),
                Source::File(path) => {
                    let failed = |e: std::io::Error| {
                        Error::Read(format!("at {at} ({}): {e}", path.display()))
                    };
                    let file = tokio::fs::File::open(path).await.map_err(failed)?;
                    let size = file.metadata().await.map_err(failed)?.len();
                    (read_chunks(file), Some(size))
                }
                Source::Stdin => (read_chunks(tokio::io::stdin()), None),
                Source::Stream(stream, size) => {
                    let taken = stream.lock().ok().and_then(|mut slot| slot.take());
                    let stream = taken.ok_or_else(|| {
                        Error::Read(format!(
                            "at {at}: its stream was sent already (a stream is read once)"
                        ))
                    })?;
                    (stream, *size)
                }
            },
        };
        length = length.zip(size).map(|(a, b)| a + b);
        streams.push(stream);
    }
    let progress = Arc::clone(progress);
    let body = futures::stream::iter(streams)
        .flatten()
        .inspect(move |chunk| {
            if let Ok(chunk) = chunk {
                progress.fetch_add(chunk.len() as u64, Ordering::Relaxed);
            }
        });
    Ok((reqwest::Body::wrap_stream(body), length))
}

/// Awaits `sent` (an attempt whose body is streamed), failing with `Error::Timeout` only when
/// `idle` passes with no byte of the body taken by the connection: a large upload over a slow
/// link is not cut short, a server that stops reading or never answers is.
async fn idle_bounded<F: std::future::Future>(
    sent: F,
    progress: &AtomicU64,
    idle: Duration,
) -> Result<F::Output, Fault> {
    let mut sent = std::pin::pin!(sent);
    let mut seen = progress.load(Ordering::Relaxed);
    loop {
        match tokio::time::timeout(idle, &mut sent).await {
            Ok(outcome) => return Ok(outcome),
            Err(_) => {
                let now = progress.load(Ordering::Relaxed);
                if now == seen {
                    return Err(Error::Timeout);
                }
                seen = now;
            }
        }
    }
}

fn single(bytes: bytes::Bytes) -> super::ByteStream {
    Box::pin(futures::stream::once(async move { Ok(bytes) }))
}

/// What `reader` reads (a file, standard input), 64 KiB at a time.
pub fn read_chunks<R>(reader: R) -> super::ByteStream
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    Box::pin(
        futures::stream::try_unfold(reader, |mut reader| async move {
            let mut buffer = vec![0; FILE_CHUNK];
            let read = reader.read(&mut buffer).await?;
            buffer.truncate(read);
            Ok((read > 0).then(|| (bytes::Bytes::from(buffer), reader)))
        })
        .into_stream(),
    )
}
