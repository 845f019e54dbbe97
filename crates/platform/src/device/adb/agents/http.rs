//! The HTTP/1.1 an on-device agent speaks, over one ADB `tcp:PORT` stream per
//! request (as uiautomator2's own client does): the request's bytes, and a reader
//! that knows when a reply is whole (`Content-Length`, chunked, or the stream's
//! close) so that the stream can be closed without waiting for the device. Headers
//! are read with `httparse`. Not what the agent's replies mean (`u2.rs`).

pub use crate::device::errors::http::HttpError;
use crate::device::errors::http::MOST_REPLY;

/// The most headers a reply may have.
const MOST_HEADERS: usize = 64;

/// A whole reply: its status and body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpReply {
    pub status: u16,
    pub body: Vec<u8>,
}

/// `METHOD PATH HTTP/1.1` with a JSON body (when there is one); the connection is
/// closed after the reply. `token` goes in an `Authorization: Bearer` header.
pub fn request(method: &str, path: &str, body: Option<&[u8]>, token: Option<&str>) -> Vec<u8> {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: codeact\r\nAccept-Encoding: identity\r\nConnection: close\r\n"
    );
    if let Some(token) = token {
        head.push_str(&format!("Authorization: Bearer {token}\r\n"));
    }
    if let Some(body) = body {
        head.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body.unwrap_or_default());
    bytes
}

/// How the body's end is known.
#[derive(Debug, Clone, Copy)]
enum Framing {
    Length(usize),
    Chunked,
    UntilClose,
}

/// Reads a reply as its bytes arrive.
#[derive(Debug, Default)]
pub struct ReplyReader {
    bytes: Vec<u8>,
    /// Status, where the body starts, and how it ends, once the head is in.
    head: Option<(u16, usize, Framing)>,
    /// The chunked body decoded so far, and where the next chunk starts.
    chunked: Vec<u8>,
    next_chunk: usize,
    done: bool,
}

impl ReplyReader {
    /// Takes more bytes; `Ok(true)` once the reply is whole.
    pub fn push(&mut self, bytes: &[u8]) -> Result<bool, HttpError> {
        if self.bytes.len() + bytes.len() > MOST_REPLY {
            return Err(HttpError::TooLarge);
        }
        self.bytes.extend_from_slice(bytes);
        if self.head.is_none() {
            self.read_head()?;
        }
        let Some((_, start, framing)) = self.head else { return Ok(false) };
        self.done = match framing {
            Framing::Length(n) => self.bytes.len() >= start + n,
            Framing::Chunked => self.read_chunks()?,
            Framing::UntilClose => false,
        };
        Ok(self.done)
    }

