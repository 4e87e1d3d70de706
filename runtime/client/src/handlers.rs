//! The handlers of generated tools (feature `registry`): each calls the client and makes what
//! the operation answered the tool's output, and a failed call the value the registry's
//! invocation classifies ([`Error::into_thrown`]).

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use harness_gen_registry::{
    EventOutput, Handler, Issue, Phase, Thrown, ToolOutput, mismatch_issue,
};
use harness_gen_wire::RuntimeCategory;

use crate::{CallFuture, Download, Error, Events, OperationError, Pages};

impl<E: Serialize> Error<E> {
    /// The thrown value a tool handler reports: declared errors as data; a success reply that
    /// does not fit the declared output (its type, a format, a page or event it cannot read)
    /// as the contract violation it is, at its pointer; the rest by category.
    pub fn into_thrown(self) -> Thrown {
        let category = self.category();
        match self {
            Error::Api(data) => match serde_json::to_value(data) {
                Ok(value) => Thrown::Value(value),
                Err(_) => Thrown::Fault(RuntimeCategory::Internal),
            },
            Error::InvalidResponse { pointer, reason } => Thrown::Violation {
                phase: Phase::Output,
                issues: vec![mismatch_issue(pointer, &reason)],
            },
            Error::UnexpectedReply(reply) | Error::Status(reply) => {
                Thrown::Reply { category, reply }
            }
            error @ Error::MissingCredentials { .. } => Thrown::Unconfigured {
                category,
                hint: error.to_string(),
            },
            // The schema allowed the value but the wire cannot carry it: the caller's input.
            Error::InvalidValue { pointer, .. } => Thrown::InvalidInput(vec![Issue {
                pointer,
                keyword: "format".into(),
            }]),
            _ => Thrown::Fault(category),
        }
    }
}

/// A failed call inside a tool written in Rust is a runtime failure of that tool, by category:
/// the API it called answering with an error status (declared by that operation or not), a
/// reply outside that operation's contract, no reply, missing credentials. None of them is the
/// tool's own declared error, which its function returns as `Failure::Declared`.
#[cfg(feature = "typed")]
impl<E, X> From<Error<X>> for harness_gen_registry::typed::Failure<E> {
    fn from(error: Error<X>) -> Self {
        let category = match &error {
            Error::Api(_) => RuntimeCategory::HttpStatus,
            Error::InvalidResponse { .. } => RuntimeCategory::UnexpectedReply,
            other => other.category(),
        };
        Self::Runtime(match error {
            Error::UnexpectedReply(reply) | Error::Status(reply) => {
                Thrown::Reply { category, reply }
            }
            error @ Error::MissingCredentials { .. } => Thrown::Unconfigured {
                category,
                hint: error.to_string(),
            },
            _ => Thrown::Fault(category),
        })
    }
}

/// The handler of one generated tool: deserializes the validated input into `I`, makes the
/// call `call` starts (an operation's flat method: `|c: &Client, input: &Input| c.get_pet(input)`),
/// and serializes the output; a declared error response becomes the thrown value, anything
/// else a runtime fault by category ([`Error::into_thrown`]). The call's future is the client's
/// [`CallFuture`], so a generated tool compiles a closure and no future of its own.
pub fn typed_handler<C, I, O, E, F>(client: C, call: F) -> Handler
where
    C: Send + Sync + 'static,
    I: DeserializeOwned + Send + Sync + 'static,
    O: DeserializeOwned + Serialize + 'static,
    E: OperationError + Serialize + 'static,
    F: for<'c> Fn(&'c C, &'c I) -> CallFuture<'c, O, E> + Send + Sync + 'static,
{
    let shared = std::sync::Arc::new((client, call));
    Handler::paged(move |input: Value| {
        let shared = std::sync::Arc::clone(&shared);
        async move {
            let input: I = tool_input(input)?;
            let (client, call) = &*shared;
            let output = call(client, &input).await.map_err(Error::into_thrown)?;
            tool_output(output).map(ToolOutput::value)
        }
    })
}

/// The handler of one generated tool whose output is bytes (a download): [`typed_handler`],
/// calling the operation's `…_stream` method through `call` and returning the body as it
/// arrives ([`harness_gen_registry::ByteOutput`]), so the CLI writes it to a file without holding it and
/// `invoke` collects it into base64 text within a bound.
pub fn download_handler<C, I, E, F, Fut>(client: C, call: F) -> Handler
where
    C: Clone + Send + Sync + 'static,
    I: DeserializeOwned + Send + 'static,
    E: Serialize + 'static,
    F: Fn(C, I) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Download, Error<E>>> + Send + 'static,
{
    calling_handler(client, call, |download: Download| {
        Ok(ToolOutput {
            bytes: Some(download.into_output()),
            ..ToolOutput::default()
        })
    })
}

