//! The log output of the generated programs: the spans and events of the registry
//! ([`crate::CALL`]) and of the HTTP client (`harness_gen::upstream`), and those of the
//! libraries beneath, on standard error — human-readable text by default, one JSON object per
//! line with `HARNESS_LOG_FORMAT=json` (or the MCP server's `--log-format json`). `RUST_LOG`
//! chooses what is printed, in `tracing-subscriber`'s `EnvFilter` syntax
//! (`RUST_LOG=harness_gen=debug` adds each upstream reply); without it, each program's default.

use std::io::IsTerminal;

use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer, Registry};

/// The environment variable that chooses the log format (`text` or `json`).
pub const FORMAT_ENV: &str = "HARNESS_LOG_FORMAT";

/// How log lines are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LogFormat {
    /// One line of text per event, with the spans it is in.
    #[default]
    Text,
    /// One JSON object per event (`timestamp`, `level`, `target`, `fields`, `spans`).
    Json,
}

impl LogFormat {
    /// `text` or `json`; anything else is refused, saying what is accepted.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            other => Err(format!(
                "`{other}` is not a log format: say `text` or `json`"
            )),
        }
    }

    /// The format [`FORMAT_ENV`] asks for (`Text` when it is unset).
    pub fn from_env() -> Result<Self, String> {
        match std::env::var(FORMAT_ENV) {
            Ok(text) => Self::parse(&text).map_err(|why| format!("{FORMAT_ENV}: {why}")),
            Err(_) => Ok(Self::Text),
        }
    }
}

/// A layer that sees every event of the `harness_gen` targets, whatever `RUST_LOG` prints
/// (the MCP server's metrics are one).
pub type Observer = Box<dyn Layer<Registry> + Send + Sync>;

/// Installs the process's subscriber: logs in `format` on standard error at the level
/// `RUST_LOG` says (`default` when it is unset; a `RUST_LOG` that is not a filter is reported
/// and `default` used), and `observer` beside them. Does nothing when the process already has
/// a subscriber.
pub fn install(default: &str, format: LogFormat, observer: Option<Observer>) {
    let filter = match std::env::var("RUST_LOG") {
        Ok(text) => EnvFilter::try_new(&text).unwrap_or_else(|error| {
            eprintln!(
                "warning: RUST_LOG={text:?} is not a log filter ({error}); using `{default}`"
            );
            EnvFilter::new(default)
        }),
        Err(_) => EnvFilter::new(default),
    };
    let writer = std::io::stderr;
    let output = match format {
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_writer(writer)
            .with_ansi(std::io::stderr().is_terminal())
            .boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_writer(writer)
            .with_current_span(true)
            .with_span_list(true)
            .boxed(),
    };
    // The observer sees the events of harness-gen's targets only, whatever the filter prints.
    let ours =
        tracing_subscriber::filter::filter_fn(|meta| meta.target().starts_with("harness_gen"));
    let _ = tracing_subscriber::registry()
        .with(observer.map(|observer| observer.with_filter(ours)))
        .with(output.with_filter(filter))
        .try_init();
}
