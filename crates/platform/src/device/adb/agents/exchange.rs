//! One HTTP exchange with what listens on a device port: the request written and
//! the reply read (`http.rs`) over one ADB `tcp:PORT` stream, nothing listening
//! told apart from a broken exchange. What the agents' replies mean is theirs
//! (`u2.rs`, `portal.rs`).

use std::time::Duration;

use super::http::{ReplyReader, request};
use crate::device::adb::device::AdbDevice;
use crate::device::adb::transport::TransportError;
use crate::device::errors::agent::AgentError;

impl AdbDevice {
    /// One HTTP exchange with what listens on device port `port`, within
    /// `timeout`: the status and the body. Nothing listening is
    /// [`AgentError::NotListening`].
    pub(in crate::device::adb) fn agent_http(
        &mut self,
        port: u16,
        method: &str,
        path: &str,
        body: Option<&[u8]>,
        token: Option<&str>,
        timeout: Duration,
    ) -> Result<(u16, Vec<u8>), AgentError> {
        let asked = request(method, path, body, token);
        let mut reader = ReplyReader::default();
        // A reply that cannot be read ends the stream at once; the reason is kept.
        let mut unreadable = None;
        let whole = self
            .port_exchange(port, &asked, timeout, |bytes| match reader.push(bytes) {
                Ok(whole) => Ok(whole),
                Err(e) => {
                    unreadable = Some(e);
                    Ok(true)
                }
            })
            .map_err(|e| match e {
                TransportError::Refused(_) => AgentError::NotListening { port },
                other => AgentError::Transport(other),
            })?;
        if let Some(e) = unreadable {
            return Err(e.into());
        }
        let reply = reader.finish(!whole)?;
        Ok((reply.status, reply.body))
    }
}
