//! How well reference pictures are found on the virtual phone when it looks
//! different from where they were recorded: the accuracy table of picture locating.
//!
//! Every screen of every app (each activity in `crates/sim/data/apps/*.toml`, opened
//! with `am start -n`) is captured on five phones — the default look, the dark theme,
//! font scale 1.3, density 560 and a 720×1600 screen at 320 dpi — through the ADB
//! door and codeact's own client. References are cut on the default look, as `codeact
//! assets add` would: each launcher icon's picture, each of a game's sprites (what
//! `simctl drawn` reports; they are in no page source), images and image buttons
//! (pictures in a page, floating buttons, Navigate up) and one short text label per screen; each is cut tight around what differs from its background.
//!
//! Each reference is then sought (`locate::seek_on`, what `#{image: NAME}` runs) on
//! its own screen under every look: *found* when the match's centre is inside the
//! element there, *wrong* when it is elsewhere, *missed* when nothing is found or the
//! matcher refuses (two places). And it is sought on screens that do not show it (no
//! element with its key or text, under any look), where any match is *false*.
//!
//! Run with `cargo bench --bench locate_accuracy` (a few minutes on 2 cores);
//! `CODEACT_ACCURACY_NEGATIVES=N` caps the screens without a reference sought per
//! reference (default 60).

use std::collections::{BTreeMap, HashSet};
use std::time::{Duration, Instant};

use codeact::device::{Device, DeviceSpec};
use codeact::locate::{self, Found, Planes, Reference, Screen};
use codeact_sim::{SimConfig, VirtualDevice};

/// One look of the phone.
struct Variant {
    name: &'static str,
    config: SimConfig,
}

fn variants() -> Vec<Variant> {
    let base = SimConfig::default;
    vec![
        Variant { name: "default look", config: base() },
        Variant { name: "dark theme", config: SimConfig { dark: true, ..base() } },
        Variant { name: "font scale 1.3", config: SimConfig { font_scale: 1.3, ..base() } },
        Variant { name: "density 560", config: SimConfig { density: 560, ..base() } },
        Variant { name: "720x1600 @ 320 dpi", config: SimConfig { width: 720, height: 1600, density: 320, ..base() } },
    ]
}

/// What a reference stands for: a launcher icon, a drawn picture, or a text label.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Kind {
    Icon,
    Sprite,
    Glyph,
    Text,
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Icon => "launcher icons",
            Kind::Sprite => "game sprites (not in the tree)",
            Kind::Glyph => "images and image buttons",
            Kind::Text => "text labels",
        }
    }
}

/// Something on a screen a reference can be cut from, with where it is.
#[derive(Clone)]
struct Mark {
    kind: Kind,
    key: String,
    bounds: [i32; 4],
}

/// One captured screen.
struct Shot {
    variant: usize,
    activity: String,
    rgba: Vec<u8>,
    width: usize,
    height: usize,
    marks: Vec<Mark>,
    /// Every text and description on it, to tell which screens show a text.
    texts: Vec<String>,
}

/// Every (package, activity) the bundled apps declare, launcher first.
fn activities() -> Vec<(String, String)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/crates/sim/data/apps");
    let mut files: Vec<_> = std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let Ok(table) = text.parse::<toml::Table>() else { continue };
        let Some(package) = table.get("package").and_then(|p| p.as_str()) else { continue };
        let screens = table.get("screens").and_then(|s| s.as_array()).cloned().unwrap_or_default();
        for screen in screens {
            if let Some(activity) = screen.get("activity").and_then(|a| a.as_str()) {
                out.push((package.to_string(), activity.to_string()));
            }
        }
    }
    out.sort_by_key(|(p, _)| p != "com.android.launcher3");
    out
}

