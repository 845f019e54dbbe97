//! Every dump parses into a `UiTree` with sensible content, and the compact screen
//! text keeps every actionable element — counted from the raw XML, not by the filter
//! that wrote the text: the virtual phone's dumps the repository keeps
//! (`tests/fixtures/dumps/`) and its live ones always, and real phones' dumps when a
//! folder of them is there (`$CODEACT_REAL_DUMPS`, else the fixtures folder beside
//! the checkout): they add cases, they are never a condition for passing.

use std::time::Duration;

use codeact::device::{DeviceSpec, open};
use codeact::ui::{self, ParseError};

/// The virtual phone's dumps the repository keeps.
const OUR_DUMPS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/dumps");

/// Real phones' dumps, when there is a folder of them.
fn real_dumps() -> Option<std::path::PathBuf> {
    let folder = std::env::var_os("CODEACT_REAL_DUMPS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/real-dumps"));
    folder.is_dir().then_some(folder)
}

/// What each malformed fixture needs, and that it parses after the clean-up.
const MALFORMED: &[(&str, &str)] = &[
    ("29-malformed-twitter-trailing-status-line.xml", "the glued `UI hierchary dumped to:` line is stripped"),
    (
        "30-malformed-ivi-appium-leading-log-cp949-crcrlf.xml",
        "leading log stripped, CP949 bytes decoded as U+FFFD, CR CR LF accepted, Appium tags",
    ),
];

/// `[l,t][r,b]` as four numbers.
fn bounds(text: &str) -> Option<[i32; 4]> {
    let n: Vec<i32> = text
        .split(|c: char| !(c.is_ascii_digit() || c == '-'))
        .filter(|s| !s.is_empty())
        .filter_map(|s| s.parse().ok())
        .collect();
    n.try_into().ok()
}

/// What the raw XML says, read without codeact's parser: the screen its windows
/// span, the size `wm size` would report (portrait), and how many nodes on that
/// screen can be acted on.
struct RawFacts {
    screen: [i32; 4],
    wm_size: (u32, u32),
    actionable: usize,
}

fn raw_facts(text: &str) -> Option<RawFacts> {
    let start = text.find("<hierarchy")?;
    let end = text.rfind("</hierarchy>")? + "</hierarchy>".len();
    // Some dumps carry control characters XML forbids: drop them before reading.
    let xml: String = text[start..end].chars().filter(|c| matches!(c, '\t' | '\n' | '\r') || *c >= ' ').collect();
    let doc = roxmltree::Document::parse(&xml).ok()?;
    let root = doc.root_element();
    let windows: Vec<[i32; 4]> =
        root.children().filter(|n| n.is_element()).filter_map(|n| bounds(n.attribute("bounds")?)).collect();
    let right = windows.iter().map(|b| b[2]).max()?;
    let bottom = windows.iter().map(|b| b[3]).max()?;
    let screen = [0, 0, right, bottom];
    // `wm size` is the physical (portrait) size whatever the rotation.
    let wm_size = if right > bottom { (bottom as u32, right as u32) } else { (right as u32, bottom as u32) };
    let actionable = doc
        .descendants()
        .filter(|n| n.is_element() && n.tag_name().name() != "hierarchy")
        .filter(|n| {
            let yes = |a: &str| n.attribute(a) == Some("true");
            let class = n.attribute("class").unwrap_or(n.tag_name().name());
            let editable = class.contains("EditText") || class.ends_with("AutoCompleteTextView");
            let acts = yes("clickable") || yes("checkable") || yes("scrollable") || editable;
            let on_screen = n.attribute("bounds").and_then(bounds).is_some_and(|b| {
                b[2] > b[0] && b[3] > b[1] && b[0] < screen[2] && b[2] > 0 && b[1] < screen[3] && b[3] > 0
            });
            acts && on_screen && n.attribute("visible-to-user") != Some("false")
        })
        .count();
    Some(RawFacts { screen, wm_size, actionable })
}

/// Element lines of the compact text that are not text only: a text-only line has
/// no class, its index followed by its id, a quoted text or a description.
fn actionable_lines(text: &str) -> usize {
    text.lines()
        .skip(1)
        .filter(|line| {
            let after_index = line.split_once(' ').map_or("", |(_, rest)| rest);
            !(after_index.starts_with(['"', '#']) || after_index.starts_with("desc="))
        })
        .count()
}

#[test]
fn every_dump_of_ours_parses_and_keeps_its_actionable_elements() {
    check_dumps(std::path::Path::new(OUR_DUMPS));
}

#[test]
fn every_real_dump_parses_and_keeps_its_actionable_elements() {
    match real_dumps() {
        Some(folder) => check_dumps(&folder),
        None => eprintln!("note: no folder of real phones' dumps (set CODEACT_REAL_DUMPS to add one); skipped"),
    }
}