    fn read_head(&mut self) -> Result<(), HttpError> {
        let mut headers = [httparse::EMPTY_HEADER; MOST_HEADERS];
        let mut response = httparse::Response::new(&mut headers);
        let not_http =
            |bytes: &[u8]| HttpError::NotHttp(codeact_base::clip::clip(&String::from_utf8_lossy(bytes), 60).into());
        // Known at the first bytes: a reply that does not begin as HTTP's does.
        let seen = self.bytes.len().min(5);
        if self.bytes[..seen] != b"HTTP/"[..seen] {
            return Err(not_http(&self.bytes));
        }
        let start = match response.parse(&self.bytes) {
            Ok(httparse::Status::Complete(n)) => n,
            Ok(httparse::Status::Partial) => return Ok(()),
            Err(_) => return Err(not_http(&self.bytes)),
        };
        let status = response.code.unwrap_or(0);
        let header = |name: &str| {
            response
                .headers
                .iter()
                .find(|h| h.name.eq_ignore_ascii_case(name))
                .map(|h| String::from_utf8_lossy(h.value).trim().to_ascii_lowercase())
        };
        let framing = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
            Framing::Chunked
        } else if let Some(length) = header("content-length") {
            Framing::Length(length.parse().map_err(|_| not_http(&self.bytes))?)
        } else {
            Framing::UntilClose
        };
        if let Framing::Length(n) = framing
            && n > MOST_REPLY
        {
            return Err(HttpError::TooLarge);
        }
        self.head = Some((status, start, framing));
        self.next_chunk = start;
        Ok(())
    }

    /// Decodes the chunks that are whole; `Ok(true)` after the last one.
    fn read_chunks(&mut self) -> Result<bool, HttpError> {
        loop {
            let rest = &self.bytes[self.next_chunk..];
            let Some(line_end) = rest.windows(2).position(|w| w == b"\r\n") else { return Ok(false) };
            let line = std::str::from_utf8(&rest[..line_end]).map_err(|_| HttpError::BadChunk)?;
            let size_text = line.split(';').next().unwrap_or("").trim();
            let size = usize::from_str_radix(size_text, 16).map_err(|_| HttpError::BadChunk)?;
            let data_start = line_end + 2;
            if size == 0 {
                // The last chunk; trailers (none expected) end with an empty line.
                return Ok(rest[data_start..].windows(2).any(|w| w == b"\r\n"));
            }
            if size > MOST_REPLY || rest.len() < data_start + size + 2 {
                return Ok(false);
            }
            if &rest[data_start + size..data_start + size + 2] != b"\r\n" {
                return Err(HttpError::BadChunk);
            }
            self.chunked.extend_from_slice(&rest[data_start..data_start + size]);
            self.next_chunk += data_start + size + 2;
        }
    }

    /// The reply, once the stream ended (`closed`) or the reply is whole.
    pub fn finish(self, closed: bool) -> Result<HttpReply, HttpError> {
        let Some((status, start, framing)) = self.head else {
            return Err(if self.bytes.is_empty() {
                HttpError::CutShort(0)
            } else {
                HttpError::NotHttp(codeact_base::clip::clip(&String::from_utf8_lossy(&self.bytes), 60).into())
            });
        };
        let body = match framing {
            Framing::Length(n) if self.done => self.bytes[start..start + n].to_vec(),
            Framing::Chunked if self.done => self.chunked,
            Framing::UntilClose if closed => self.bytes[start..].to_vec(),
            _ => return Err(HttpError::CutShort(self.bytes.len())),
        };
        Ok(HttpReply { status, body })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pieces: &[&[u8]], closed: bool) -> Result<HttpReply, HttpError> {
        let mut reader = ReplyReader::default();
        for piece in pieces {
            if reader.push(piece)? {
                break;
            }
        }
        reader.finish(closed)
    }

    #[test]
    fn replies_end_by_length_chunks_or_close() {
        let reply = read(&[b"HTTP/1.1 200 OK\r\nContent-Le", b"ngth: 4\r\n\r\npo", b"ng"], false).unwrap();
        assert_eq!((reply.status, reply.body.as_slice()), (200, &b"pong"[..]));
        let chunked = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=1\r\nde\r\n0\r\n\r\n";
        let mut reader = ReplyReader::default();
        let mut whole = false;
        for byte in chunked.iter() {
            whole = reader.push(&[*byte]).unwrap();
        }
        assert!(whole);
        assert_eq!(reader.finish(false).unwrap().body, b"abcde");
        assert_eq!(read(&[b"HTTP/1.0 404 Not Found\r\n\r\nNot Found!!!"], true).unwrap().body, b"Not Found!!!");
    }

    #[test]
    fn garbage_and_cut_replies_are_errors() {
        assert!(matches!(read(&[b"\x00\x01garbage"], true), Err(HttpError::NotHttp(_))));
        assert!(matches!(read(&[b"{\"jsonrpc\":\"2.0\"}"], true), Err(HttpError::NotHttp(_))));
        assert!(matches!(
            read(&[b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"], true),
            Err(HttpError::CutShort(_))
        ));
        assert!(matches!(read(&[], true), Err(HttpError::CutShort(0))));
        assert!(matches!(
            read(&[b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n"], true),
            Err(HttpError::TooLarge)
        ));
        assert!(matches!(
            read(&[b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"], true),
            Err(HttpError::BadChunk)
        ));
        let asked = request("POST", "/jsonrpc/0", Some(b"{}"), Some("t0k"));
        let text = String::from_utf8(asked).unwrap();
        assert!(
            text.starts_with("POST /jsonrpc/0 HTTP/1.1\r\n")
                && text.contains("Content-Length: 2\r\n")
                && text.ends_with("\r\n\r\n{}")
        );
        assert!(text.contains("Authorization: Bearer t0k\r\n"));
    }
}