/// The marks of the screen on show: launcher icons and short text labels from the
/// page source, drawn pictures from `simctl drawn`.
fn marks(device: &mut dyn Device) -> Option<(Vec<Mark>, Vec<String>)> {
    let observation = device.observe().ok()?;
    let mut marks = Vec::new();
    let mut texts = Vec::new();
    let height = observation.screen.1 as i32;
    for e in &observation.ui.elements {
        let b = [e.bounds.left, e.bounds.top, e.bounds.right, e.bounds.bottom];
        for t in [&e.text, &e.content_desc] {
            if !t.is_empty() {
                texts.push(t.clone());
            }
        }
        if e.resource_id == "com.android.launcher3:id/icon" {
            // The picture: the square at the top of the cell (the label is below it).
            let side = e.bounds.width().min(e.bounds.height() * 6 / 10);
            let left = e.bounds.left + (e.bounds.width() - side) / 2;
            marks.push(Mark {
                kind: Kind::Icon,
                key: format!("icon:{}", e.text),
                bounds: [left, e.bounds.top, left + side, e.bounds.top + side],
            });
        } else if (e.class.ends_with("ImageButton") || e.class.ends_with("ImageView"))
            && e.text.is_empty()
            && !e.content_desc.is_empty()
            && e.bounds.width() < observation.screen.0 as i32 / 4
            && e.bounds.height() < observation.screen.0 as i32 / 4
        {
            marks.push(Mark { kind: Kind::Glyph, key: format!("desc:{}", e.content_desc), bounds: b });
        } else if e.children.is_empty()
            && e.class.ends_with("TextView")
            && (3..=24).contains(&e.text.chars().count())
            && e.bounds.height() < height / 10
            && e.bounds.top > height / 40
        {
            marks.push(Mark { kind: Kind::Text, key: format!("text:{}", e.text), bounds: b });
        }
    }
    let drawn = device.shell("simctl drawn").ok()?;
    for line in String::from_utf8_lossy(&drawn.stdout).lines() {
        let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else { continue };
        let (Some(picture), Some(bounds)) = (v["picture"].as_str(), v["bounds"].as_array()) else { continue };
        let n: Vec<i32> = bounds.iter().filter_map(|x| x.as_i64()).map(|x| x as i32).collect();
        if let [l, t, r, b] = n[..] {
            marks.push(Mark { kind: Kind::Sprite, key: format!("picture:{picture}"), bounds: [l, t, r, b] });
        }
    }
    // A key twice on one screen is no reference there.
    let mut seen = BTreeMap::new();
    for m in &marks {
        *seen.entry(m.key.clone()).or_insert(0) += 1;
    }
    marks.retain(|m| seen[&m.key] == 1);
    Some((marks, texts))
}

fn capture(variant: usize, config: SimConfig, activities: &[(String, String)]) -> Vec<Shot> {
    let Ok(phone) = VirtualDevice::start(config) else { return Vec::new() };
    let spec = DeviceSpec::Direct(phone.addr().to_string());
    let Ok(mut device) = codeact::device::open(&spec, Duration::from_secs(10)) else { return Vec::new() };
    let mut shots = Vec::new();
    for (package, activity) in activities {
        let _ = device.shell("simctl reset");
        let _ = device.shell(&format!("am start -n {package}/{activity}"));
        let (Some((marks, texts)), Ok(png)) = (marks(device.as_mut()), device.screenshot()) else { continue };
        let Ok(img) = image::load_from_memory(&png) else { continue };
        let img = img.to_rgba8();
        let (width, height) = (img.width() as usize, img.height() as usize);
        shots.push(Shot {
            variant,
            activity: format!("{package}/{activity}"),
            rgba: img.into_raw(),
            width,
            height,
            marks,
            texts,
        });
    }
    shots
}

/// The part of `bounds` that differs from its background (the colour of its top-left
/// pixel), with a margin: what a person cropping the picture would keep.
fn tight(shot: &Shot, bounds: [i32; 4]) -> Option<[usize; 4]> {
    let clamp = |v: i32, max: usize| (v.max(0) as usize).min(max);
    let (l, t) = (clamp(bounds[0], shot.width), clamp(bounds[1], shot.height));
    let (r, b) = (clamp(bounds[2], shot.width), clamp(bounds[3], shot.height));
    let px = |x: usize, y: usize| &shot.rgba[(y * shot.width + x) * 4..(y * shot.width + x) * 4 + 3];
    let background = px(l, t).to_vec();
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    for y in t..b {
        for x in l..r {
            if px(x, y).iter().zip(&background).any(|(a, c)| a.abs_diff(*c) > 24) {
                (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1));
            }
        }
    }
    if x0 >= x1 || y0 >= y1 {
        return None;
    }
    let m = 6;
    let (x0, y0) = (x0.saturating_sub(m).max(l), y0.saturating_sub(m).max(t));
    let (x1, y1) = ((x1 + m).min(r), (y1 + m).min(b));
    (x1 - x0 >= 12 && y1 - y0 >= 12).then_some([x0, y0, x1 - x0, y1 - y0])
}

/// A reference cut from a default-look screen.
struct Cut {
    kind: Kind,
    key: String,
    activity: String,
    reference: Reference,
    picture: Planes,
}

fn cut(shot: &Shot, mark: &Mark) -> Option<Cut> {
    let [x, y, w, h] = tight(shot, mark.bounds)?;
    let mut rgba = Vec::with_capacity(w * h * 4);
    for row in y..y + h {
        rgba.extend_from_slice(&shot.rgba[(row * shot.width + x) * 4..(row * shot.width + x + w) * 4]);
    }
    let reference = Reference {
        name: "r".into(),
        file: "r.png".into(),
        aliases: Vec::new(),
        screen: [shot.width as u32, shot.height as u32],
        at: [x as u32, y as u32, w as u32, h as u32],
        threshold: None,
    };
    Some(Cut {
        kind: mark.kind,
        key: mark.key.clone(),
        activity: shot.activity.clone(),
        reference,
        picture: Planes::from_rgba(&rgba, w, h, 1),
    })
}

