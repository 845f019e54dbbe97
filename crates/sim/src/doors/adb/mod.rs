//! The ADB wire protocol, device side: framing (`message`), connections (`connection`)
//! and their streams (`stream`), and the services a stream runs (`services`, `sync`).

pub(crate) mod connection;
mod message;
mod services;
mod stream;
mod sync;

pub(crate) use stream::StreamIo;
