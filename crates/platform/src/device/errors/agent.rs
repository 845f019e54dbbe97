//! Why an exchange with an on-device agent (uiautomator2's server, the Portal)
//! failed ([`AgentError`]); the caller names the device, the agent and the
//! operation. Not the agents (`adb/agents/`).

use super::http::HttpError;
use super::transport::TransportError;

/// Why an exchange with an agent failed. The caller names the device, the agent
/// and the operation.
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("nothing listens on device port {port}")]
    NotListening { port: u16 },
    #[error("the ADB stream to it failed")]
    Transport(#[source] TransportError),
    #[error("its reply could not be read")]
    Http(#[from] HttpError),
    #[error("it answered HTTP {status}: {}", codeact_base::clip::clip(.body, 2048))]
    Status { status: u16, body: String },
    #[error("its reply is not the JSON-RPC it should be ({0})")]
    NotJsonRpc(String),
    #[error("it reported error {code}: {message}")]
    Rpc { code: i64, message: String },
    #[error(
        "it answered 401 Unauthorized: the token its content provider gave (content://com.droidrun.portal/auth_token) is missing or no longer valid"
    )]
    Unauthorized,
    #[error("it quit while starting: {output}")]
    Quit { output: String },
    #[error("it did not answer within {secs:.1} s of being started; its output: {output}")]
    NotReady { secs: f64, output: String },
}
