//! The ADB wire protocol, device side: framing (`message`), connections (`connection`)
//! and their streams (`stream`), and the services a stream runs (`services`, `sync`,
//! `forward`).

pub(crate) mod connection;
mod forward;
mod message;
mod services;
mod stream;
mod sync;

pub(crate) use stream::StreamIo;
