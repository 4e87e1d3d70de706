//! What an operator sees of a running server: the calls, tasks and requests under way
//! ([`Activity`], which a graceful stop waits for), Prometheus metrics made from the registry's and the
//! client's `tracing` events ([`Metrics`]), and the HTTP endpoints `/healthz`, `/readyz` and
//! `/metrics` ([`routes`]).
//!
//! The metrics, in the OpenMetrics text format:
//!
//! | name | type | labels |
//! |---|---|---|
//! | `harness_tool_calls_total` | counter | `tool`, `outcome` (`ok`, `invalid_input`, `application`, `runtime`, `contract_violation`, `unknown_tool`) |
//! | `harness_tool_call_duration_seconds` | histogram | `tool` |
//! | `harness_upstream_responses_total` | counter | `class` (`2xx` … `5xx`, `timeout`, `connect`, `transport`) |
//! | `harness_upstream_request_duration_seconds` | histogram | |
//! | `harness_mcp_sessions_open` | gauge | |
//! | `harness_mcp_tasks_running` | gauge | |
//! | `harness_mcp_calls_in_flight` | gauge | |

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry as MetricRegistry;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

use harness_gen_client::trace::UPSTREAM;
use harness_gen_registry::CALL;

/// The calls and tasks under way in one server, and whether it is stopping.
#[derive(Debug, Default)]
pub struct Activity {
    busy: AtomicUsize,
    changed: tokio::sync::Notify,
    draining: AtomicBool,
}

/// One call, task or request under way, while it lives.
pub struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
        self.0.changed.notify_waiters();
    }
}

impl Activity {
    /// Counts one call, task or request under way until the guard is dropped.
    pub fn busy(self: &Arc<Self>) -> Busy {
        self.busy.fetch_add(1, Ordering::AcqRel);
        Busy(Arc::clone(self))
    }

    /// How many calls and tasks are under way.
    pub fn under_way(&self) -> usize {
        self.busy.load(Ordering::Acquire)
    }

    /// Resolves when nothing is under way.
    pub async fn idle(&self) {
        loop {
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if self.under_way() == 0 {
                return;
            }
            changed.await;
        }
    }

    /// Resolves once nothing has been under way for `period` without a break.
    pub async fn quiet(&self, period: std::time::Duration) {
        loop {
            self.idle().await;
            let changed = self.changed.notified();
            tokio::pin!(changed);
            changed.as_mut().enable();
            if self.under_way() != 0 {
                continue;
            }
            tokio::select! {
                () = tokio::time::sleep(period) => {
                    if self.under_way() == 0 {
                        return;
                    }
                }
                () = changed => {}
            }
        }
    }

    /// Marks the server as stopping: it is no longer ready, and starts no new work.
    pub fn drain(&self) {
        self.draining.store(true, Ordering::Release);
    }

    /// Whether the server is stopping.
    pub fn draining(&self) -> bool {
        self.draining.load(Ordering::Acquire)
    }
}

type Labels = Vec<(&'static str, String)>;

/// The server's metrics, fed by the `tracing` events of tool calls and upstream requests
/// (see [`Metrics::layer`]) and by gauges read when scraped.
pub struct Metrics {
    registry: MetricRegistry,
    calls: Family<Labels, Counter>,
    call_seconds: Family<Labels, Histogram, fn() -> Histogram>,
    upstream: Family<Labels, Counter>,
    upstream_seconds: Histogram,
    sessions: Gauge,
    tasks: Gauge,
    in_flight: Gauge,
}

fn seconds() -> Histogram {
    // 5 ms to about 82 s.
    Histogram::new(exponential_buckets(0.005, 2.0, 15))
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = MetricRegistry::default();
        let calls = Family::<Labels, Counter>::default();
        let call_seconds =
            Family::<Labels, Histogram, fn() -> Histogram>::new_with_constructor(seconds);
        let upstream = Family::<Labels, Counter>::default();
        let upstream_seconds = seconds();
        let (sessions, tasks, in_flight) = (Gauge::default(), Gauge::default(), Gauge::default());
        registry.register(
            "harness_tool_calls",
            "Tool calls, by tool and outcome",
            calls.clone(),
        );
        registry.register(
            "harness_tool_call_duration_seconds",
            "Time from a tool call's arguments to its result (or its stream's head)",
            call_seconds.clone(),
        );
        registry.register(
            "harness_upstream_responses",
            "Attempts of upstream requests, by status class or failure",
            upstream.clone(),
        );
        registry.register(
            "harness_upstream_request_duration_seconds",
            "Time from an upstream request to its reply's head",
            upstream_seconds.clone(),
        );
        registry.register(
            "harness_mcp_sessions_open",
            "Open MCP sessions",
            sessions.clone(),
        );
        registry.register(
            "harness_mcp_tasks_running",
            "MCP tasks this process runs",
            tasks.clone(),
        );
        registry.register(
            "harness_mcp_calls_in_flight",
            "Tool calls and tasks under way",
            in_flight.clone(),
        );
        Self {
            registry,
            calls,
            call_seconds,
            upstream,
            upstream_seconds,
            sessions,
            tasks,
            in_flight,
        }
    }
}

/// What the gauges read at a scrape.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gauges {
    /// Open MCP sessions.
    pub sessions: usize,
    /// Tasks this process runs.
    pub tasks: usize,
    /// Calls and tasks under way.
    pub in_flight: usize,
}

