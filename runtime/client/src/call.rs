//! [`CallFuture`]: what a typed call returns until it is awaited.

use std::convert::Infallible;
use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use serde::de::DeserializeOwned;

use crate::{Error, OperationError, Reply};

/// The exchange of a call (request, retries, reply read and classified), with nothing typed.
pub(crate) type Exchange<'a> =
    Pin<Box<dyn Future<Output = Result<Reply, Error<Infallible>>> + Send + 'a>>;

/// A call under way: the future [`HttpClient::call`](crate::HttpClient::call) (and each
/// generated client method) returns, resolving to the operation's typed output or its error.
///
/// A named type rather than an `async fn`'s anonymous one: it can be stored in a struct, and it
/// is `Send` whatever the output and error types are (they are read from the reply only once it
/// is complete), so neither the compiler of a big SDK nor its user proves that per operation.
/// The request is prepared when the call is made and sent when the future is first polled.
///
/// ```
/// use harness_gen_client::{CallFuture, Error, OperationError};
/// use serde::de::DeserializeOwned;
///
/// // A call made now, kept, and awaited later (or spawned: it is `Send`).
/// struct Later<'a, O, E> {
///     pending: CallFuture<'a, O, E>,
/// }
///
/// async fn finish<O: DeserializeOwned, E: OperationError>(later: Later<'_, O, E>) -> Result<O, Error<E>> {
///     later.pending.await
/// }
/// ```
#[must_use = "a call is sent when it is awaited"]
pub struct CallFuture<'a, O, E> {
    exchange: Exchange<'a>,
    types: PhantomData<fn() -> (O, E)>,
}

impl<'a, O, E> CallFuture<'a, O, E> {
    pub(crate) fn new(exchange: Exchange<'a>) -> Self {
        CallFuture {
            exchange,
            types: PhantomData,
        }
    }
}

impl<O: DeserializeOwned, E: OperationError> Future for CallFuture<'_, O, E> {
    type Output = Result<O, Error<E>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.exchange.as_mut().poll(cx).map(|reply| match reply {
            Ok(reply) => crate::success_value(reply).and_then(crate::decoded),
            Err(error) => Err(crate::retype(error)),
        })
    }
}

impl<O, E> std::fmt::Debug for CallFuture<'_, O, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallFuture")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sendable<T: Send>() {}

    #[test]
    fn a_call_is_send_whatever_its_output_and_error_types() {
        // Neither type is `Send`; the call still is (they exist only once it is complete).
        sendable::<CallFuture<'static, std::rc::Rc<u8>, std::rc::Rc<u8>>>();
    }
}