/// Whether `shot` shows what `cut` is of (its key, or for a text, the text anywhere).
fn shows(shot: &Shot, cut: &Cut) -> bool {
    if shot.marks.iter().any(|m| m.key == cut.key) {
        return true;
    }
    match cut.key.split_once(':') {
        Some(("text" | "icon" | "desc", text)) => shot.texts.iter().any(|t| t.contains(text)),
        _ => false,
    }
}

#[derive(Default, Clone, Copy)]
struct Tally {
    sought: usize,
    found: usize,
    wrong: usize,
    missed: usize,
}

/// What every reference is sought against.
struct Ctx<'a> {
    shots: &'a [Shot],
    prepared: &'a [Screen],
    names: &'a [&'static str],
    cap: usize,
}

/// One reference's results.
#[derive(Default)]
struct Outcome {
    tallies: Vec<((Kind, usize), Tally)>,
    failures: Vec<String>,
    false_matches: Vec<String>,
    negative_seeks: usize,
    negative_screens: Vec<usize>,
    seek_times: Vec<Duration>,
}

/// Seeks `cut` on its own screen under every look, then on up to `cap` screens
/// that do not show it.
fn assess(ctx: &Ctx, cut: &Cut) -> Outcome {
    let mut out = Outcome::default();
    for (i, shot) in ctx.shots.iter().enumerate() {
        if shot.activity != cut.activity {
            continue;
        }
        let Some(truth) = shot.marks.iter().find(|m| m.key == cut.key) else { continue };
        let started = Instant::now();
        let (found, _) = locate::seek_on(&ctx.prepared[i], &cut.reference, &cut.picture, None);
        out.seek_times.push(started.elapsed());
        let mut tally = Tally { sought: 1, ..Tally::default() };
        let look = ctx.names[shot.variant];
        let [l, t, r, b] = truth.bounds;
        match found {
            Found::One(p) => {
                let (cx, cy) = ((p.x + p.width / 2) as i32, (p.y + p.height / 2) as i32);
                if (l - 2..=r + 2).contains(&cx) && (t - 2..=b + 2).contains(&cy) {
                    tally.found = 1;
                } else {
                    tally.wrong = 1;
                    out.failures.push(format!(
                        "WRONG {} on {} ({look}): at [{cx},{cy}], truth {:?}",
                        cut.key, shot.activity, truth.bounds
                    ));
                }
            }
            Found::Nothing { best } => {
                tally.missed = 1;
                let best = best.first().map(|p| format!("{:.2} at scale {:.2}", p.score, p.scale));
                out.failures.push(format!(
                    "missed {} on {} ({look}): best {}",
                    cut.key,
                    shot.activity,
                    best.unwrap_or_else(|| "none".into())
                ));
            }
            Found::Ambiguous { places } => {
                tally.missed = 1;
                out.failures.push(format!(
                    "refused {} on {} ({look}): {} places",
                    cut.key,
                    shot.activity,
                    places.len()
                ));
            }
        }
        out.tallies.push(((cut.kind, shot.variant), tally));
    }
    // Screens without it, spread over the looks (every k-th), at most `cap`.
    let without: Vec<usize> = (0..ctx.shots.len()).filter(|&i| !shows(&ctx.shots[i], cut)).collect();
    let step = without.len().div_ceil(ctx.cap.max(1)).max(1);
    for &i in without.iter().step_by(step) {
        out.negative_seeks += 1;
        out.negative_screens.push(i);
        let claimed = match locate::seek_on(&ctx.prepared[i], &cut.reference, &cut.picture, None).0 {
            Found::One(p) => Some(format!("[{},{}] {:.2}", p.x, p.y, p.score)),
            Found::Ambiguous { places } => Some(format!("{} places", places.len())),
            Found::Nothing { .. } => None,
        };
        if let Some(at) = claimed {
            let shot = &ctx.shots[i];
            out.false_matches
                .push(format!("FALSE {} on {} ({}): {at}", cut.key, shot.activity, ctx.names[shot.variant]));
        }
    }
    out
}

