//! Which reference pictures a suite's sessions look for with `#{image: NAME}`: the
//! built-in suite's own gallery (`eval/assets/`, compiled in and written into the
//! suite's folder, so a result folder keeps the pictures it was judged with), a
//! `--suite DIR`'s `DIR/assets` when it has one, else the configured gallery;
//! `--assets` always wins. Not the gallery format (`locate::gallery`).

use std::path::{Path, PathBuf};

/// The built-in suite's pictures, recorded with `codeact assets add` on the virtual
/// phone's default look (1080×2400 at 420 dpi).
const BUILT_IN: &[(&str, &[u8])] = &[
    ("index.json", include_bytes!("../../../../eval/assets/index.json")),
    ("bank.png", include_bytes!("../../../../eval/assets/bank.png")),
    ("bomb.png", include_bytes!("../../../../eval/assets/bomb.png")),
    ("cafe.png", include_bytes!("../../../../eval/assets/cafe.png")),
    ("coin.png", include_bytes!("../../../../eval/assets/coin.png")),
    ("diamond.png", include_bytes!("../../../../eval/assets/diamond.png")),
    ("heart.png", include_bytes!("../../../../eval/assets/heart.png")),
    ("hospital.png", include_bytes!("../../../../eval/assets/hospital.png")),
    ("hotel.png", include_bytes!("../../../../eval/assets/hotel.png")),
    ("key.png", include_bytes!("../../../../eval/assets/key.png")),
    ("options.png", include_bytes!("../../../../eval/assets/options.png")),
    ("park.png", include_bytes!("../../../../eval/assets/park.png")),
    ("pause.png", include_bytes!("../../../../eval/assets/pause.png")),
    ("play.png", include_bytes!("../../../../eval/assets/play.png")),
    ("stadium.png", include_bytes!("../../../../eval/assets/stadium.png")),
    ("star.png", include_bytes!("../../../../eval/assets/star.png")),
    ("trophy.png", include_bytes!("../../../../eval/assets/trophy.png")),
];

/// Why the suite's gallery could not be written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the suite's reference pictures to {path}")]
pub struct GalleryWriteError {
    pub path: PathBuf,
    #[source]
    pub source: std::io::Error,
}

/// Where the suite's pictures are: see the module's text. `given` is `--assets`,
/// `suite` is `--suite`, `configured` the gallery the settings name.
pub fn suite_gallery(
    given: Option<&Path>,
    suite: Option<&Path>,
    out_dir: &Path,
    configured: &Path,
) -> Result<PathBuf, GalleryWriteError> {
    if let Some(dir) = given {
        return Ok(dir.to_path_buf());
    }
    match suite {
        Some(dir) if dir.join("assets").join("index.json").is_file() => Ok(dir.join("assets")),
        Some(_) => Ok(configured.to_path_buf()),
        None => write_built_in(&out_dir.join("assets")),
    }
}

/// Writes the pictures into `dir` as the project writes any file: the folder must be
/// a real one (not a link), and each file replaces what is there without following
/// a link planted at its name.
fn write_built_in(dir: &Path) -> Result<PathBuf, GalleryWriteError> {
    let failed = |source| GalleryWriteError { path: dir.to_path_buf(), source };
    codeact_base::files::create_run_folder(dir).map_err(failed)?;
    for (name, bytes) in BUILT_IN {
        codeact_base::files::write_replacing(&dir.join(name), bytes).map_err(failed)?;
    }
    Ok(dir.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_gallery_opens_and_names_every_picture() {
        let out = std::env::temp_dir().join(format!("codeact-suite-gallery-{}", std::process::id()));
        let dir = suite_gallery(None, None, &out, Path::new("assets")).unwrap();
        let gallery = codeact_platform::locate::Gallery::open(&dir).unwrap();
        assert_eq!(gallery.references().len(), BUILT_IN.len() - 1);
        for reference in gallery.references() {
            gallery.picture(reference).unwrap();
        }
        assert_eq!(suite_gallery(Some(Path::new("mine")), None, &out, Path::new("assets")).unwrap(), Path::new("mine"));
        // A link planted where the pictures go is refused, not followed.
        let planted = std::env::temp_dir().join(format!("codeact-suite-planted-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&planted);
        std::fs::create_dir_all(planted.join("out")).unwrap();
        std::os::unix::fs::symlink(std::env::temp_dir(), planted.join("out").join("assets")).unwrap();
        assert!(suite_gallery(None, None, &planted.join("out"), Path::new("assets")).is_err());
        let _ = std::fs::remove_dir_all(&out);
        let _ = std::fs::remove_dir_all(&planted);
    }
}
