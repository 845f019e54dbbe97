//! The reference gallery: a folder of pictures (PNG) and its `index.json`, which
//! names each picture, gives its aliases, the screen size and the place it was cut
//! from, and (optionally) the score a match must reach. What `#{image: "NAME"}`
//! looks for; `codeact assets add|list|find` keep it.
//!
//! ```json
//! {"version": 1, "references": [
//!   {"name": "send_button", "file": "send_button.png", "aliases": ["send"],
//!    "screen": [1080, 2400], "at": [940, 2210, 120, 120], "threshold": 0.8}
//! ]}
//! ```
//!
//! Everything read is checked — names, files that stay inside the folder, sizes,
//! places inside their screen — and a broken index is an error that names the file
//! and what to fix, never a panic. Nothing here matches (`matcher.rs`).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::picture::Planes;

/// The index's file name inside the gallery folder.
pub const INDEX: &str = "index.json";
/// At most this many references in one gallery.
const MAX_REFERENCES: usize = 1000;
/// A reference picture's sides, at most (pixels).
const MAX_SIDE: u32 = 4096;
/// The index file's size, at most.
/// The largest reference picture file read.
const MAX_PICTURE_BYTES: usize = 32 << 20;
const MAX_INDEX_BYTES: u64 = 4 * 1024 * 1024;

/// One reference picture.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reference {
    pub name: String,
    /// Its PNG, a file name inside the gallery folder.
    pub file: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    /// The screen it was cut from, in pixels (width, height).
    pub screen: [u32; 2],
    /// Where it was cut (x, y, width, height), in that screen's pixels.
    pub at: [u32; 4],
    /// The least score a match must reach (0..1); 0.8 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f32>,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Index {
    version: u32,
    #[serde(default)]
    references: Vec<Reference>,
}

/// Why the gallery cannot be read or changed.
#[derive(Debug, thiserror::Error)]
pub enum GalleryError {
    #[error("cannot read {}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot write {}", .path.display())]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{}: line {line}, column {column}: {message}", .path.display())]
    Parse { path: PathBuf, line: usize, column: usize, message: String },
    #[error("{}: {message}", .path.display())]
    Invalid { path: PathBuf, message: String },
    #[error("{0:?} is not a reference name: use 1 to 64 lowercase letters, digits, _ or -")]
    BadName(String),
    #[error("{}: the picture of {name:?} is missing; cut it again: codeact assets add {name} --from-screen x1,y1,x2,y2 --replace", .path.display())]
    MissingPicture { name: String, path: PathBuf },
    #[error("the gallery already has {0:?}; choose another name, or replace it (--replace)")]
    Exists(String),
    #[error("{}: not a picture codeact can read", .path.display())]
    Image {
        path: PathBuf,
        #[source]
        source: image::ImageError,
    },
}

/// Whether `name` may name a reference (or be an alias): 1–64 of `a-z 0-9 _ -`.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

/// A gallery folder and what its index says.
#[derive(Debug)]
pub struct Gallery {
    dir: PathBuf,
    index: Index,
}

impl Gallery {
    /// Reads the gallery in `dir`; a folder (or index) that does not exist yet is an
    /// empty gallery.
    pub fn open(dir: &Path) -> Result<Self, GalleryError> {
        let path = dir.join(INDEX);
        // Read capped, whatever it is (a link to /dev/zero says its size is 0).
        let index = match codeact_base::files::read_text(&path, MAX_INDEX_BYTES as usize) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Index { version: 1, references: Vec::new() },
            Err(source) => return Err(GalleryError::Read { path, source }),
            Ok(text) => {
                let index: Index = serde_json::from_str(&text).map_err(|e| GalleryError::Parse {
                    path: path.clone(),
                    line: e.line(),
                    column: e.column(),
                    message: e.to_string(),
                })?;
                check(&index).map_err(|message| GalleryError::Invalid { path: path.clone(), message })?;
                index
            }
        };
        Ok(Self { dir: dir.to_path_buf(), index })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn references(&self) -> &[Reference] {
        &self.index.references
    }

    /// The reference called `name`, by its name or an alias.
    pub fn get(&self, name: &str) -> Option<&Reference> {
        let refs = &self.index.references;
        refs.iter().find(|r| r.name == name).or_else(|| refs.iter().find(|r| r.aliases.iter().any(|a| a == name)))
    }

