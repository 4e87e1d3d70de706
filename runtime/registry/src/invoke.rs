//! The one invocation path every adapter uses (tool-contract.md §5), and the classification of
//! its outcome. Nothing here ever formats an input, output or thrown value into a message.

use std::fmt;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use serde_json::Value;

use crate::catalog::{Audience, SchemaDoc};
use crate::registry::{LiveTool, Thrown, ToolOutput, ToolRegistry};
use harness_gen_wire::ReplyExcerpt;
use harness_gen_wire::error::RuntimeCategory;

/// The target of the tool-call spans and events (a `RUST_LOG` directive can name it).
pub const CALL: &str = "harness_gen::call";

/// Why a call failed.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolError {
    /// No tool of that name exists for the caller's audience (including tools that exist but
    /// are outside it: the two cases are indistinguishable).
    UnknownTool {
        /// The name asked for.
        name: String,
    },
    /// The input does not satisfy the tool's `inputSchema`.
    InvalidInput {
        /// The tool.
        tool: String,
        /// Where and which keyword failed; never the values.
        issues: Vec<Issue>,
    },
    /// The tool threw a value its `errorSchema` declares: ordinary, typed data.
    Application {
        /// The tool.
        tool: String,
        /// The declared error value.
        data: Value,
    },
    /// The call failed in a way reported by category only.
    Runtime {
        /// The tool.
        tool: String,
        /// What kind of failure.
        category: RuntimeCategory,
        /// What to do about it, when the failure is the caller's configuration (the credential
        /// variables to set); names only, never a value.
        hint: Option<String>,
    },
    /// The API answered outside the operation's contract: a runtime failure (kind `runtime`)
    /// of category `http_status` (a status it does not declare) or `unexpected_reply` (a success
    /// body that is not the declared media type), with the reply's status, content type and
    /// first bytes, so the caller sees what came back (a 401's message, a proxy's HTML page).
    Reply {
        /// The tool.
        tool: String,
        /// What kind of failure.
        category: RuntimeCategory,
        /// What the reply was.
        reply: ReplyExcerpt,
    },
    /// The tool broke its own contract: its output or its thrown value does not match the
    /// declared schema.
    ContractViolation {
        /// The tool.
        tool: String,
        /// Which schema was violated.
        phase: Phase,
        /// Where and which keyword failed.
        issues: Vec<Issue>,
    },
}

/// One schema-validation failure: the instance location and the failing keyword.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Issue {
    /// JSON pointer into the instance.
    pub pointer: String,
    /// The failing keyword, e.g. `required`.
    pub keyword: String,
}

/// Which declared schema a contract violation concerns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// The success value vs `outputSchema`.
    Output,
    /// The thrown value vs `errorSchema`.
    Error,
}

impl Phase {
    /// The phase's name as rendered.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Output => "output",
            Phase::Error => "error",
        }
    }
}

impl ToolError {
    /// The failure kind as rendered in envelopes: `unknown_tool`, `invalid_input`,
    /// `application`, `runtime` or `contract_violation`.
    pub fn kind(&self) -> &'static str {
        match self {
            ToolError::UnknownTool { .. } => "unknown_tool",
            ToolError::InvalidInput { .. } => "invalid_input",
            ToolError::Application { .. } => "application",
            ToolError::Runtime { .. } | ToolError::Reply { .. } => "runtime",
            ToolError::ContractViolation { .. } => "contract_violation",
        }
    }

    /// The tool concerned, if one was found.
    pub fn tool(&self) -> Option<&str> {
        match self {
            ToolError::UnknownTool { .. } => None,
            ToolError::InvalidInput { tool, .. }
            | ToolError::Application { tool, .. }
            | ToolError::Runtime { tool, .. }
            | ToolError::Reply { tool, .. }
            | ToolError::ContractViolation { tool, .. } => Some(tool),
        }
    }
}

/// A value-free summary. Application data is not printed either: render it through the
/// adapters' envelopes, where it is data, not prose.
impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolError::UnknownTool { name } => write!(f, "unknown tool `{name}`"),
            ToolError::InvalidInput { tool, issues } => {
                write!(f, "invalid input for tool `{tool}`")?;
                write_issues(f, issues)
            }
            ToolError::Application { tool, data } => {
                write!(f, "tool `{tool}` returned a declared application error")?;
                // The declared error's name (when it is a name) and status are the contract's
                // words, not values.
                let name = |k: &&str| {
                    k.len() <= 64
                        && k.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
                };
                if let Some(kind) = data.get("kind").and_then(Value::as_str).filter(name) {
                    write!(f, " `{kind}`")?;
                }
                match data.get("status").and_then(Value::as_u64) {
                    Some(status) => write!(f, " (HTTP {status})"),
                    None => Ok(()),
                }
            }
            ToolError::Runtime {
                tool,
                category,
                hint,
            } => {
                write!(f, "tool `{tool}` failed: {}", category.as_str())?;
                match hint {
                    Some(hint) => write!(f, ": {hint}"),
                    None => Ok(()),
                }
            }
            ToolError::Reply {
                tool,
                category,
                reply,
            } => write!(f, "tool `{tool}` failed: {} ({reply})", category.as_str()),
            ToolError::ContractViolation {
                tool,
                phase,
                issues,
            } => {
                let what = match phase {
                    Phase::Output => "output does not match its outputSchema",
                    Phase::Error => "thrown value does not match its errorSchema",
                };
                write!(f, "tool `{tool}` broke its contract: its {what}")?;
                write_issues(f, issues)
            }
        }
    }
}

