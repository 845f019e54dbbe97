//! The transports: stdio (one client: the process that started codeact) and
//! streamable HTTP on 127.0.0.1 only, where every request must carry the bearer
//! token (`Authorization: Bearer TOKEN`), compared in constant time; a request
//! without it gets 401 and a JSON-RPC error, and the server goes on. rmcp's own
//! checks stay on: only loopback `Host` headers are served (no DNS rebinding).
//! Not the tools (`server.rs`).

use std::net::SocketAddr;
use std::sync::Arc;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use rmcp::ServiceExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio_util::sync::CancellationToken;

use super::options::McpOptions;
use super::server::CodeactServer;

/// Why the server could not serve.
#[derive(Debug, thiserror::Error)]
pub enum McpServeError {
    #[error(transparent)]
    Bind(#[from] crate::listen::BindError),
    #[error("the MCP client did not start a session over stdio")]
    Start(#[source] Box<rmcp::service::ServerInitializeError>),
    #[error("no random token could be made")]
    Token(#[source] std::io::Error),
}

/// Serves one client over stdin and stdout until it goes away.
pub async fn serve_stdio(options: McpOptions) -> Result<(), McpServeError> {
    let server = CodeactServer::new(options, true);
    let running = server.serve(rmcp::transport::stdio()).await.map_err(|e| McpServeError::Start(Box::new(e)))?;
    // The client closing its end is the normal way out.
    let _ = running.waiting().await;
    Ok(())
}

/// A bearer token of 32 random bytes, as hex.
pub fn new_token() -> Result<String, McpServeError> {
    codeact_base::token::new_token().map_err(McpServeError::Token)
}

/// Whether `given` is `Bearer TOKEN` with this token, in time that does not depend
/// on where they differ.
fn bearer_matches(given: Option<&HeaderValue>, token: &str) -> bool {
    let Some(given) = given.and_then(|v| v.to_str().ok()) else { return false };
    let Some(given) = given.strip_prefix("Bearer ").or_else(|| given.strip_prefix("bearer ")) else { return false };
    codeact_base::token::same_token(given.trim(), token)
}

/// The header an MCP session is named by.
const SESSION_HEADER: &str = "mcp-session-id";

/// At most this many MCP sessions are open at once (each initialize opens one);
/// past it a new one is refused until one ends or idles out (after 5 minutes).
pub const MAX_HTTP_SESSIONS: usize = 64;

/// The largest request body taken.
pub const MAX_REQUEST_BYTES: usize = 1024 * 1024;

fn too_many_sessions() -> Response {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":null,"error":{{"code":-32000,"message":"codeact mcp: {MAX_HTTP_SESSIONS} sessions are open; end one (HTTP DELETE with its mcp-session-id) or wait until one idles out (5 minutes)"}}}}"#
    );
    let mut response = (StatusCode::SERVICE_UNAVAILABLE, body).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn unauthorized() -> Response {
    let body = r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32001,"message":"codeact mcp: send the token codeact printed at start as the header Authorization: Bearer TOKEN"}}"#;
    let mut response = (StatusCode::UNAUTHORIZED, body).into_response();
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// Serves MCP at `http://127.0.0.1:PORT/mcp` (0: any free port) until `stop` is
/// cancelled; `ready` hears the address once it listens.
pub async fn serve_http(
    options: McpOptions,
    port: u16,
    token: String,
    stop: CancellationToken,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), McpServeError> {
    let (listener, address) = crate::listen::bind_loopback(port, "--http port").await?;
    let server = CodeactServer::new(options, false);
    let mut config = StreamableHttpServerConfig::default();
    // Clients on protocols before 2026-07-28 get MCP sessions: one codeact session each.
    config.legacy_session_mode = true;
    config.cancellation_token = stop.child_token();
    // Requests are code and arguments, not files: a script is at most 256 KiB.
    config.max_request_body_bytes = MAX_REQUEST_BYTES;
    // A page in a browser on this machine may not call it (Host is loopback-only already).
    let port = address.port();
    config.allowed_origins = vec![format!("http://127.0.0.1:{port}"), format!("http://localhost:{port}")];
    let sessions = Arc::new(LocalSessionManager::default());
    let handler = server.clone();
    let service: StreamableHttpService<CodeactServer, LocalSessionManager> =
        StreamableHttpService::new(move || Ok(handler.clone()), sessions.clone(), config);
    let token = Arc::new(token);
    let router = axum::Router::new().nest_service("/mcp", service).layer(axum::middleware::from_fn(
        move |request: axum::extract::Request, next: axum::middleware::Next| {
            let (token, sessions, server) = (token.clone(), sessions.clone(), server.clone());
            async move {
                if !bearer_matches(request.headers().get(header::AUTHORIZATION), &token) {
                    return unauthorized();
                }
                let session = request.headers().get(SESSION_HEADER).and_then(|v| v.to_str().ok()).map(str::to_string);
                if request.method() == axum::http::Method::POST
                    && session.is_none()
                    && sessions.sessions.read().await.len() >= MAX_HTTP_SESSIONS
                {
                    return too_many_sessions();
                }
                let deleting = request.method() == axum::http::Method::DELETE;
                let mut response = next.run(request).await;
                if deleting && response.status().is_success() {
                    // The MCP SDKs take 200 or 204 for an ended session (rmcp says 202).
                    *response.status_mut() = StatusCode::OK;
                    if let Some(id) = &session {
                        server.end_session(id);
                    }
                }
                response
            }
        },
    ));
    ready(address);
    crate::listen::serve(listener, router, stop).await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_bearer_token_passes() {
        let token = new_token().unwrap();
        assert_eq!(token.len(), 64);
        let header = |s: &str| HeaderValue::from_str(s).unwrap();
        assert!(bearer_matches(Some(&header(&format!("Bearer {token}"))), &token));
        assert!(!bearer_matches(Some(&header(&format!("Bearer {}", &token[1..]))), &token));
        assert!(!bearer_matches(Some(&header(&format!("Basic {token}"))), &token));
        assert!(!bearer_matches(Some(&header("Bearer ")), &token));
        assert!(!bearer_matches(None, &token));
    }
}
