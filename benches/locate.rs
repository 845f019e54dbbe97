//! What finding a reference picture costs on a real screenshot of the virtual phone
//! (1080×2400, its home screen): preparing the screen (working size, pyramid, window
//! sums), finding an icon and a text label over five scales, and both together —
//! the figure a script pays per image lookup.
//!
//! With `CODEACT_OPENCV_PYTHON` naming a Python that has `cv2` (opencv-python-headless),
//! the same pictures are also matched by OpenCV's `matchTemplate` (`TM_CCOEFF_NORMED`,
//! the same working size and scales) in the same run, and both medians are printed
//! side by side with their ratio.
//! Run with `cargo bench --bench locate`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use codeact::device::DeviceSpec;
use codeact::locate::{MatchOptions, Planes, Screen, matcher};
use criterion::{Criterion, criterion_group, criterion_main};

/// The home screen as RGBA, with its size.
fn home_screen() -> Option<(Vec<u8>, usize, usize)> {
    let mut device = codeact::device::open(&DeviceSpec::Sim, Duration::from_secs(10)).ok()?;
    device.go_home().ok()?;
    let png = device.screenshot().ok()?;
    let img = image::load_from_memory(&png).ok()?.to_rgba8();
    let (w, h) = img.dimensions();
    Some((img.into_raw(), w as usize, h as usize))
}

/// The references: the Notes icon and the "Settings" label, cut where the launcher
/// draws them.
const ICON: (usize, usize, usize, usize) = (867, 430, 156, 156);
const LABEL: (usize, usize, usize, usize) = (70, 924, 150, 50);

fn locate(c: &mut Criterion) {
    let Some((rgba, w, h)) = home_screen() else {
        eprintln!("cannot start the virtual device; skipping");
        return;
    };
    let full = Planes::from_rgba(&rgba, w, h, 1);
    let icon = full.crop(ICON.0, ICON.1, ICON.2, ICON.3);
    let label = full.crop(LABEL.0, LABEL.1, LABEL.2, LABEL.3);
    let options = MatchOptions::default();
    let screen = Screen::new(&rgba, w, h);
    for (name, reference) in [("icon", &icon), ("label", &label)] {
        assert!(matches!(matcher::find(&screen, reference, 1.0, &options), matcher::Found::One(_)), "{name}");
    }
    let mut group = c.benchmark_group("locate a reference on a 1080x2400 screenshot");
    group.bench_function("prepare the screen", |b| b.iter(|| black_box(Screen::new(&rgba, w, h).factor)));
    group.bench_function("find an icon, 5 scales", |b| {
        b.iter(|| black_box(matcher::find(&screen, &icon, 1.0, &options)))
    });
    group.bench_function("find a text label, 5 scales", |b| {
        b.iter(|| black_box(matcher::find(&screen, &label, 1.0, &options)))
    });
    // As a lookup runs it: where the reference was recorded first.
    let near = |at: (usize, usize, usize, usize)| MatchOptions {
        window: Some((at.0 as i64, at.1 as i64, at.2 as i64, at.3 as i64)),
        ..MatchOptions::default()
    };
    let (icon_near, label_near) = (near(ICON), near(LABEL));
    group.bench_function("find an icon where it was recorded", |b| {
        b.iter(|| black_box(matcher::find(&screen, &icon, 1.0, &icon_near)))
    });
    group.bench_function("find a text label where it was recorded", |b| {
        b.iter(|| black_box(matcher::find(&screen, &label, 1.0, &label_near)))
    });
    group.bench_function("screenshot to place (prepare + icon)", |b| {
        b.iter(|| black_box(matcher::find(&Screen::new(&rgba, w, h), &icon, 1.0, &options)))
    });
    // What `#{image: NAME}` runs: prepare, then `seek_on` (where it was recorded first).
    let recorded = codeact::locate::Reference {
        name: "notes".into(),
        file: "notes.png".into(),
        aliases: Vec::new(),
        screen: [w as u32, h as u32],
        at: [ICON.0 as u32, ICON.1 as u32, ICON.2 as u32, ICON.3 as u32],
        threshold: None,
    };
    group.bench_function("screenshot to place, as a lookup runs it (prepare + seek_on)", |b| {
        b.iter(|| black_box(codeact::locate::seek_on(&Screen::new(&rgba, w, h), &recorded, &icon, None)))
    });
    group.finish();
    opencv_side_by_side(&rgba, w, h, &options);
}