/// The handler of one generated tool whose operation answers only with server-sent events:
/// [`typed_handler`], calling the operation's `…_events` method through `call` and returning
/// each event's data as it arrives ([`EventOutput`]); an event whose data does not fit
/// is an error item and the events go on, a broken stream ends them.
pub fn events_handler<C, I, T, E, F, Fut>(client: C, call: F) -> Handler
where
    C: Clone + Send + Sync + 'static,
    I: DeserializeOwned + Send + 'static,
    T: DeserializeOwned + Serialize + 'static,
    E: Serialize + 'static,
    F: Fn(C, I) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Events<T, E>, Error<E>>> + Send + 'static,
{
    calling_handler(client, call, |events: Events<T, E>| {
        use futures::StreamExt;
        let end = Some(events.end_watch());
        let items = events.map(|event| match event {
            Ok(event) => tool_output(event.data),
            Err(error) => Err(error.into_thrown()),
        });
        Ok(ToolOutput {
            events: Some(EventOutput {
                items: Box::pin(items),
                end,
            }),
            ..ToolOutput::default()
        })
    })
}

/// The handler of one generated tool whose operation answers with JSON or, when the input sets
/// the request body's boolean flag (OpenAI's `stream`; `flag` is its JSON pointer into the
/// input, `/body/stream`) to `true`, with server-sent events: `events` (an [`events_handler`])
/// then, else `buffered` (a [`typed_handler`]). The tool's output schema is either.
pub fn json_or_events_handler(flag: &'static str, buffered: Handler, events: Handler) -> Handler {
    Handler::either(
        move |input| input.pointer(flag) == Some(&Value::Bool(true)),
        events,
        buffered,
    )
}

/// The shape of a streaming tool's handler (bytes, events): deserializes the validated input
/// into `I`, calls the client through `call`, and makes what it answered (a stream still
/// arriving) the tool's output through `output`; a failed call is thrown by its
/// [`Error::into_thrown`].
fn calling_handler<C, I, R, E, F, Fut>(
    client: C,
    call: F,
    output: fn(R) -> Result<ToolOutput, Thrown>,
) -> Handler
where
    C: Clone + Send + Sync + 'static,
    I: DeserializeOwned + Send + 'static,
    R: 'static,
    E: Serialize + 'static,
    F: Fn(C, I) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<R, Error<E>>> + Send + 'static,
{
    let call = std::sync::Arc::new(call);
    Handler::paged(move |input: Value| {
        let (client, call) = (client.clone(), call.clone());
        async move {
            let answer = call(client, tool_input(input)?)
                .await
                .map_err(Error::into_thrown)?;
            output(answer)
        }
    })
}

/// A validated tool input as the operation's input type. The schema it was validated against
/// is the type's, but formats are not asserted there: a `date-time` that is not one, or an
/// `int32` out of range, is refused here, as invalid input at its pointer.
use harness_gen_registry::{output_value as tool_output, typed_input as tool_input};

/// The handler of one generated tool that lists in pages: [`typed_handler`], fetching one page
/// through `pages` and returning it with the arguments of the next one.
pub fn paged_handler<C, I, O, T, E, F>(client: C, pages: F) -> Handler
where
    C: Clone + Send + Sync + 'static,
    I: DeserializeOwned + Send + 'static,
    O: Serialize + DeserializeOwned + 'static,
    T: DeserializeOwned + 'static,
    E: Serialize + OperationError + 'static,
    F: Fn(&C, I) -> Pages<O, T, E> + Send + Sync + 'static,
{
    let pages = std::sync::Arc::new(pages);
    Handler::paged(move |input: Value| {
        let (client, pages) = (client.clone(), pages.clone());
        async move {
            let mut pages = pages(&client, tool_input(input)?);
            let page = match pages.next_page().await {
                Some(page) => page.map_err(Error::into_thrown)?,
                None => return Err(Thrown::Fault(RuntimeCategory::Internal)),
            };
            Ok(ToolOutput {
                value: tool_output(page)?,
                next_page: pages.next_arguments().cloned(),
                ..ToolOutput::default()
            })
        }
    })
}
