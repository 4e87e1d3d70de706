//! Operations whose success response offers `text/event-stream`: how their streaming call
//! asks for the stream and sees its end (`binding.events`).
//!
//! The rule, when `x-harn.events` says nothing: the call sets the request body's boolean
//! property `stream` to `true` when the body has one (OpenAI's chat completions, responses,
//! transcriptions), reported as note `HG0509`; data `[DONE]` ends the stream. `x-harn.events`
//! names another property (`flag`, checked: a boolean property of the body) or none (`""`),
//! and another sentinel or none (`""`).
//!
//! An operation that answers JSON or the stream with no body flag to choose (the server goes
//! by `Accept`) gets a tool input property `stream` (`binding.events.select`, never sent) so
//! that every projection can ask for either: the CLI's `--stream`, `stream: true` over MCP.
//! Reported as note `HG0509`; where a parameter already has the name, the projections keep
//! the JSON reply and the note says so.

use std::collections::BTreeMap;

use harness_gen_wire::binding::{Encoding, EventStream};
use serde_json::Value;

use super::Cx;
use super::operation::Parts;
use super::pagination::Schemas;
use crate::diag::{Code, Severity};
use crate::load::Loc;
use crate::xharn::EventsExt;

/// The body property the rule looks for.
const FLAG: &str = "stream";

/// The sentinel when none is declared.
const SENTINEL: &str = "[DONE]";

/// How the operation `name` at `at` streams, if its success response offers events.
pub fn of_operation(
    cx: &mut Cx,
    (name, at): (&str, &Loc),
    declared: Option<&EventsExt>,
    parts: &Parts,
    components: &BTreeMap<String, Value>,
) -> Option<EventStream> {
    let declared_at = at.at("x-harn").at("events");
    if parts
        .output
        .as_ref()
        .and_then(|o| o.events.as_ref())
        .is_none()
    {
        if declared.is_some() {
            cx.diags.push(cx.doc.diag(
                Code::XHarnInvalid,
                Severity::Error,
                &declared_at,
                "x-harn.events: the operation's success response offers no `text/event-stream`; remove x-harn.events or declare the stream's content".to_string(),
            ));
        }
        return None;
    }
    let schemas = Schemas::new(components);
    let body = parts
        .body
        .as_ref()
        .filter(|b| b.binding.encoding == Encoding::Json)
        .map(|b| &b.schema);
    let boolean = |property: &str| {
        body.and_then(|b| schemas.property(b, property))
            .is_some_and(|p| schemas.is_type(p, "boolean"))
    };
    let flag = match declared.and_then(|d| d.flag.as_deref()) {
        Some("") => None,
        Some(property) if boolean(property) => Some(property.to_string()),
        Some(property) => {
            cx.diags.push(cx.doc.diag(
                Code::XHarnInvalid,
                Severity::Error,
                &declared_at.at("flag"),
                format!("x-harn.events: `{property}` is not a boolean property of the operation's JSON request body; name one, or `\"\"` for none"),
            ));
            return None;
        }
        None if boolean(FLAG) => {
            cx.diags.push(cx.doc.diag(
                Code::Streamed,
                Severity::Note,
                at,
                format!("`{name}` streams server-sent events: its `_events` call sends `{FLAG}: true` in the body, since the body has a boolean `{FLAG}`. Set x-harn.events.flag to name another property, or `\"\"` for none"),
            ));
            Some(FLAG.to_string())
        }
        None => None,
    };
    let answers_json = parts
        .output
        .as_ref()
        .is_some_and(|o| !o.binding.is_event_stream());
    let select = match (&flag, answers_json) {
        (None, true) => {
            let taken = parts
                .params
                .iter()
                .any(|p| p.binding.property.as_ref() == FLAG)
                || parts
                    .body
                    .as_ref()
                    .is_some_and(|b| b.binding.property.as_ref() == FLAG);
            let (select, message) = match taken {
                false => (
                    Some(FLAG.to_string()),
                    format!(
                        "`{name}` answers JSON or server-sent events by the request's `Accept`: its tool takes `{FLAG}: true` (the CLI's `--{FLAG}`) to ask for the events, and its SDK has the `_events` call"
                    ),
                ),
                true => (
                    None,
                    format!(
                        "`{name}` answers JSON or server-sent events by the request's `Accept`, but an input is already called `{FLAG}`: its tool answers JSON (its SDK has the `_events` call)"
                    ),
                ),
            };
            cx.diags
                .push(cx.doc.diag(Code::Streamed, Severity::Note, at, message));
            select
        }
        _ => None,
    };
    let sentinel = match declared.and_then(|d| d.sentinel.as_deref()) {
        Some("") => None,
        Some(sentinel) => Some(sentinel.to_string()),
        None => Some(SENTINEL.to_string()),
    };
    Some(EventStream {
        flag: flag.map(Into::into),
        select: select.map(Into::into),
        sentinel: sentinel.map(Into::into),
    })
}
