//! Server-sent events (`text/event-stream`): the WHATWG parsing rules, and the typed stream a
//! generated `_events` call returns.
//!
//! The parser is ours rather than the `sse-stream` crate rmcp brings along, because that one
//! refuses what the standard says to ignore (a line without a colon, an unknown field, a
//! repeated `event:` line) and silently drops an event the stream ends inside; both would turn
//! a real server's quirks into failures or losses here. The rules, from the standard: lines
//! end with CRLF, LF or CR; a line starting with `:` is a comment; `field: value` (one space
//! after the colon dropped), a line without a colon is a field with an empty value; `data`
//! lines accumulate, joined by newlines; `event` names the event; `id` sets the last event id
//! (kept for later events, ignored when it holds NUL); `retry` takes digits only; other fields
//! are ignored; a blank line dispatches the event, if it has data. A byte-order mark may open
//! the stream. Beyond the standard: one event's lines are bounded (an event larger than
//! [`MAX_EVENT_BYTES`] is an error), and a stream that ends inside an event is an error rather
//! than a silent loss.

use std::collections::VecDeque;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures::Stream;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::Error;
use harness_gen_wire::binding::{EndWatch, StreamEnd};

/// The most one event (its lines, before the blank line that ends it) may hold: 8 MiB.
pub const MAX_EVENT_BYTES: usize = 8 << 20;

/// One event of a stream: its data read as the event type, and its fields.
#[derive(Clone, Debug, PartialEq)]
pub struct Event<T> {
    /// The `data` lines, joined by newlines, read as JSON into `T` (text that is not JSON is
    /// read as a JSON string, so a `String` event takes any text).
    pub data: T,
    /// The `event` field: the event's name (`None` for the default, `message`).
    pub event: Option<String>,
    /// The last event id the stream set (it carries over to later events, per the standard).
    pub id: Option<String>,
    /// The `retry` field of this event: the reconnection time the server asks for.
    pub retry: Option<Duration>,
}

/// An event as parsed, before its data is typed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawEvent {
    /// The data lines, joined by newlines.
    pub data: String,
    /// The `event` field, if set.
    pub event: Option<String>,
    /// The last event id, if one was ever set.
    pub id: Option<String>,
    /// The `retry` field in milliseconds, if set in this event.
    pub retry: Option<u64>,
}

/// Why a stream cannot go on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// One event grew beyond the bound.
    TooLarge,
    /// The stream ended inside an event (data or a line not ended by a blank line).
    Truncated,
}

/// The incremental parser: bytes in, events out.
#[derive(Debug)]
pub struct Parser {
    max_event: usize,
    /// The line being read (bytes until its end arrives).
    line: Vec<u8>,
    /// Whether the last byte seen was a CR (a LF right after it ends nothing more).
    after_cr: bool,
    /// Whether nothing has been read yet (a byte-order mark may come first).
    at_start: bool,
    /// Bytes of the event being read so far.
    size: usize,
    data: String,
    has_data: bool,
    event: Option<String>,
    retry: Option<u64>,
    last_id: Option<String>,
}

impl Default for Parser {
    fn default() -> Self {
        Self::new(MAX_EVENT_BYTES)
    }
}

impl Parser {
    /// A parser whose events may hold at most `max_event` bytes.
    pub fn new(max_event: usize) -> Self {
        Self {
            max_event,
            line: Vec::new(),
            after_cr: false,
            at_start: true,
            size: 0,
            data: String::new(),
            has_data: false,
            event: None,
            retry: None,
            last_id: None,
        }
    }

    /// Reads `chunk`, appending the events it completes to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut VecDeque<RawEvent>) -> Result<(), Fault> {
        let mut chunk = chunk;
        if self.at_start && !chunk.is_empty() {
            // A byte-order mark may be split across chunks; it is only looked for whole.
            chunk = chunk.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(chunk);
            self.at_start = false;
        }
        for &byte in chunk {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    let line = std::mem::take(&mut self.line);
                    self.line_ended(&line, out);
                    self.line = line;
                    self.line.clear();
                }
                _ => {
                    self.after_cr = false;
                    self.line.push(byte);
                    self.size += 1;
                    if self.size > self.max_event {
                        return Err(Fault::TooLarge);
                    }
                }
            }
        }
        Ok(())
    }

    /// The end of the stream: an error if it ends inside an event.
    pub fn finish(&mut self) -> Result<(), Fault> {
        if self.line.is_empty() && !self.has_data {
            Ok(())
        } else {
            Err(Fault::Truncated)
        }
    }

    fn line_ended(&mut self, line: &[u8], out: &mut VecDeque<RawEvent>) {
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.split_once(':') {
            Some(("", _)) => return,
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (text.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_string()),
            "id" if !value.contains('\0') => self.last_id = Some(value.to_string()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.parse().ok();
            }
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut VecDeque<RawEvent>) {
        self.size = 0;
        let event = self.event.take();
        let retry = self.retry.take();
        if !std::mem::take(&mut self.has_data) {
            return;
        }
        out.push_back(RawEvent {
            data: std::mem::take(&mut self.data),
            event,
            id: self.last_id.clone(),
            retry,
        });
    }
}