fn write_issues(f: &mut fmt::Formatter<'_>, issues: &[Issue]) -> fmt::Result {
    for (i, issue) in issues.iter().enumerate() {
        let sep = if i == 0 { ": " } else { "; " };
        let at = if issue.pointer.is_empty() {
            "(root)"
        } else {
            &issue.pointer
        };
        write!(f, "{sep}{at} fails `{}`", issue.keyword)?;
    }
    Ok(())
}

impl std::error::Error for ToolError {}

impl ToolRegistry {
    /// Calls `name` on behalf of `audience`: look up within the audience, validate the input,
    /// call the handler, classify the outcome.
    pub async fn invoke(
        &self,
        audience: Audience,
        name: &str,
        input: Value,
    ) -> Result<Value, ToolError> {
        let output = self.invoke_page(audience, name, input).await?;
        self.finish(audience, name, output).await
    }

    /// The one value of an output [`ToolRegistry::invoke_page`] returned: its value, its events
    /// collected (at most [`crate::EventOutput::COLLECTED`]), or its bytes as the base64 text
    /// its output schema describes. For an adapter that takes the events or bytes as they come
    /// only when it can, and the value otherwise.
    pub async fn finish(
        &self,
        audience: Audience,
        name: &str,
        mut output: ToolOutput,
    ) -> Result<Value, ToolError> {
        if let Some(events) = output.events.take() {
            return self.collect_events(audience, name, events).await;
        }
        let Some(bytes) = output.bytes.take() else {
            return Ok(output.value);
        };
        // Bytes arrive as a stream; one value holds them as the base64 text the output schema
        // describes, checked like any output.
        let Some(tool) = self.live(audience, name) else {
            return Err(ToolError::UnknownTool {
                name: name.to_string(),
            });
        };
        let collected = bytes
            .collect(crate::ByteOutput::COLLECTED)
            .await
            .map_err(|category| ToolError::Runtime {
                tool: tool.entry.name.to_string(),
                category,
                hint: None,
            })?;
        use base64::Engine;
        let value = Value::String(base64::engine::general_purpose::STANDARD.encode(collected));
        self.checked_output(tool, ToolOutput::value(value))
            .map(|output| output.value)
    }

    /// [`ToolRegistry::invoke`], keeping what a tool that lists in pages says about the next
    /// page: the input properties to change, typed by the input schema (a page number read
    /// from a link is a number where the schema says so).
    ///
    /// Each call is a `tool_call` span (target [`CALL`]: the tool and the audience), which the
    /// client's upstream events nest in, ended by one event saying its outcome (`ok` or the
    /// failure's [`ToolError::kind`]) and how long it took; never an argument or a result.
    pub async fn invoke_page(
        &self,
        audience: Audience,
        name: &str,
        input: Value,
    ) -> Result<ToolOutput, ToolError> {
        use tracing::Instrument;
        let span = tracing::info_span!(target: CALL, "tool_call", tool = name, audience = audience.as_str());
        let started = std::time::Instant::now();
        let outcome = self
            .call_checked(audience, name, input)
            .instrument(span.clone())
            .await;
        let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        let _entered = span.enter();
        match &outcome {
            Ok(_) => {
                tracing::info!(target: CALL, outcome = "ok", duration_ms, "tool call finished")
            }
            Err(error) => {
                let category = match error {
                    ToolError::Runtime { category, .. } => category.as_str(),
                    _ => "",
                };
                tracing::warn!(target: CALL, outcome = error.kind(), category, duration_ms, error = %error, "tool call failed")
            }
        }
        outcome
    }

