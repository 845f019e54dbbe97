//! Traces over OTLP/HTTP (`--otlp URL`): every run, script and eval instance
//! becomes a trace in whatever collector the user already runs (Phoenix, Jaeger,
//! Langfuse, an OpenTelemetry Collector), shaped by the OpenTelemetry GenAI
//! conventions. The spans are built from the same typed events `events.jsonl`
//! gets (`spans.rs`, fed by the trajectory), so a trace never says something the
//! run directory does not; the names are in `semconv.rs`; `endpoint.rs` says
//! where they go; `export.rs` counts what reached the collector.
//!
//! Not here: deciding what to record (the agent and the script runner append
//! events), sampling, metrics or logs. Message contents (prompts, replies, code,
//! tool arguments and results) are exported only with `--otlp-content`, and
//! everything exported goes through the secret filter first.

mod endpoint;
mod export;
pub mod semconv;
mod spans;

use std::sync::Arc;
use std::time::Duration;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

pub use endpoint::{DISABLED_VAR, ENDPOINT_VAR, Endpoint, TRACES_ENDPOINT_VAR, TraceError};
pub use export::Exported;
pub use spans::RunSpans;

/// The exporter's HTTP client: it follows no redirect, so the spans and a hosted
/// collector's key (`OTEL_EXPORTER_OTLP_HEADERS`) go to the address given and
/// nowhere else (a redirect is an export failure, counted and reported). Built on a
/// thread of its own: a blocking client cannot be built inside the async runtime.
fn no_redirects_client() -> Result<reqwest::blocking::Client, std::io::Error> {
    std::thread::Builder::new()
        .name("codeact-otlp-client".into())
        .spawn(|| {
            reqwest::blocking::Client::builder()
                .timeout(Duration::from_secs(10))
                .redirect(reqwest::redirect::Policy::none())
                .build()
        })?
        .join()
        .map_err(|_| std::io::Error::other("building the HTTP client failed"))?
        .map_err(std::io::Error::other)
}

/// The exporter of one command: every run, script or instance of the command is
/// one trace through it. Spans leave in batches as the run goes (every few
/// seconds), so a killed run has sent all but its last ones.
pub struct Traces {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
    tally: Arc<export::Tally>,
    endpoint: Endpoint,
    content: bool,
}

impl std::fmt::Debug for Traces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Traces").field("endpoint", &self.endpoint.shown()).field("content", &self.content).finish()
    }
}

impl Traces {
    /// Starts exporting to `endpoint`; `content` adds prompts, replies, code and
    /// tool arguments and results to the spans. `OTEL_SERVICE_NAME`,
    /// `OTEL_RESOURCE_ATTRIBUTES` and `OTEL_EXPORTER_OTLP_HEADERS` (an API key
    /// for a hosted collector) are honoured.
    pub fn start(endpoint: Endpoint, content: bool) -> Result<Self, TraceError> {
        // The HTTP client needs rustls' crypto chosen before it is built (an https
        // collector); installing it twice is harmless.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_http_client(
                no_redirects_client().map_err(|source| TraceError::Client { url: endpoint.shown(), source })?,
            )
            .with_endpoint(endpoint.url.clone())
            .with_timeout(Duration::from_secs(10))
            .build()
            .map_err(|source| TraceError::Exporter { url: endpoint.shown(), source })?;
        let tally = Arc::new(export::Tally::default());
        let mut resource = opentelemetry_sdk::Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none() {
            resource = resource.with_service_name(semconv::AGENT);
        }
        let resource =
            resource.with_attribute(opentelemetry::KeyValue::new("service.version", env!("CARGO_PKG_VERSION"))).build();
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(export::Tallied::new(exporter, tally.clone(), endpoint.clone()))
            .with_resource(resource)
            .build();
        let tracer = provider.tracer(semconv::AGENT);
        Ok(Self { provider, tracer, tally, endpoint, content })
    }

    pub fn endpoint(&self) -> &Endpoint {
        &self.endpoint
    }

    /// A span builder for one run directory's events: `conversation` is the
    /// run's id (`gen_ai.conversation.id`, the run directory's name).
    pub fn spans_for(&self, conversation: &str) -> RunSpans {
        RunSpans::new(self.tracer.clone(), conversation, self.content)
    }

    /// Sends what is left and stops the exporter (blocks up to its timeout when
    /// the collector does not answer). Call it once, outside async code.
    pub fn finish(&self) -> Exported {
        if let Err(e) = self.provider.shutdown() {
            self.tally.note_error(&e.to_string(), &self.endpoint);
        }
        self.tally.exported()
    }
}
