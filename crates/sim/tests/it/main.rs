//! The virtual device's integration tests, in one binary (the fonts and the world are
//! linked once): driven through adb_client (`adb_client`, `world`), the stock `adb`
//! (`stock_adb`), and compared with real dumps (`dump_format`). Every test reaches the
//! device over ADB and reads its state with `simctl`, as any client would.

mod support;

mod adb_client;
mod dump_format;
mod stock_adb;
mod world;