    /// [`ToolRegistry::invoke_page`] without its span.
    async fn call_checked(
        &self,
        audience: Audience,
        name: &str,
        input: Value,
    ) -> Result<ToolOutput, ToolError> {
        let Some(tool) = self.live(audience, name) else {
            return Err(ToolError::UnknownTool {
                name: name.to_string(),
            });
        };
        let tool_name = || tool.entry.name.to_string();
        match self.check(tool, Slot::Input, &input) {
            Checked::Valid => {}
            Checked::Invalid(issues) => {
                return Err(ToolError::InvalidInput {
                    tool: tool_name(),
                    issues,
                });
            }
            Checked::Uncompilable => return Err(internal(tool)),
        }
        let call = std::panic::catch_unwind(AssertUnwindSafe(|| tool.handler.call(input)));
        let outcome = match call {
            Ok(future) => AssertUnwindSafe(future).catch_unwind().await,
            Err(_) => Err(Box::new(()) as Box<dyn std::any::Any + Send>),
        };
        match outcome {
            Err(_) => Err(ToolError::Runtime {
                tool: tool_name(),
                category: RuntimeCategory::Panic,
                hint: None,
            }),
            // Bytes still to arrive are checked once collected (`invoke`), or by the adapter
            // that writes them as they come.
            Ok(Ok(output)) if output.bytes.is_some() || output.events.is_some() => Ok(output),
            Ok(Ok(output)) => self.checked_output(tool, output),
            Ok(Err(thrown)) => Err(self.thrown(tool, thrown)),
        }
    }

    /// One event of a tool that returns events ([`crate::EventOutput`]) as the adapter shows it:
    /// its data checked against the item schema of the tool's output schema, or what its
    /// handler threw, classified like any failure. An adapter calls it for each event.
    pub fn event(
        &self,
        audience: Audience,
        name: &str,
        item: Result<Value, Thrown>,
    ) -> Result<Value, ToolError> {
        let Some(tool) = self.live(audience, name) else {
            return Err(ToolError::UnknownTool {
                name: name.to_string(),
            });
        };
        let value = item.map_err(|thrown| self.thrown(tool, thrown))?;
        // The output schema is the array of events: one event is checked as an array of one.
        let one = Value::Array(vec![value]);
        match self.check(tool, Slot::Output, &one) {
            Checked::Valid => {}
            Checked::Invalid(issues) => {
                let issues = issues
                    .into_iter()
                    .map(|issue| Issue {
                        pointer: issue
                            .pointer
                            .strip_prefix("/0")
                            .unwrap_or_default()
                            .to_string(),
                        keyword: issue.keyword,
                    })
                    .collect();
                return Err(ToolError::ContractViolation {
                    tool: tool.entry.name.to_string(),
                    phase: Phase::Output,
                    issues,
                });
            }
            Checked::Uncompilable => return Err(internal(tool)),
        }
        let Value::Array(mut one) = one else {
            return Err(internal(tool));
        };
        one.pop().ok_or_else(|| internal(tool))
    }

    /// Every event of `events` (at most [`crate::EventOutput::COLLECTED`]), each checked, as
    /// one array; the first that fails fails the call.
    async fn collect_events(
        &self,
        audience: Audience,
        name: &str,
        mut events: crate::EventOutput,
    ) -> Result<Value, ToolError> {
        let mut collected = Vec::new();
        while let Some(event) = self
            .next_collected(audience, name, &mut events, collected.len())
            .await
        {
            collected.push(event?);
        }
        Ok(Value::Array(collected))
    }

    /// The next event of `events` to collect, checked ([`ToolRegistry::event`]), when
    /// `collected` were already: past [`crate::EventOutput::COLLECTED`] a `TooLarge` failure.
    /// `invoke` and the dashboard, which return every event in the end, collect through it (the
    /// MCP server keeps the first events within its own bounds and says how many came instead).
    pub async fn next_collected(
        &self,
        audience: Audience,
        name: &str,
        events: &mut crate::EventOutput,
        collected: usize,
    ) -> Option<Result<Value, ToolError>> {
        use futures::StreamExt;
        let item = events.items.next().await?;
        if collected >= crate::EventOutput::COLLECTED {
            return Some(Err(ToolError::Runtime {
                tool: name.to_string(),
                category: RuntimeCategory::TooLarge,
                hint: None,
            }));
        }
        Some(self.event(audience, name, item))
    }

    /// `output` once it passed the tool's output schema, its next-page arguments typed by the
    /// input schema.
    fn checked_output(
        &self,
        tool: &LiveTool,
        mut output: ToolOutput,
    ) -> Result<ToolOutput, ToolError> {
        match self.check(tool, Slot::Output, &output.value) {
            Checked::Valid => {
                if let Some(next) = &mut output.next_page {
                    typed_arguments(tool.entry.input_schema.as_value(), next);
                }
                Ok(output)
            }
            Checked::Invalid(issues) => Err(ToolError::ContractViolation {
                tool: tool.entry.name.to_string(),
                phase: Phase::Output,
                issues,
            }),
            Checked::Uncompilable => Err(internal(tool)),
        }
    }