/// The raw events of one response, ending with the stream, a fault or the sentinel.
pub(super) type RawEvents =
    Pin<Box<dyn Stream<Item = Result<RawEvent, Error<std::convert::Infallible>>> + Send>>;

/// The raw events of `body` (read chunk by chunk as a [`Download`](super::Download) is: each
/// within the client's timeout), parsed, echoed credentials redacted from the data, until the
/// end, a fault or the `sentinel`.
pub(super) fn raw_events(
    body: super::Download,
    sentinel: Option<String>,
    echoes: Vec<super::Secret>,
    end: EndWatch,
) -> RawEvents {
    struct Reading {
        body: super::Download,
        parser: Parser,
        ready: VecDeque<RawEvent>,
        ended: bool,
        // Delivered once the events completed before it are.
        fault: Option<Error<std::convert::Infallible>>,
    }
    let start = Reading {
        body,
        parser: Parser::default(),
        ready: VecDeque::new(),
        ended: false,
        fault: None,
    };
    let stream = futures::stream::unfold(Some(start), move |state| {
        let (sentinel, echoes, end) = (sentinel.clone(), echoes.clone(), end.clone());
        async move {
            let mut reading = state?;
            loop {
                if let Some(mut event) = reading.ready.pop_front() {
                    if sentinel.as_deref() == Some(event.data.trim()) {
                        end.set(StreamEnd::Sentinel);
                        return None;
                    }
                    event.data = super::redacted_text(event.data, &echoes);
                    return Some((Ok(event), Some(reading)));
                }
                if let Some(fault) = reading.fault.take() {
                    end.set(StreamEnd::Broken);
                    return Some((Err(fault), None));
                }
                if reading.ended {
                    end.set(StreamEnd::Closed);
                    return None;
                }
                match reading.body.next_bytes().await {
                    Some(Err(error)) => reading.fault = Some(error),
                    Some(Ok(chunk)) => {
                        if let Err(fault) = reading.parser.feed(&chunk, &mut reading.ready) {
                            reading.fault = Some(fault.into());
                        }
                    }
                    None => {
                        reading.ended = true;
                        if let Err(fault) = reading.parser.finish() {
                            reading.fault = Some(fault.into());
                        }
                    }
                }
            }
        }
    });
    Box::pin(stream)
}

impl From<Fault> for Error<std::convert::Infallible> {
    fn from(fault: Fault) -> Self {
        match fault {
            Fault::TooLarge => Error::TooLarge,
            Fault::Truncated => Error::InvalidResponse {
                pointer: String::new(),
                reason: "the stream ended inside an event".into(),
            },
        }
    }
}

/// The typed events of a streaming call (see [`Event`]): one item per event, in order.
///
/// An event whose data does not fit the event type is an `Error::InvalidResponse` item and
/// the stream goes on; the stream ends after the sentinel (`[DONE]`, never an item), at its
/// end, or after an error it cannot go on from: `Error::TooLarge` (an event beyond
/// [`MAX_EVENT_BYTES`]), `Error::Timeout` (no byte for the client's timeout), `Error::Transport`
/// (the connection failed), or `Error::InvalidResponse` for a stream that ended inside an
/// event. Dropping it closes the connection.
pub struct Events<T, E> {
    raw: RawEvents,
    end: EndWatch,
    done: bool,
    // Values of `T` and `E` are made per item and never held: the stream is `Send` whatever
    // they are.
    _types: PhantomData<fn() -> (T, E)>,
}

impl<T, E> Events<T, E> {
    pub(super) fn new(raw: RawEvents, end: EndWatch) -> Self {
        Self {
            raw,
            end,
            done: false,
            _types: PhantomData,
        }
    }

    /// How the stream ended (the sentinel, the server closing it, or a failure), once it has:
    /// `None` while events may still come.
    pub fn ended(&self) -> Option<StreamEnd> {
        self.end.get()
    }

    /// Where [`Events::ended`] is told, for whoever reads the events through an adapter that
    /// consumes this stream.
    pub fn end_watch(&self) -> EndWatch {
        self.end.clone()
    }
}