/// Checks every `.xml` dump in `folder`.
fn check_dumps(folder: &std::path::Path) {
    let entries = std::fs::read_dir(folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
    let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "xml"));
    files.sort();
    assert!(!files.is_empty(), "{} holds no dumps", folder.display());
    let mut counted = 0;
    for path in files {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let bytes = std::fs::read(&path).expect("read fixture");
        let raw = String::from_utf8_lossy(&bytes);
        let facts = raw_facts(&raw);
        let wm_size = facts.as_ref().map_or((1080, 2400), |f| f.wm_size);
        let tree = match ui::parse(&bytes, wm_size) {
            Ok(tree) => tree,
            Err(e) => panic!("{name}: {e}"),
        };
        if name.contains("malformed") {
            assert!(MALFORMED.iter().any(|(f, _)| *f == name), "{name}: say what the clean-up does for it");
        }
        assert!(tree.len() >= 4, "{name}: only {} elements", tree.len());
        assert!(!tree.roots.is_empty(), "{name}: no top-level window");
        assert!(tree.elements.iter().any(|e| !e.bounds.is_empty()), "{name}: no element has bounds");
        let with_text = tree.elements.iter().filter(|e| !e.text.is_empty() || !e.content_desc.is_empty()).count();
        assert!(with_text > 0 || name.contains("game") || name.contains("flutter"), "{name}: no text at all");
        let text = ui::screen_text::screen_text(&tree, "p", "p.A", false);
        assert_eq!(text.lines().count(), ui::screen_text::listed(&tree).len() + 1, "{name}: one line per element");
        // Dumps that are not well-formed XML as stored are only checked by the parser.
        if let Some(facts) = facts {
            let (w, h) = (facts.screen[2], facts.screen[3]);
            assert!(w > 0 && h > 0, "{name}: windows with no size");
            assert_eq!(actionable_lines(&text), facts.actionable, "{name}: an actionable element was dropped");
            counted += 1;
        }
        for e in &tree.elements {
            for c in &e.children {
                assert_eq!(tree.elements[*c].parent, Some(e.id), "{name}: parent links");
            }
        }
    }
    assert!(counted > 0, "no dump in {} could be counted independently", folder.display());
}

#[test]
fn the_actionable_count_sees_what_the_text_drops() {
    // A clickable button the text would keep and an invisible one it must not.
    let xml = r#"<hierarchy rotation="0"><node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">
<node class="android.widget.Button" text="OK" clickable="true" bounds="[0,0][100,100]" />
<node class="android.widget.Button" text="Off" clickable="true" bounds="[0,3000][100,3100]" />
<node class="android.widget.EditText" bounds="[0,200][500,300]" />
</node></hierarchy>"#;
    let facts = raw_facts(xml).expect("facts");
    assert_eq!((facts.actionable, facts.wm_size), (2, (1080, 2400)));
    let tree = ui::parse(xml.as_bytes(), facts.wm_size).expect("parse");
    let text = ui::screen_text::screen_text(&tree, "p", "p.A", false);
    assert_eq!(actionable_lines(&text), 2, "{text}");
    assert_eq!(
        actionable_lines(
            "app p/.A\n0 Button \"OK\" @0,0\n1 \"x Button\" @0,0\n2 desc=\"logo\" @1,1\n3 #title \"T\" @2,2\n4 ListView [scrolls] (0,0,9,9)\n"
        ),
        2
    );
}

#[test]
fn multi_window_and_cjk_dumps_keep_their_content() {
    let Some(folder) = real_dumps() else { return };
    let Ok(bytes) = std::fs::read(folder.join("09-gmail-compose-gboard-keyboard-multiwindow.xml")) else {
        return;
    };
    let tree = ui::parse(&bytes, (1080, 2400)).expect("parse");
    assert_eq!(
        tree.window_packages(),
        ["com.android.systemui", "com.google.android.gm", "com.miui.home", "com.google.android.inputmethod.latin"]
    );
    let bytes = std::fs::read(folder.join("03-wechat-contacts-cjk.xml")).expect("fixture 03");
    let tree = ui::parse(&bytes, (1080, 2210)).expect("parse");
    assert!(tree.elements.iter().any(|e| e.text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))));
    let bytes = std::fs::read(folder.join("27-hidden-settings-rotation3.xml")).expect("fixture 27");
    assert_eq!(ui::parse(&bytes, (1080, 2400)).expect("parse").rotation, 3);
}

#[test]
fn the_virtual_devices_dumps_parse() {
    let mut d = open(&DeviceSpec::Sim, Duration::from_secs(10)).expect("virtual device");
    for cmd in [
        "input keyevent HOME",
        "am start -n com.android.settings/.Settings",
        "am start -n com.android.contacts/.activities.PeopleActivity",
        "am start -n com.google.android.apps.messaging/.ui.ConversationListActivity",
        "am start -n com.example.notes/.NoteEditorActivity",
        "am start -n com.android.deskclock/.DeskClock",
    ] {
        d.shell(cmd).expect("command");
        for flag in ["", "--windows "] {
            let raw = d.shell(&format!("uiautomator dump {flag}/dev/tty")).expect("dump").stdout_text();
            let tree = ui::parse(raw.as_bytes(), (1080, 2400)).unwrap_or_else(|e| panic!("{cmd}: {e}"));
            assert!(tree.elements.iter().any(|e| e.actions.touch && e.visible), "{cmd}: something to tap");
        }
    }
    assert!(matches!(ui::parse(b"ERROR: could not get idle state.\n", (1, 1)), Err(ParseError::NoHierarchy { .. })));
}