    /// The classification of what a handler threw.
    fn thrown(&self, tool: &LiveTool, thrown: Thrown) -> ToolError {
        let tool_name = || tool.entry.name.to_string();
        match thrown {
            Thrown::Fault(category) => ToolError::Runtime {
                tool: tool_name(),
                category,
                hint: None,
            },
            Thrown::Unconfigured { category, hint } => ToolError::Runtime {
                tool: tool_name(),
                category,
                hint: Some(hint),
            },
            Thrown::Reply { category, reply } => ToolError::Reply {
                tool: tool_name(),
                category,
                reply,
            },
            Thrown::InvalidInput(issues) => ToolError::InvalidInput {
                tool: tool_name(),
                issues,
            },
            Thrown::Violation { phase, issues } => ToolError::ContractViolation {
                tool: tool_name(),
                phase,
                issues,
            },
            Thrown::Value(value) => {
                if tool.entry.error_schema.is_none() {
                    // Undeclared: the value is dropped here and never rendered.
                    drop(value);
                    return ToolError::Runtime {
                        tool: tool_name(),
                        category: RuntimeCategory::UndeclaredError,
                        hint: None,
                    };
                }
                match self.check(tool, Slot::Error, &value) {
                    Checked::Valid => ToolError::Application {
                        tool: tool_name(),
                        data: value,
                    },
                    Checked::Invalid(issues) => ToolError::ContractViolation {
                        tool: tool_name(),
                        phase: Phase::Error,
                        issues,
                    },
                    Checked::Uncompilable => internal(tool),
                }
            }
        }
    }

    /// Validates `value` against one of the tool's schemas, compiling the validator on first use.
    fn check(&self, tool: &LiveTool, slot: Slot, value: &Value) -> Checked {
        let (cell, schema) = match slot {
            Slot::Input => (
                &tool.validators.input,
                Some(tool.entry.input_schema.as_value()),
            ),
            Slot::Output => (
                &tool.validators.output,
                tool.entry.output_schema.as_ref().map(SchemaDoc::as_value),
            ),
            Slot::Error => (
                &tool.validators.error,
                tool.entry.error_schema.as_ref().map(SchemaDoc::as_value),
            ),
        };
        let Some(schema) = schema else {
            return Checked::Valid;
        };
        let input = matches!(slot, Slot::Input);
        let Some(validator) = cell.get_or_init(|| self.compile(schema, input)) else {
            return Checked::Uncompilable;
        };
        let issues: Vec<Issue> = validator
            .iter_errors(value)
            .map(|error| Issue {
                pointer: error.instance_path().to_string(),
                keyword: error.kind().keyword().to_string(),
            })
            .collect();
        if issues.is_empty() {
            Checked::Valid
        } else {
            Checked::Invalid(issues)
        }
    }
}

fn internal(tool: &LiveTool) -> ToolError {
    ToolError::Runtime {
        tool: tool.entry.name.to_string(),
        category: RuntimeCategory::Internal,
        hint: None,
    }
}

#[derive(Clone, Copy)]
enum Slot {
    Input,
    Output,
    Error,
}

enum Checked {
    Valid,
    Invalid(Vec<Issue>),
    Uncompilable,
}

/// Text arguments read from a URL, as the numbers or booleans the input schema's properties
/// say they are (a text that does not parse stays text, and validation of the next call says
/// what is wrong).
fn typed_arguments(input_schema: &Value, arguments: &mut serde_json::Map<String, Value>) {
    for (name, value) in arguments.iter_mut() {
        let Some(kind) = input_schema
            .pointer(&format!("/properties/{}/type", crate::schema::escape(name)))
            .and_then(Value::as_str)
        else {
            continue;
        };
        let Value::String(text) = value else { continue };
        let typed = match kind {
            "integer" => text.parse::<i64>().ok().map(Value::from),
            "number" => text
                .parse::<f64>()
                .ok()
                .and_then(|n| serde_json::Number::from_f64(n).map(Value::Number)),
            "boolean" => text.parse::<bool>().ok().map(Value::Bool),
            _ => None,
        };
        if let Some(typed) = typed {
            *value = typed;
        }
    }
}

/// A [`typed_value`](harness_gen_wire::error::typed_value) mismatch as the issue a schema validator reports: the pointer, and the
/// JSON Schema keyword the reason (as `serde` words it) comes closest to. The client's replies
/// (with the registry) and the bridge's results use it.
pub fn mismatch_issue(pointer: String, reason: &str) -> Issue {
    let keyword = if reason.starts_with("missing field") {
        "required"
    } else if reason.starts_with("unknown variant") {
        "enum"
    } else if reason.starts_with("invalid type") {
        "type"
    } else {
        "format"
    };
    Issue {
        pointer,
        keyword: keyword.to_string(),
    }
}
