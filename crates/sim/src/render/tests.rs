//! Tests for the screenshot renderer: a synthetic phone screen, pixel checks on switches
//! and CJK text, PNG round trips, and degenerate input. Not a visual regression suite.

use super::super::screen::{IconShape, Node, Rect, Role, Screen};
use super::{Frame, encode_png, render};

fn node(role: Role, bounds: Rect, text: &str) -> Node {
    Node { role, bounds, text: text.to_string(), enabled: true, ..Node::default() }
}

fn label(bounds: Rect, text: &str, size_dp: f32) -> Node {
    node(Role::Label { size_dp, color: 0x202124, bold: false }, bounds, text)
}

const CHECKED: Rect = Rect { left: 0, top: 420, right: 1080, bottom: 567 };
const UNCHECKED: Rect = Rect { left: 0, top: 567, right: 1080, bottom: 714 };
const CJK_LABEL: Rect = Rect { left: 0, top: 714, right: 1080, bottom: 840 };

fn sample(with_overlays: bool) -> Screen {
    let mut app = node(Role::Surface { color: 0xFFFFFF }, Rect::new(0, 0, 1080, 2400), "");
    let mut kids = vec![
        node(Role::StatusBar, Rect::new(0, 0, 1080, 63), ""),
        {
            let mut bar = node(Role::Surface { color: 0xF8F9FA }, Rect::new(0, 63, 1080, 210), "");
            bar.children = vec![
                node(Role::ToolButton { glyph: "←".into() }, Rect::new(0, 63, 147, 210), ""),
                node(
                    Role::Label { size_dp: 22.0, color: 0x202124, bold: true },
                    Rect::new(147, 63, 786, 210),
                    "Settings",
                ),
                node(Role::ToolButton { glyph: "🔍".into() }, Rect::new(786, 63, 933, 210), ""),
                node(Role::ToolButton { glyph: "⋮".into() }, Rect::new(933, 63, 1080, 210), ""),
            ];
            bar
        },
        label(
            Rect::new(0, 210, 1080, 420),
            "A rather long explanation that does not fit on one line, so it wraps onto a second line and then gets cut off with an ellipsis at the end",
            16.0,
        ),
    ];
    let mut on = node(Role::Switch, CHECKED, "Wi-Fi");
    on.checked = true;
    kids.push(on);
    kids.push(node(Role::Switch, UNCHECKED, "Bluetooth"));
    kids.push(label(CJK_LABEL, "你好 张三", 18.0));
    let mut field = node(Role::Field, Rect::new(0, 840, 1080, 987), "你好 张三 Zhang");
    field.focused = true;
    kids.push(field);
    let mut pw = node(Role::Field, Rect::new(0, 987, 1080, 1134), "secret");
    pw.password = true;
    kids.push(pw);
    let mut empty = node(Role::Field, Rect::new(0, 1134, 1080, 1281), "");
    empty.hint = "Search settings".into();
    kids.push(empty);
    kids.push(node(Role::Button { color: 0x1A73E8 }, Rect::new(42, 1300, 500, 1426), "Save"));
    let mut off = node(Role::Button { color: 0x1A73E8 }, Rect::new(580, 1300, 1038, 1426), "Delete");
    off.enabled = false;
    kids.push(off);
    kids.push(node(Role::Slider { value: 30, max: 100 }, Rect::new(0, 1440, 1080, 1560), ""));
    let shapes = [
        (IconShape::Circle, 0xEA4335, "Camera"),
        (IconShape::Squircle, 0x34A853, "gmail"),
        (IconShape::Triangle, 0xFBBC04, "Maps"),
        (IconShape::Hexagon, 0x9334E6, "设置"),
    ];
    for (i, (shape, color, name)) in shapes.into_iter().enumerate() {
        let x = 30 + i as i32 * 255;
        kids.push(node(Role::Icon { shape, color, emblem: None }, Rect::new(x, 1580, x + 255, 1900), name));
    }
    kids.push(node(Role::Fab { color: 0x1A73E8, glyph: "+".into() }, Rect::new(890, 1950, 1037, 2097), ""));
    kids.push(node(Role::Fab { color: 0x34A853, glyph: "✎".into() }, Rect::new(700, 1950, 847, 2097), ""));
    app.children = kids;

    let mut windows = vec![app];
    if with_overlays {
        let mut dialog = node(Role::Surface { color: 0xFFFFFF }, Rect::new(90, 700, 990, 1150), "");
        dialog.children = vec![
            node(
                Role::Label { size_dp: 20.0, color: 0x202124, bold: true },
                Rect::new(90, 730, 990, 850),
                "Delete account?",
            ),
            label(Rect::new(90, 850, 990, 1000), "This cannot be undone. 此操作无法撤销。", 14.0),
            node(Role::Button { color: 0xD93025 }, Rect::new(560, 1020, 960, 1126), "Delete"),
            node(Role::Button { color: 0x5F6368 }, Rect::new(120, 1020, 520, 1126), "Cancel"),
        ];
        windows.push(node(Role::Scrim, Rect::new(0, 0, 1080, 2400), ""));
        windows.push(dialog);
        windows.push(node(Role::Keyboard, Rect::new(0, 1720, 1080, 2400), ""));
    }
    Screen { width: 1080, height: 2400, density: 420, windows, active: 0, look: Default::default() }
}

