//! The door of a server codeact starts on 127.0.0.1 (the studio, the WebDriver
//! endpoint): who may come in. Every path starts with the token printed at start
//! (`http://127.0.0.1:PORT/TOKEN/`, compared in constant time), so a page's own
//! relative links and a WebDriver client's base path carry it and nothing else
//! reaches a route; the `Host` header must name this loopback port (no DNS
//! rebinding) and an `Origin`, when a browser sends one, this very origin (no other
//! page may drive the phone). Not how each server words a refusal, nor its routes.

use axum::http::{HeaderMap, header};

/// Why a request is turned away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No token, or not this one.
    Token,
    /// A `Host` that is not this loopback port.
    Host,
    /// An `Origin` that is not this page's.
    Origin,
}

/// The loopback names this port answers to.
fn ours(port: u16) -> [String; 2] {
    [format!("127.0.0.1:{port}"), format!("localhost:{port}")]
}

/// Checks a request's headers and path; the path without its token.
pub fn admit<'a>(headers: &HeaderMap, path: &'a str, token: &str, port: u16) -> Result<&'a str, Refusal> {
    let names = ours(port);
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok()).unwrap_or("");
    if !names.iter().any(|n| n == host) {
        return Err(Refusal::Host);
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        if !names.iter().any(|n| origin == format!("http://{n}")) {
            return Err(Refusal::Origin);
        }
    }
    let rest = path.strip_prefix('/').unwrap_or(path);
    let (given, rest) = rest.split_once('/').unwrap_or((rest, ""));
    if !codeact_base::token::same_token(given, token) {
        return Err(Refusal::Token);
    }
    Ok(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(host: &str, origin: Option<&str>) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h
    }

    #[test]
    fn only_this_page_with_the_token_comes_in() {
        let ok = headers("127.0.0.1:9000", Some("http://127.0.0.1:9000"));
        assert_eq!(admit(&ok, "/tok/api/tree", "tok", 9000), Ok("api/tree"));
        assert_eq!(admit(&ok, "/tok/", "tok", 9000), Ok(""));
        assert_eq!(admit(&ok, "/tok", "tok", 9000), Ok(""));
        assert_eq!(admit(&ok, "/tik/api", "tok", 9000), Err(Refusal::Token));
        assert_eq!(admit(&ok, "/api", "tok", 9000), Err(Refusal::Token));
        assert_eq!(admit(&headers("evil.example:9000", None), "/tok/", "tok", 9000), Err(Refusal::Host));
        assert_eq!(admit(&headers("127.0.0.1:9001", None), "/tok/", "tok", 9000), Err(Refusal::Host));
        let foreign = headers("localhost:9000", Some("http://evil.example"));
        assert_eq!(admit(&foreign, "/tok/", "tok", 9000), Err(Refusal::Origin));
        assert_eq!(admit(&headers("localhost:9000", None), "/tok/x", "tok", 9000), Ok("x"));
    }
}
