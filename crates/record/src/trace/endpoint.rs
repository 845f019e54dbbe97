//! Where spans go: the collector's OTLP/HTTP traces endpoint, from `--otlp URL` or
//! the OpenTelemetry environment variables, checked and shown without its
//! credentials; and why tracing could not be set up ([`TraceError`]). Not here:
//! exporting (`export.rs`) or the exporter's life (`mod.rs`).

use std::time::Duration;

/// The environment variables the OTLP exporter conventions define, read in
/// this order when `--otlp` is not given.
pub const TRACES_ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT";
pub const ENDPOINT_VAR: &str = "OTEL_EXPORTER_OTLP_ENDPOINT";
/// `true` turns tracing off whatever else is set (the SDK convention).
pub const DISABLED_VAR: &str = "OTEL_SDK_DISABLED";
/// Where OTLP/HTTP collectors take traces, under their base URL.
const TRACES_PATH: &str = "/v1/traces";

#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error(
        "{from} is not an http:// or https:// URL ({value}); give the collector's address, e.g. http://localhost:6006 (Phoenix) or http://localhost:4318"
    )]
    NotAUrl { from: String, value: String },
    #[error("cannot set up the OTLP exporter for {url}")]
    Exporter {
        url: String,
        #[source]
        source: opentelemetry_otlp::ExporterBuildError,
    },
    #[error("cannot set up the HTTP client for the collector {url}")]
    Client {
        url: String,
        #[source]
        source: std::io::Error,
    },
}

/// Where spans go: the full URL of the collector's OTLP/HTTP traces endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub(super) url: String,
}

impl Endpoint {
    /// The endpoint from `--otlp URL`, else `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`
    /// (used as it is), else `OTEL_EXPORTER_OTLP_ENDPOINT` (a base URL); none
    /// when tracing is off. A base URL gets `/v1/traces` unless it ends with it
    /// already, so `http://localhost:6006` and `http://localhost:6006/v1/traces`
    /// both reach Phoenix.
    pub fn resolve(flag: Option<&str>) -> Result<Option<Self>, TraceError> {
        Self::resolve_with(flag, |name| std::env::var(name).ok())
    }

    fn resolve_with(flag: Option<&str>, env: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, TraceError> {
        let set = |name: &str| env(name).map(|v| v.trim().to_string()).filter(|v| !v.is_empty());
        if flag.is_none() && set(DISABLED_VAR).is_some_and(|v| v.eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        let (from, value, whole) = match (flag, set(TRACES_ENDPOINT_VAR), set(ENDPOINT_VAR)) {
            (Some(url), _, _) => ("--otlp".to_string(), url.trim().to_string(), false),
            (None, Some(url), _) => (TRACES_ENDPOINT_VAR.to_string(), url, true),
            (None, None, Some(url)) => (ENDPOINT_VAR.to_string(), url, false),
            (None, None, None) => return Ok(None),
        };
        let Some(rest) = value.strip_prefix("http://").or_else(|| value.strip_prefix("https://")) else {
            return Err(TraceError::NotAUrl { from, value: shown(&value) });
        };
        if rest.split(['/', '?', '#']).next().is_none_or(str::is_empty) {
            return Err(TraceError::NotAUrl { from, value: shown(&value) });
        }
        let url = if whole || value.trim_end_matches('/').ends_with(TRACES_PATH) {
            value
        } else {
            format!("{}{TRACES_PATH}", value.trim_end_matches('/'))
        };
        Ok(Some(Self { url }))
    }

    /// Whether something listens at the endpoint's host and port (a TCP connect,
    /// within `timeout`): a collector that is not running is worth saying at the
    /// start, not after the run.
    pub fn probe(&self, timeout: Duration) -> std::io::Result<()> {
        use std::net::ToSocketAddrs as _;
        let url = reqwest::Url::parse(&self.url).map_err(std::io::Error::other)?;
        let port = url.port_or_known_default().unwrap_or(80);
        let host = url.host_str().unwrap_or("localhost").trim_start_matches('[').trim_end_matches(']');
        let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "the host name resolves to no address");
        for addr in (host, port).to_socket_addrs()? {
            match std::net::TcpStream::connect_timeout(&addr, timeout) {
                Ok(_) => return Ok(()),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// The URL as messages show it: no user name or password, no query.
    pub fn shown(&self) -> String {
        shown(&self.url)
    }
}

/// `url` without credentials or query (both may carry secrets).
fn shown(url: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("", url));
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let (host, path) = rest.split_once('/').map_or((rest, ""), |(h, p)| (h, p));
    let host = host.rsplit('@').next().unwrap_or(host);
    let path = if path.is_empty() { String::new() } else { format!("/{path}") };
    let text = if scheme.is_empty() { format!("{host}{path}") } else { format!("{scheme}://{host}{path}") };
    codeact_base::secrets::redact(&text).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolve(flag: Option<&str>, vars: &[(&str, &str)]) -> Result<Option<String>, TraceError> {
        let vars: Vec<(String, String)> = vars.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        Endpoint::resolve_with(flag, |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
            .map(|e| e.map(|e| e.url))
    }

    #[test]
    fn base_urls_get_the_traces_path_and_full_ones_are_kept() {
        assert_eq!(resolve(Some("http://localhost:6006"), &[]).unwrap().unwrap(), "http://localhost:6006/v1/traces");
        assert_eq!(resolve(Some("http://localhost:6006/"), &[]).unwrap().unwrap(), "http://localhost:6006/v1/traces");
        assert_eq!(
            resolve(Some("http://localhost:6006/v1/traces"), &[]).unwrap().unwrap(),
            "http://localhost:6006/v1/traces"
        );
        assert_eq!(
            resolve(None, &[(ENDPOINT_VAR, "https://collector:4318/otlp")]).unwrap().unwrap(),
            "https://collector:4318/otlp/v1/traces"
        );
        assert_eq!(
            resolve(None, &[(TRACES_ENDPOINT_VAR, "http://c:4318/custom"), (ENDPOINT_VAR, "http://other:1")])
                .unwrap()
                .unwrap(),
            "http://c:4318/custom"
        );
    }

    #[test]
    fn the_flag_wins_and_nothing_set_is_no_tracing() {
        assert_eq!(resolve(None, &[]).unwrap(), None);
        assert_eq!(resolve(None, &[(ENDPOINT_VAR, "http://a:1"), (DISABLED_VAR, "true")]).unwrap(), None);
        assert_eq!(
            resolve(Some("http://flag:1"), &[(ENDPOINT_VAR, "http://env:1"), (DISABLED_VAR, "true")]).unwrap().unwrap(),
            "http://flag:1/v1/traces"
        );
    }

    #[test]
    fn a_bad_url_says_where_it_came_from_without_its_credentials() {
        let err = resolve(Some("localhost:6006"), &[]).unwrap_err().to_string();
        assert!(err.starts_with("--otlp is not an http:// or https:// URL (localhost:6006)"), "{err}");
        let err = resolve(None, &[(ENDPOINT_VAR, "grpc://user:hunter22@c:4317?token=abc")]).unwrap_err().to_string();
        assert!(err.contains(ENDPOINT_VAR) && !err.contains("hunter22") && !err.contains("abc"), "{err}");
        assert!(resolve(Some("http://"), &[]).is_err());
    }

    #[test]
    fn shown_urls_drop_credentials_and_queries() {
        assert_eq!(shown("https://u:p@host:1/v1/traces?k=v"), "https://host:1/v1/traces");
        assert_eq!(shown("http://host"), "http://host");
    }
}