impl Metrics {
    /// The metrics in the OpenMetrics text format, with `gauges` as they are now.
    pub fn render(&self, gauges: Gauges) -> String {
        let set = |gauge: &Gauge, value: usize| {
            gauge.set(i64::try_from(value).unwrap_or(i64::MAX));
        };
        set(&self.sessions, gauges.sessions);
        set(&self.tasks, gauges.tasks);
        set(&self.in_flight, gauges.in_flight);
        let mut text = String::new();
        // Writing to a String does not fail.
        let _ = encode(&mut text, &self.registry);
        text
    }

    /// The `tracing` layer that counts the events of `metrics`; install it with
    /// `harness_gen_registry::logs::install`.
    pub fn layer(metrics: Arc<Self>) -> harness_gen_registry::logs::Observer {
        Box::new(Counting { metrics })
    }
}

/// The layer behind [`Metrics::layer`].
struct Counting {
    metrics: Arc<Metrics>,
}

/// The tool a `tool_call` span is about, kept in its extensions.
struct ToolName(String);

/// The fields a metric reads from an event.
#[derive(Default)]
struct Fields {
    tool: Option<String>,
    outcome: Option<String>,
    failure: Option<String>,
    status: Option<u64>,
    duration_ms: Option<f64>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "tool" => self.tool = Some(value.to_owned()),
            "outcome" => self.outcome = Some(value.to_owned()),
            "failure" => self.failure = Some(value.to_owned()),
            _ => {}
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == "status" {
            self.status = Some(value);
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if field.name() == "status" {
            self.status = u64::try_from(value).ok();
        }
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if field.name() == "duration_ms" {
            self.duration_ms = Some(value);
        }
    }

    fn record_debug(&mut self, _field: &Field, _value: &dyn std::fmt::Debug) {}
}

impl<S> tracing_subscriber::Layer<S> for Counting
where
    S: tracing::Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if attrs.metadata().target() != CALL {
            return;
        }
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        if let (Some(tool), Some(span)) = (fields.tool, ctx.span(id)) {
            span.extensions_mut().insert(ToolName(tool));
        }
    }

    fn on_event(&self, event: &tracing::Event<'_>, ctx: Context<'_, S>) {
        let target = event.metadata().target();
        if target != CALL && target != UPSTREAM {
            return;
        }
        let mut fields = Fields::default();
        event.record(&mut fields);
        let seconds = fields.duration_ms.unwrap_or_default() / 1000.0;
        let metrics = &self.metrics;
        if target == UPSTREAM {
            let class = match (fields.status, fields.failure) {
                (Some(status), _) => format!("{}xx", status / 100),
                (None, Some(failure)) => failure,
                (None, None) => return,
            };
            metrics
                .upstream
                .get_or_create(&vec![("class", class)])
                .inc();
            metrics.upstream_seconds.observe(seconds);
            return;
        }
        let Some(outcome) = fields.outcome else {
            return;
        };
        let tool = ctx
            .event_span(event)
            .and_then(|span| span.extensions().get::<ToolName>().map(|t| t.0.clone()))
            .unwrap_or_default();
        metrics
            .calls
            .get_or_create(&vec![("tool", tool.clone()), ("outcome", outcome)])
            .inc();
        metrics
            .call_seconds
            .get_or_create(&vec![("tool", tool)])
            .observe(seconds);
    }
}

/// What the operator endpoints read.
#[derive(Clone)]
pub struct Operated {
    /// The server's metrics.
    pub metrics: Arc<Metrics>,
    /// The calls and tasks under way.
    pub activity: Arc<Activity>,
    /// The task store, which must answer for the server to be ready.
    pub store: Arc<dyn crate::TaskStore>,
    /// Reads the gauges at a scrape.
    pub gauges: Arc<dyn Fn() -> Gauges + Send + Sync>,
    /// Whether `/metrics` is served here (it is on its own address with `--metrics-addr`).
    pub with_metrics: bool,
}

/// The operator endpoints: `/healthz` (the process answers), `/readyz` (ready for calls: not
/// stopping, and the task store answers; `503` saying why otherwise) and, when
/// `with_metrics`, `/metrics`. They need no client authentication: put them where only the
/// operator's network reaches when the metrics are not to be public (`--metrics-addr`).
pub fn routes(operated: Operated) -> axum::Router {
    let with_metrics = operated.with_metrics;
    let state = Arc::new(operated);
    let router = axum::Router::new()
        .route("/healthz", axum::routing::get(|| async { "ok\n" }))
        .route("/readyz", axum::routing::get(ready));
    let router = if with_metrics {
        router.route("/metrics", axum::routing::get(scrape))
    } else {
        router
    };
    router.with_state(state)
}

/// `/metrics` alone, for `--metrics-addr`.
pub fn metrics_routes(operated: Operated) -> axum::Router {
    axum::Router::new()
        .route("/metrics", axum::routing::get(scrape))
        .with_state(Arc::new(operated))
}

async fn ready(axum::extract::State(operated): axum::extract::State<Arc<Operated>>) -> Response {
    if operated.activity.draining() {
        return (StatusCode::SERVICE_UNAVAILABLE, "stopping\n").into_response();
    }
    match operated.store.ping().await {
        Ok(()) => "ready\n".into_response(),
        Err(error) => (StatusCode::SERVICE_UNAVAILABLE, format!("{error}\n")).into_response(),
    }
}

async fn scrape(axum::extract::State(operated): axum::extract::State<Arc<Operated>>) -> Response {
    let text = operated.metrics.render((operated.gauges)());
    (
        [(
            header::CONTENT_TYPE,
            "application/openmetrics-text; version=1.0.0; charset=utf-8",
        )],
        text,
    )
        .into_response()
}