fn main() {
    let started = Instant::now();
    // `cargo test` (no --bench) runs it as a smoke test: the launcher and the game on
    // two looks, three screens without each reference.
    let smoke = !std::env::args().any(|a| a == "--bench");
    let mut activities = activities();
    let mut variants = variants();
    if smoke {
        activities.retain(|(p, a)| p == "com.android.launcher3" || a == ".PlayActivity");
        variants.truncate(2);
    }
    let mut shots: Vec<Shot> = Vec::new();
    for (i, v) in variants.iter().enumerate() {
        shots.extend(capture(i, v.config.clone(), &activities));
    }
    let captured = started.elapsed();
    if shots.is_empty() {
        eprintln!("cannot start the virtual phone; nothing measured");
        return;
    }
    // References: every mark on the default look, the first time its key is seen
    // (one text label per screen: pictures of text are not what this is for).
    let mut cuts = Vec::new();
    let mut taken = HashSet::new();
    for shot in shots.iter().filter(|s| s.variant == 0) {
        let mut texts = 0;
        for mark in &shot.marks {
            if mark.kind == Kind::Text {
                if texts == 1 {
                    continue;
                }
                texts += 1;
            }
            if taken.insert(mark.key.clone())
                && let Some(c) = cut(shot, mark)
            {
                cuts.push(c);
            }
        }
    }
    let prepared: Vec<Screen> = shots.iter().map(|s| Screen::new(&s.rgba, s.width, s.height)).collect();
    let cap: usize = if smoke {
        3
    } else {
        std::env::var("CODEACT_ACCURACY_NEGATIVES").ok().and_then(|v| v.parse().ok()).unwrap_or(60)
    };

    // Two workers (the machine's cores), each taking every other reference.
    let names: Vec<&str> = variants.iter().map(|v| v.name).collect();
    let ctx = Ctx { shots: &shots, prepared: &prepared, names: &names, cap };
    let outcomes: Vec<Outcome> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|k| {
                let (ctx, cuts) = (&ctx, &cuts);
                scope.spawn(move || cuts.iter().skip(k).step_by(2).map(|c| assess(ctx, c)).collect::<Vec<_>>())
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_default()).collect()
    });
    let mut table: BTreeMap<(Kind, usize), Tally> = BTreeMap::new();
    let mut failures: Vec<String> = Vec::new();
    let mut false_matches: Vec<String> = Vec::new();
    let (mut negative_seeks, mut negative_screens) = (0usize, HashSet::new());
    let mut seek_times = Vec::new();
    for o in outcomes {
        for (key, t) in o.tallies {
            let sum = table.entry(key).or_default();
            sum.sought += t.sought;
            sum.found += t.found;
            sum.wrong += t.wrong;
            sum.missed += t.missed;
        }
        failures.extend(o.failures);
        false_matches.extend(o.false_matches);
        negative_seeks += o.negative_seeks;
        negative_screens.extend(o.negative_screens);
        seek_times.extend(o.seek_times);
    }
    let negatives = (negative_seeks, false_matches.len(), negative_screens);

    let by_kind: BTreeMap<Kind, usize> = cuts.iter().fold(BTreeMap::new(), |mut m, c| {
        *m.entry(c.kind).or_insert(0) += 1;
        m
    });
    let apps: HashSet<&str> = cuts.iter().map(|c| c.activity.split('/').next().unwrap_or("")).collect();
    println!(
        "\n{} references ({}) from {} apps; {} screens captured on {} looks in {:.1} s\n",
        cuts.len(),
        by_kind.iter().map(|(k, n)| format!("{n} {}", k.label())).collect::<Vec<_>>().join(", "),
        apps.len(),
        shots.len(),
        variants.len(),
        captured.as_secs_f64()
    );
    println!("| references | look | sought | found | wrong place | missed | found % |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for ((kind, variant), t) in &table {
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.1} |",
            kind.label(),
            variants[*variant].name,
            t.sought,
            t.found,
            t.wrong,
            t.missed,
            100.0 * t.found as f64 / t.sought.max(1) as f64
        );
    }
    let mut all = Tally::default();
    for t in table.values() {
        all.sought += t.sought;
        all.found += t.found;
        all.wrong += t.wrong;
        all.missed += t.missed;
    }
    println!(
        "| **all** | | {} | {} | {} | {} | {:.1} |",
        all.sought,
        all.found,
        all.wrong,
        all.missed,
        100.0 * all.found as f64 / all.sought.max(1) as f64
    );
    println!(
        "\nScreens that do not show the reference: {} seeks over {} distinct screens, {} false matches.",
        negatives.0,
        negatives.2.len(),
        negatives.1
    );
    seek_times.sort();
    if let Some(median) = seek_times.get(seek_times.len() / 2) {
        println!("Median seek on the reference's own screen: {:.1} ms.", median.as_secs_f64() * 1000.0);
    }
    for line in failures.iter().chain(&false_matches) {
        println!("  {line}");
    }
    if smoke {
        let missed_at_home: usize = table.iter().filter(|((_, v), _)| *v == 0).map(|(_, t)| t.missed).sum();
        assert!(
            all.wrong == 0 && negatives.1 == 0 && missed_at_home == 0 && all.sought > 0,
            "picture locating regressed: see the lines above"
        );
    }
}