impl<T, E> Unpin for Events<T, E> {}

impl<T: DeserializeOwned, E> Stream for Events<T, E> {
    type Item = Result<Event<T>, Error<E>>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.done {
            return Poll::Ready(None);
        }
        let raw = match self.raw.as_mut().poll_next(cx) {
            Poll::Pending => return Poll::Pending,
            Poll::Ready(None) => {
                self.done = true;
                return Poll::Ready(None);
            }
            Poll::Ready(Some(Err(error))) => {
                self.done = true;
                return Poll::Ready(Some(Err(super::retype(error))));
            }
            Poll::Ready(Some(Ok(raw))) => raw,
        };
        let value = serde_json::from_str(&raw.data).unwrap_or(Value::String(raw.data));
        let data = harness_gen_wire::error::typed_value(value)
            .map_err(|(pointer, reason)| Error::InvalidResponse { pointer, reason });
        Poll::Ready(Some(data.map(|data| Event {
            data,
            event: raw.event,
            id: raw.id,
            retry: raw.retry.map(Duration::from_millis),
        })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(chunks: &[&[u8]]) -> (Vec<RawEvent>, Result<(), Fault>) {
        let mut parser = Parser::default();
        let mut out = VecDeque::new();
        for chunk in chunks {
            if let Err(fault) = parser.feed(chunk, &mut out) {
                return (out.into(), Err(fault));
            }
        }
        let end = parser.finish();
        (out.into(), end)
    }

    fn data(events: &[RawEvent]) -> Vec<&str> {
        events.iter().map(|e| e.data.as_str()).collect()
    }

    #[test]
    fn data_lines_join_with_newlines_and_a_blank_line_dispatches() {
        let (events, end) = parse(&[b"data: a\ndata:b\n\ndata:  c\n\n"]);
        assert_eq!(data(&events), ["a\nb", " c"]);
        assert_eq!(end, Ok(()));
    }

    #[test]
    fn lines_end_with_crlf_lf_or_cr_even_split_across_chunks() {
        let (events, _) = parse(&[b"data: 1\r", b"\n\r", b"\ndata: 2\r\rdata: 3\n", b"\n"]);
        assert_eq!(data(&events), ["1", "2", "3"]);
    }

    #[test]
    fn comments_unknown_fields_and_colonless_lines_are_ignored() {
        let (events, _) = parse(&[
            b"\xEF\xBB\xBF: keep-alive\nfoo: bar\nnonsense\nevent: a\nevent: b\ndata: x\n\n",
        ]);
        assert_eq!(events.len(), 1);
        assert_eq!(
            events[0].event.as_deref(),
            Some("b"),
            "the last event line wins"
        );
        // `data` alone is a data line with an empty value.
        let (events, _) = parse(&[b"data\n\n"]);
        assert_eq!(data(&events), [""]);
    }

    #[test]
    fn ids_carry_over_and_retry_takes_digits_only() {
        let (events, _) = parse(&[
            b"id: 7\nretry: 1500\ndata: a\n\ndata: b\n\nid: 8\0\nretry: soon\ndata: c\n\n",
        ]);
        let ids: Vec<_> = events.iter().map(|e| e.id.as_deref()).collect();
        assert_eq!(ids, [Some("7"), Some("7"), Some("7")]);
        let retries: Vec<_> = events.iter().map(|e| e.retry).collect();
        assert_eq!(retries, [Some(1500), None, None]);
    }

    #[test]
    fn an_event_without_data_is_not_dispatched() {
        let (events, end) = parse(&[b"event: ping\n\nid: 1\n\n: only a comment\n\n"]);
        assert!(events.is_empty());
        assert_eq!(end, Ok(()));
    }

    #[test]
    fn a_stream_ending_inside_an_event_is_an_error_not_a_loss() {
        let (events, end) = parse(&[b"data: whole\n\ndata: half"]);
        assert_eq!(data(&events), ["whole"]);
        assert_eq!(end, Err(Fault::Truncated));
        let (_, end) = parse(&[b"data: no blank line\n"]);
        assert_eq!(end, Err(Fault::Truncated));
    }

    #[test]
    fn an_event_beyond_the_bound_is_an_error() {
        let mut parser = Parser::new(10);
        let mut out = VecDeque::new();
        assert_eq!(parser.feed(b"data: 12\n\n", &mut out), Ok(()));
        assert_eq!(parser.feed(b"data: 1234", &mut out), Ok(()));
        assert_eq!(parser.feed(b"56789", &mut out), Err(Fault::TooLarge));
    }
}