    /// The reference's picture, ready to match.
    pub fn picture(&self, reference: &Reference) -> Result<Planes, GalleryError> {
        let path = self.dir.join(&reference.file);
        let read_err = |source: std::io::Error| match source.kind() {
            std::io::ErrorKind::NotFound => {
                GalleryError::MissingPicture { name: reference.name.clone(), path: path.clone() }
            }
            _ => GalleryError::Read { path: path.clone(), source },
        };
        let image_err = |source| GalleryError::Image { path: path.clone(), source };
        // Read capped (a picture file can be a link to anything), then decoded.
        let bytes = codeact_base::files::read_bytes(&path, MAX_PICTURE_BYTES).map_err(read_err)?;
        let reader = || image::ImageReader::new(std::io::Cursor::new(&bytes)).with_guessed_format().map_err(read_err);
        // The size first, from the header: a small file may declare a huge picture.
        let (w, h) = reader()?.into_dimensions().map_err(image_err)?;
        if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
            return Err(GalleryError::Invalid {
                path,
                message: format!("{w}x{h} pixels; a reference is 1 to {MAX_SIDE} a side"),
            });
        }
        let img = reader()?.decode().map_err(image_err)?.to_rgba8();
        let (w, h) = img.dimensions();
        Ok(Planes::from_rgba(img.as_raw(), w as usize, h as usize, 1))
    }

    /// Adds (or with `replace`, replaces) `reference`, whose picture is `png`: the
    /// picture is written first, then the index, each replacing the old file whole.
    pub fn add(&mut self, reference: Reference, png: &[u8], replace: bool) -> Result<(), GalleryError> {
        if !valid_name(&reference.name) {
            return Err(GalleryError::BadName(reference.name));
        }
        if let Some(bad) = reference.aliases.iter().find(|a| !valid_name(a)) {
            return Err(GalleryError::BadName(bad.clone()));
        }
        let taken = |n: &str| {
            self.index
                .references
                .iter()
                .any(|r| r.name != reference.name && (r.name == n || r.aliases.iter().any(|a| a == n)))
        };
        if let Some(clash) = std::iter::once(&reference.name).chain(&reference.aliases).find(|n| taken(n)) {
            return Err(GalleryError::Exists(clash.clone()));
        }
        let existing = self.index.references.iter().position(|r| r.name == reference.name);
        if existing.is_some() && !replace {
            return Err(GalleryError::Exists(reference.name));
        }
        let mut next = Index { version: 1, references: self.index.references.clone() };
        match existing {
            Some(i) => next.references[i] = reference.clone(),
            None => next.references.push(reference.clone()),
        }
        check(&next).map_err(|message| GalleryError::Invalid { path: self.dir.join(INDEX), message })?;
        std::fs::create_dir_all(&self.dir).map_err(|source| GalleryError::Write { path: self.dir.clone(), source })?;
        let picture = self.dir.join(&reference.file);
        codeact_base::files::write_replacing(&picture, png)
            .map_err(|source| GalleryError::Write { path: picture, source })?;
        let index = self.dir.join(INDEX);
        let text = serde_json::to_string_pretty(&next).unwrap_or_default() + "\n";
        codeact_base::files::write_replacing(&index, text.as_bytes())
            .map_err(|source| GalleryError::Write { path: index, source })?;
        self.index = next;
        Ok(())
    }
}