/// The median of `runs` timings of `f`.
fn median(runs: usize, mut f: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

const OPENCV: &str = r#"
import sys, time, cv2, numpy as np
screen_path, icon_path, factor, scales, runs = sys.argv[1], sys.argv[2], int(sys.argv[3]), [float(s) for s in sys.argv[4].split(",")], int(sys.argv[5])
def once():
    screen = cv2.imread(screen_path)
    grey = cv2.cvtColor(screen, cv2.COLOR_BGR2GRAY)
    work = cv2.resize(grey, (grey.shape[1] // factor, grey.shape[0] // factor), interpolation=cv2.INTER_AREA)
    icon = cv2.cvtColor(cv2.imread(icon_path), cv2.COLOR_BGR2GRAY)
    best = -2
    for s in scales:
        t = cv2.resize(icon, (max(1, round(icon.shape[1] * s / factor)), max(1, round(icon.shape[0] * s / factor))), interpolation=cv2.INTER_AREA)
        r = cv2.matchTemplate(work, t, cv2.TM_CCOEFF_NORMED)
        best = max(best, cv2.minMaxLoc(r)[1])
    return best
once()
times = []
for _ in range(runs):
    t = time.perf_counter(); once(); times.append(time.perf_counter() - t)
times.sort()
print(times[len(times) // 2] * 1000)
"#;

/// OpenCV on the same pictures (read from PNG files, as it would be), when asked.
fn opencv_side_by_side(rgba: &[u8], w: usize, h: usize, options: &MatchOptions) {
    let Ok(python) = std::env::var("CODEACT_OPENCV_PYTHON") else {
        eprintln!("(set CODEACT_OPENCV_PYTHON to a Python with cv2 for OpenCV's matchTemplate side by side)");
        return;
    };
    let dir = std::env::temp_dir().join(format!("codeact-locate-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let (screen_png, icon_png) = (dir.join("screen.png"), dir.join("icon.png"));
    let Some(img) = image::RgbaImage::from_raw(w as u32, h as u32, rgba.to_vec()) else { return };
    let icon = image::imageops::crop_imm(&img, ICON.0 as u32, ICON.1 as u32, ICON.2 as u32, ICON.3 as u32).to_image();
    if img.save(&screen_png).is_err() || icon.save(&icon_png).is_err() {
        return;
    }
    let scales: Vec<String> = options.scales.iter().map(|s| s.to_string()).collect();
    let factor = Screen::new(rgba, w, h).factor;
    let out = std::process::Command::new(&python)
        .args(["-c", OPENCV])
        .args([screen_png.as_os_str(), icon_png.as_os_str()])
        .args([factor.to_string(), scales.join(","), "31".into()])
        .output();
    let theirs = match out {
        Ok(o) if o.status.success() => String::from_utf8_lossy(&o.stdout).trim().parse::<f64>().ok(),
        _ => None,
    };
    // Ours from the same PNG files, decoding included, as OpenCV's is.
    let ours = median(31, || {
        let screen = image::open(&screen_png).map(|i| i.to_rgba8());
        let icon = image::open(&icon_png).map(|i| i.to_rgba8());
        if let (Ok(s), Ok(i)) = (screen, icon) {
            let (sw, sh) = (s.width() as usize, s.height() as usize);
            let reference = Planes::from_rgba(i.as_raw(), i.width() as usize, i.height() as usize, 1);
            black_box(matcher::find(&Screen::new(s.as_raw(), sw, sh), &reference, 1.0, options));
        }
    });
    match theirs {
        Some(ms) => eprintln!(
            "side by side (PNG files to best score, 5 scales, median of 31): codeact {:.1} ms, OpenCV matchTemplate {ms:.1} ms, ratio {:.2}",
            ours.as_secs_f64() * 1000.0,
            ours.as_secs_f64() * 1000.0 / ms
        ),
        None => eprintln!("OpenCV did not run with {python}"),
    }
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, locate);
criterion_main!(benches);
