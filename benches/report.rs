//! report.html: what rewriting it after a step costs at step 100 (screenshots
//! already encoded), and what encoding one screenshot costs (1080x2400 PNG to a
//! 360 px JPEG). Run with `cargo bench --bench report`.

use std::path::Path;

use codeact::report::RunReport;
use criterion::{Criterion, criterion_group, criterion_main};

const STEPS: usize = 100;

/// A phone-sized PNG with some structure (rows of "text").
fn screenshot(seed: usize) -> Vec<u8> {
    let (w, h) = (1080u32, 2400u32);
    let mut pixels = vec![255u8; (w * h * 3) as usize];
    for y in 0..h {
        for x in 0..w {
            let row = (y / 60) as usize;
            if (y % 60) > 20 && (y % 60) < 40 && x > 60 && (x as usize) < 300 + (row * 37 + seed * 11) % 600 {
                let i = ((y * w + x) * 3) as usize;
                pixels[i..i + 3].copy_from_slice(&[40, 40, 60]);
            }
        }
    }
    let mut png = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut png, w, h);
        encoder.set_color(png::ColorType::Rgb);
        if let Ok(mut writer) = encoder.write_header() {
            let _ = writer.write_image_data(&pixels);
        }
    }
    png
}

fn run_dir(dir: &Path) {
    let _ = std::fs::create_dir_all(dir.join("screenshots"));
    let mut events =
        String::from("{\"event\":\"run_start\",\"task\":\"Flip Wi-Fi a hundred times\",\"model\":\"m\"}\n");
    for n in 1..=STEPS {
        let shot = format!("screenshots/{n:04}.png");
        let _ = std::fs::write(dir.join(&shot), screenshot(n));
        events.push_str(&format!(
            "{{\"event\":\"step_start\",\"step\":{n}}}\n{{\"event\":\"observation\",\"step\":{n},\"screenshot\":\"{shot}\"}}\n\
             {{\"event\":\"llm_reply\",\"step\":{n},\"role\":\"actor\",\"text\":\"Thought: flip it.\\n```rhai\\ntap(#{{id: \\\"wifi_switch\\\"}});\\n```\",\"prompt_tokens\":2300,\"completion_tokens\":30}}\n\
             {{\"event\":\"code\",\"step\":{n},\"code\":\"tap(#{{id: \\\"wifi_switch\\\"}});\"}}\n\
             {{\"event\":\"action\",\"step\":{n},\"tool\":\"tap\",\"args\":[\"#{{\\\"id\\\": \\\"wifi_switch\\\"}}\"],\"result\":\"ok\",\"duration_ms\":6.0,\"effect\":\"Switch (id wifi_switch) checked → unchecked\",\"point\":[943,703]}}\n\
             {{\"event\":\"step_end\",\"step\":{n},\"wall_ms\":900.0,\"llm_ms\":700.0,\"device_ms\":190.0,\"overhead_ms\":10.0}}\n"
        ));
    }
    let _ = std::fs::write(dir.join("events.jsonl"), events);
}

fn report(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("codeact-bench-report-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    run_dir(&dir);
    let mut report = RunReport::new(&dir, codeact::report::Assets::Embedded);
    if report.write().is_err() {
        return;
    }
    let size = std::fs::metadata(dir.join("report.html")).map(|m| m.len()).unwrap_or(0);
    println!("a {STEPS}-step report: {size} bytes");
    let mut group = c.benchmark_group("report.html");
    group.sample_size(20);
    group.bench_function("rewrite after step 100 (screenshots already encoded)", |b| b.iter(|| report.write().is_ok()));
    group.bench_function("first write of 100 steps (encodes 100 screenshots)", |b| {
        b.iter(|| RunReport::new(&dir, codeact::report::Assets::Embedded).write().is_ok())
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, report);
criterion_main!(benches);
