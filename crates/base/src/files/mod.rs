//! Files a person names and files codeact writes: reads are capped (`read.rs`), and
//! output paths are derived and created so that nothing lands outside the folder it
//! belongs in (`write.rs`); paths a client names below a server's folder are
//! checked with links resolved (`below.rs`).

mod below;
mod read;
mod write;

pub use below::{existing_below, new_below};
pub use read::{DATA_BYTES, TEXT_BYTES, read_bytes, read_bytes_from, read_text, read_text_from};
pub use write::{create_fresh_folder, create_run_folder, safe_component, write_new, write_replacing};