fn pixel(f: &Frame, x: i32, y: i32) -> [u8; 3] {
    let i = (y as usize * f.width as usize + x as usize) * 4;
    [f.rgba[i], f.rgba[i + 1], f.rgba[i + 2]]
}

fn count(f: &Frame, r: Rect, pred: impl Fn([u8; 3]) -> bool) -> usize {
    let mut n = 0;
    for y in r.top.max(0)..r.bottom.min(f.height as i32) {
        for x in r.left.max(0)..r.right.min(f.width as i32) {
            n += usize::from(pred(pixel(f, x, y)));
        }
    }
    n
}

fn accent_blue(p: [u8; 3]) -> bool {
    let [r, g, b] = p.map(i32::from);
    (r - 0x1A).abs() < 24 && (g - 0x73).abs() < 24 && (b - 0xE8).abs() < 24
}

fn decode(bytes: &[u8]) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("png header");
    let mut buf = vec![0; reader.output_buffer_size().expect("buffer size")];
    let info = reader.next_frame(&mut buf).expect("png frame");
    (info.width, info.height)
}

#[test]
fn full_screen_renders_and_round_trips() {
    let frame = render(&sample(true));
    assert_eq!((frame.width, frame.height), (1080, 2400));
    assert_eq!(frame.rgba.len(), 1080 * 2400 * 4);
    assert!(frame.rgba.chunks_exact(4).all(|p| p[3] == 255));
    let png = encode_png(&frame).expect("encode");
    assert_eq!(decode(&png), (1080, 2400));
}

#[test]
fn switches_show_their_state() {
    let frame = render(&sample(false));
    // The thumb sits in the right-most 60 dp of the row.
    let thumb_zone = |r: Rect| Rect { left: r.right - 158, ..r };
    assert!(count(&frame, thumb_zone(CHECKED), accent_blue) > 500, "checked thumb is blue");
    assert_eq!(count(&frame, thumb_zone(UNCHECKED), accent_blue), 0, "unchecked thumb is not blue");
}

#[test]
fn cjk_text_is_drawn() {
    let frame = render(&sample(false));
    let dark = |p: [u8; 3]| p.iter().all(|&c| c < 100);
    assert!(count(&frame, CJK_LABEL, dark) > 200, "CJK glyphs left dark pixels");
}

