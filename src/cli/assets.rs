//! `codeact assets`: the reference pictures scripts find by image — cut one from the
//! live screen, list them, find one on the screen now.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use codeact::config::{Flags, Settings};
use codeact::locate::{Found, Gallery};

use super::args::DeviceArgs;

/// Keep the reference pictures `#{image: "NAME"}` looks for: a folder of PNGs and
/// its index.json (where each was cut, on what size of screen).
///
///   codeact assets add send_button --from-screen 940,2210,1060,2330 --device sim
///   codeact assets list
///   codeact assets find send_button --device sim
///
/// The folder is --assets DIR, else `[assets] dir` in codeact.toml, else the `assets`
/// folder beside codeact.toml (found from here upward), else ./assets.
#[derive(clap::Args, Debug)]
#[command(verbatim_doc_comment)]
pub struct AssetsArgs {
    #[command(subcommand)]
    action: Action,
    /// The gallery folder (default: [assets] dir in codeact.toml, else assets/ beside
    /// codeact.toml, else ./assets).
    #[arg(long, global = true, value_name = "DIR")]
    assets: Option<PathBuf>,
}

#[derive(clap::Subcommand, Debug)]
enum Action {
    /// Cut a reference from the live screen and record where it was.
    Add {
        /// Its name: lowercase letters, digits, _ or -.
        name: String,
        /// The box to cut, in screen pixels: x1,y1,x2,y2 (see `codeact observe` for
        /// elements' bounds).
        #[arg(long, value_name = "X1,Y1,X2,Y2", value_parser = parse_box)]
        from_screen: [u32; 4],
        /// Another name it answers to (repeatable).
        #[arg(long = "alias", value_name = "NAME")]
        aliases: Vec<String>,
        /// The least score a match must reach, above 0 and at most 1 (default 0.8).
        #[arg(long)]
        threshold: Option<f32>,
        /// Replace a reference of the same name.
        #[arg(long)]
        replace: bool,
        #[command(flatten)]
        device: DeviceArgs,
    },
    /// List the references: name, aliases, size, where they were cut.
    List,
    /// Look for a reference on the live screen: where, and how sure.
    Find {
        name: String,
        #[command(flatten)]
        device: DeviceArgs,
    },
}

/// `x1,y1,x2,y2` with x1 < x2 and y1 < y2.
fn parse_box(s: &str) -> Result<[u32; 4], String> {
    let nums: Vec<u32> = s
        .split(',')
        .map(|p| p.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("{s:?} is not x1,y1,x2,y2 in whole pixels, e.g. 940,2210,1060,2330"))?;
    match nums.as_slice() {
        [x1, y1, x2, y2] if x1 < x2 && y1 < y2 => Ok([*x1, *y1, *x2, *y2]),
        [_, _, _, _] => Err(format!("{s:?}: x1 must be left of x2 and y1 above y2")),
        _ => Err(format!("{s:?} is not four numbers x1,y1,x2,y2")),
    }
}

impl AssetsArgs {
    pub fn manage(self) -> anyhow::Result<ExitCode> {
        let dir = match &self.assets {
            Some(dir) => dir.clone(),
            None => Settings::load(None, &Flags::default())?.assets,
        };
        let mut gallery = Gallery::open(&dir)?;
        match self.action {
            Action::List => {
                if gallery.references().is_empty() {
                    codeact::outln!(
                        "No references in {}; add one with `codeact assets add NAME --from-screen x1,y1,x2,y2`.",
                        codeact::terminal::path(&dir)
                    );
                }
                for r in gallery.references() {
                    let aliases = if r.aliases.is_empty() {
                        String::new()
                    } else {
                        format!(" (also {})", codeact::terminal::one_line(&r.aliases.join(", ")))
                    };
                    let [x, y, w, h] = r.at;
                    let threshold = r.threshold.map(|t| format!(", threshold {t}")).unwrap_or_default();
                    codeact::outln!(
                        "{}{aliases}: {w}x{h} at {x},{y} on a {}x{} screen{threshold} ({})",
                        codeact::terminal::one_line(&r.name),
                        r.screen[0],
                        r.screen[1],
                        codeact::terminal::one_line(&r.file)
                    );
                }
                Ok(ExitCode::SUCCESS)
            }
            Action::Add { name, from_screen, aliases, threshold, replace, device } => {
                if threshold.is_some_and(|t| !(t > 0.0 && t <= 1.0)) {
                    bail!("--threshold must be above 0 and at most 1 (0.8 is the default)");
                }
                let mut phone = device.open()?;
                let png = phone.screenshot()?;
                let mut made = codeact::locate::cut::cut(&png, &name, from_screen, threshold)?;
                made.reference.aliases = aliases;
                let [x1, y1, x2, y2] = from_screen;
                gallery.add(made.reference, &made.png, replace)?;
                codeact::outln!(
                    "added {name} ({}x{} at {x1},{y1}) to {}",
                    x2 - x1,
                    y2 - y1,
                    codeact::terminal::path(gallery.dir())
                );
                // Said now rather than at the first lookup: a picture seen twice is ambiguous.
                if made.shows > 1 {
                    codeact::errln!(
                        "warning: it shows {} times on this screen; cut a box with more around it so it names one place",
                        made.shows
                    );
                }
                Ok(ExitCode::SUCCESS)
            }
            Action::Find { name, device } => {
                let Some(reference) = gallery.get(&name).cloned() else {
                    let known: Vec<&str> = gallery.references().iter().map(|r| r.name.as_str()).collect();
                    bail!(
                        "no reference {name:?} in {}; it has: {}",
                        dir.display(),
                        if known.is_empty() { "none".into() } else { known.join(", ") }
                    );
                };
                let picture = gallery.picture(&reference)?;
                let mut phone = device.open()?;
                let png = phone.screenshot()?;
                let shot = image::load_from_memory(&png).context("the screenshot is not a picture")?.to_rgba8();
                let (sw, sh) = shot.dimensions();
                let started = std::time::Instant::now();
                let (found, threshold) =
                    codeact::locate::seek(&reference, &picture, shot.as_raw(), sw as usize, sh as usize, None);
                let ms = started.elapsed().as_secs_f64() * 1000.0;
                let line = |p: &codeact::locate::Place| {
                    format!(
                        "[{},{}][{},{}] score {:.2} at scale {:.2}",
                        p.x,
                        p.y,
                        p.x + p.width,
                        p.y + p.height,
                        p.score,
                        p.scale
                    )
                };
                match found {
                    Found::One(p) => {
                        codeact::outln!("{name}: {} ({ms:.0} ms)", line(&p));
                        Ok(ExitCode::SUCCESS)
                    }
                    Found::Nothing { best } => {
                        let seen: Vec<String> = best.iter().map(line).collect();
                        codeact::outln!(
                            "{name}: not on screen (threshold {:.2}); best seen: {}",
                            threshold,
                            if seen.is_empty() { "nothing".into() } else { seen.join("; ") }
                        );
                        Ok(ExitCode::from(super::exit::EXIT_FAILED))
                    }
                    Found::Ambiguous { places } => {
                        let seen: Vec<String> = places.iter().map(line).collect();
                        codeact::outln!("{name}: ambiguous, {} places: {}", places.len(), seen.join("; "));
                        Ok(ExitCode::from(super::exit::EXIT_FAILED))
                    }
                }
            }
        }
    }
}
