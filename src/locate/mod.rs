//! Locating what the UI tree cannot say where: a reference picture matched on the
//! screenshot (`matcher.rs`, on the pictures `picture.rs` prepares), the pictures
//! kept in a gallery folder (`gallery.rs`). Image selectors and AI locating build on
//! it.
//!
//! Nothing here talks to a device or a model: it takes pixels and gives places.

pub mod gallery;
pub mod matcher;
pub mod picture;

pub use gallery::{Gallery, GalleryError, Reference};
pub use matcher::{Found, MatchOptions, Place, Screen};
pub use picture::Planes;