#[test]
fn degenerate_input_does_not_panic() {
    let mut weird = Vec::new();
    for bounds in [
        Rect::new(10, 10, 10, 10),
        Rect::new(500, 500, 100, 100),
        Rect::new(-100, -100, -10, -10),
        Rect::new(i32::MIN, i32::MIN, i32::MAX, i32::MAX),
        Rect::new(1000, 2300, 5000, 9000),
    ] {
        for role in [
            Role::Label { size_dp: 1.0e9, color: 0, bold: true },
            Role::Switch,
            Role::Field,
            Role::Button { color: 0xFF0000 },
            Role::Fab { color: 0, glyph: "✎".into() },
            Role::Icon { shape: IconShape::Hexagon, color: 0x00FF00, emblem: Some(crate::emblem::Emblem::Gear) },
            Role::Slider { value: i64::MAX, max: -1 },
            Role::Slider { value: i64::MIN, max: i64::MAX },
            Role::ToolButton { glyph: "\u{10FFFF}".into() },
            Role::Keyboard,
            Role::StatusBar,
            Role::Scrim,
            Role::Label { size_dp: f32::NAN, color: 0, bold: false },
        ] {
            let mut n = node(role, bounds, &"Wörld 世界\n\t🔍 ".repeat(2000));
            n.focused = true;
            n.password = true;
            weird.push(n);
        }
    }
    let mut screen = sample(true);
    screen.windows.extend(weird.clone());
    let frame = render(&screen);
    assert_eq!((frame.width, frame.height), (1080, 2400));

    for (w, h, density) in [(0, 0, 420), (1, 1, 420), (0, 100, 0), (3, 2, u32::MAX), (100_000, 0, 160)] {
        let screen =
            Screen { width: w, height: h, density, windows: weird.clone(), active: 0, look: Default::default() };
        let frame = render(&screen);
        assert_eq!(frame.rgba.len(), frame.width as usize * frame.height as usize * 4);
        if frame.width > 0 && frame.height > 0 {
            assert_eq!(decode(&encode_png(&frame).expect("encode")), (frame.width, frame.height));
        } else {
            assert!(encode_png(&frame).is_err());
        }
    }
    let bad = Frame { width: 2, height: 2, rgba: vec![0; 3] };
    assert!(encode_png(&bad).is_err());
}

/// Writes /tmp/render-sample.png for a person (or a model) to look at.
#[test]
#[ignore]
fn write_sample_png() {
    let start = std::time::Instant::now();
    let frame = render(&sample(true));
    let rendered = start.elapsed();
    let png = encode_png(&frame).expect("encode");
    let encoded = start.elapsed() - rendered;
    std::fs::write("/tmp/render-sample.png", &png).expect("write sample");
    let frame = render(&sample(false));
    // A 1:1 crop of the switches, CJK label and fields, for checking edges and glyphs.
    let (top, bottom) = (420usize, 1000usize);
    let crop = Frame {
        width: 1080,
        height: (bottom - top) as u32,
        rgba: frame.rgba[top * 1080 * 4..bottom * 1080 * 4].to_vec(),
    };
    std::fs::write("/tmp/render-crop.png", encode_png(&crop).expect("encode")).expect("write");
    std::fs::write("/tmp/render-sample-plain.png", encode_png(&frame).expect("encode")).expect("write");
    println!("render {rendered:?} (first call), encode {encoded:?}, {} bytes", png.len());
    let screen = sample(true);
    let start = std::time::Instant::now();
    for _ in 0..10 {
        std::hint::black_box(render(&screen));
    }
    println!("render (warm) {:?}", start.elapsed() / 10);
    let full = Rect::new(0, 0, 1080, 2400);
    for (name, role) in
        [("surface", Role::Surface { color: 0xFFFFFF }), ("scrim", Role::Scrim), ("keyboard", Role::Keyboard)]
    {
        let screen = Screen {
            width: 1080,
            height: 2400,
            density: 420,
            windows: vec![node(role, full, "")],
            active: 0,
            look: Default::default(),
        };
        let start = std::time::Instant::now();
        for _ in 0..10 {
            std::hint::black_box(render(&screen));
        }
        println!("{name}: {:?}", start.elapsed() / 10);
    }
    let screen = sample(false);
    let start = std::time::Instant::now();
    for _ in 0..10 {
        std::hint::black_box(render(&screen));
    }
    println!("no overlays: {:?}", start.elapsed() / 10);
}
