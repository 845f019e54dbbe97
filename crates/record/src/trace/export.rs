//! The OTLP exporter, counted: how many spans reached the collector and why the
//! first batch that did not failed, so the command can say so in one line at the
//! end instead of losing traces silently. Not the transport (opentelemetry-otlp).

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};

use super::endpoint::Endpoint;

/// What reached the collector by the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    pub spans: usize,
    pub lost: usize,
    /// Why the first batch that failed did (no credentials in it).
    pub error: Option<String>,
}

/// Spans exported and lost so far.
#[derive(Debug, Default)]
pub(super) struct Tally {
    exported: AtomicUsize,
    lost: AtomicUsize,
    first_error: Mutex<Option<String>>,
}

impl Tally {
    /// Keeps the first failure's message (an export's, or the final flush's).
    pub(super) fn note_error(&self, error: &str, endpoint: &Endpoint) {
        let mut first = self.first_error.lock().unwrap_or_else(|e| e.into_inner());
        if first.is_none() {
            // The exporter's message may quote the URL with its credentials.
            let text = error.replace(&endpoint.url, &endpoint.shown());
            *first = Some(codeact_base::secrets::redact(&text).into_owned());
        }
    }

    pub(super) fn exported(&self) -> Exported {
        Exported {
            spans: self.exported.load(Ordering::SeqCst),
            lost: self.lost.load(Ordering::SeqCst),
            error: self.first_error.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        }
    }
}

/// An exporter that counts what its inner exporter sent.
#[derive(Debug)]
pub(super) struct Tallied<E> {
    inner: E,
    tally: std::sync::Arc<Tally>,
    endpoint: Endpoint,
}

impl<E> Tallied<E> {
    pub(super) fn new(inner: E, tally: std::sync::Arc<Tally>, endpoint: Endpoint) -> Self {
        Self { inner, tally, endpoint }
    }
}

impl<E: SpanExporter> SpanExporter for Tallied<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let count = batch.len();
        let result = self.inner.export(batch).await;
        match &result {
            Ok(()) => self.tally.exported.fetch_add(count, Ordering::SeqCst),
            Err(e) => {
                self.tally.note_error(&e.to_string(), &self.endpoint);
                self.tally.lost.fetch_add(count, Ordering::SeqCst)
            }
        };
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn shutdown(&self) -> OTelSdkResult {
        self.inner.shutdown()
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &opentelemetry_sdk::Resource) {
        self.inner.set_resource(resource);
    }
}