/// What serde cannot check; the message says what to fix.
fn check(index: &Index) -> Result<(), String> {
    if index.version != 1 {
        return Err(format!("version {} is not one this codeact reads (1)", index.version));
    }
    if index.references.len() > MAX_REFERENCES {
        return Err(format!("{} references; a gallery holds at most {MAX_REFERENCES}", index.references.len()));
    }
    let mut seen = std::collections::HashSet::new();
    for r in &index.references {
        let name = &r.name;
        for n in std::iter::once(name).chain(&r.aliases) {
            if !valid_name(n) {
                return Err(format!("{n:?} is not a name: use 1 to 64 lowercase letters, digits, _ or -"));
            }
            if !seen.insert(n.clone()) {
                return Err(format!("{n:?} names two references"));
            }
        }
        let plain = r.file.ends_with(".png")
            && !r.file.contains(['/', '\\'])
            && !r.file.starts_with('.')
            && r.file.len() <= 128;
        if !plain {
            return Err(format!("{name}: file {:?} must be a .png in the gallery folder itself", r.file));
        }
        let [sw, sh] = r.screen;
        let [x, y, w, h] = r.at;
        if !(1..=16384).contains(&sw) || !(1..=16384).contains(&sh) {
            return Err(format!("{name}: screen {sw}x{sh} is not a screen size"));
        }
        if w == 0
            || h == 0
            || u64::from(x) + u64::from(w) > u64::from(sw)
            || u64::from(y) + u64::from(h) > u64::from(sh)
        {
            return Err(format!("{name}: at {:?} is not a place inside its {sw}x{sh} screen", r.at));
        }
        if r.threshold.is_some_and(|t| !(t > 0.0 && t <= 1.0)) {
            return Err(format!("{name}: threshold {:?} must be above 0 and at most 1", r.threshold));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(name: &str) -> Reference {
        Reference {
            name: name.into(),
            file: format!("{name}.png"),
            aliases: vec![],
            screen: [1080, 2400],
            at: [10, 20, 30, 40],
            threshold: None,
        }
    }

    fn png() -> Vec<u8> {
        let img = image::RgbaImage::from_pixel(30, 40, image::Rgba([10, 200, 30, 255]));
        let mut out = std::io::Cursor::new(Vec::new());
        img.write_to(&mut out, image::ImageFormat::Png).unwrap();
        out.into_inner()
    }

    #[test]
    fn a_gallery_keeps_names_aliases_and_places_and_refuses_clashes() {
        let dir = std::env::temp_dir().join(format!("codeact-gallery-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut g = Gallery::open(&dir).unwrap();
        assert!(g.references().is_empty(), "no folder yet: an empty gallery");
        g.add(Reference { aliases: vec!["send".into()], ..reference("send_button") }, &png(), false).unwrap();
        let g = Gallery::open(&dir).unwrap();
        let r = g.get("send").unwrap();
        assert_eq!((r.name.as_str(), r.at), ("send_button", [10, 20, 30, 40]));
        assert_eq!(g.picture(r).unwrap().width, 30);
        let gone = Reference { file: "gone.png".into(), ..reference("gone") };
        assert!(matches!(g.picture(&gone), Err(GalleryError::MissingPicture { .. })));
        let mut g = g;
        assert!(matches!(g.add(reference("send_button"), &png(), false), Err(GalleryError::Exists(_))));
        assert!(
            matches!(g.add(reference("send"), &png(), false), Err(GalleryError::Exists(_))),
            "an alias is taken too"
        );
        assert!(g.add(reference("send_button"), &png(), true).is_ok());
        assert!(matches!(g.add(reference("Send Button"), &png(), false), Err(GalleryError::BadName(_))));
        // A file that declares a huge picture is refused before it is decoded.
        let mut bomb = png();
        bomb[16..24].copy_from_slice(&[0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0]);
        std::fs::write(dir.join("send_button.png"), &bomb).unwrap();
        assert!(g.picture(g.get("send_button").unwrap()).is_err());
        let outside = Reference { at: [1000, 20, 300, 40], ..reference("wide") };
        assert!(matches!(g.add(outside, &png(), false), Err(GalleryError::Invalid { .. })));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_broken_index_names_the_file_and_the_fix() {
        let dir = std::env::temp_dir().join(format!("codeact-gallery-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let cases = [
            ("{\"version\": 1, \"references\": [", "line 1"),
            (r#"{"version": 2}"#, "version 2"),
            (
                r#"{"version": 1, "references": [{"name": "a", "file": "../x.png", "screen": [1, 1], "at": [0, 0, 1, 1]}]}"#,
                "gallery folder itself",
            ),
            (
                r#"{"version": 1, "references": [{"name": "a", "file": "a.png", "screen": [10, 10], "at": [5, 5, 9, 9]}]}"#,
                "not a place",
            ),
            (
                r#"{"version": 1, "references": [{"name": "a", "file": "a.png", "screen": [10, 10], "at": [0, 0, 1, 1], "threshold": 7}]}"#,
                "threshold",
            ),
        ];
        for (text, says) in cases {
            std::fs::write(dir.join(INDEX), text).unwrap();
            let err = Gallery::open(&dir).unwrap_err().to_string();
            assert!(err.contains("index.json") && err.contains(says), "{text}: {err}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
