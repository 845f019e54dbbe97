//! Every real dump in `../shared/fixtures/real-dumps/` and the virtual device's own
//! dumps parse into a `UiTree` with sensible content.

mod common;

use codeact::ui::{self, ParseError};
use common::phone::Phone;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/fixtures/real-dumps");

/// What each malformed fixture needs, and that it parses after the clean-up.
const MALFORMED: &[(&str, &str)] = &[
    ("29-malformed-twitter-trailing-status-line.xml", "the glued `UI hierchary dumped to:` line is stripped"),
    (
        "30-malformed-ivi-appium-leading-log-cp949-crcrlf.xml",
        "leading log stripped, CP949 bytes decoded as U+FFFD, CR CR LF accepted, Appium tags",
    ),
];

#[test]
fn every_real_dump_parses() {
    let Ok(entries) = std::fs::read_dir(FIXTURES) else {
        // CI always has shared/ beside the clone; a bare clone elsewhere may not.
        assert!(std::env::var_os("CI").is_none(), "{FIXTURES} is missing in CI");
        eprintln!("note: {FIXTURES} not found (shared/ sits beside the repository in CI); skipped");
        return;
    };
    let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.retain(|p| p.extension().is_some_and(|e| e == "xml"));
    files.sort();
    assert!(files.len() >= 30, "expected the 30 fixtures, found {}", files.len());
    for path in files {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let bytes = std::fs::read(&path).expect("read fixture");
        let result = ui::parse(&bytes, (1080, 2400));
        let tree = match result {
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
        // The compact text lists every visible actionable element, one line each.
        let text = ui::render::render(&tree, "p", "p.A", false);
        let listed = ui::render::listed(&tree);
        assert_eq!(text.lines().count(), listed.len() + 1, "{name}: one line per listed element");
        let actionable = tree.elements.iter().filter(|e| e.visible && (e.actions.touch || e.actions.set_text)).count();
        assert!(
            listed.iter().filter(|e| e.actions.touch || e.actions.set_text).count() == actionable,
            "{name}: an actionable element was dropped"
        );
        for e in &tree.elements {
            for c in &e.children {
                assert_eq!(tree.elements[*c].parent, Some(e.id), "{name}: parent links");
            }
        }
    }
}

#[test]
fn multi_window_and_cjk_dumps_keep_their_content() {
    let Ok(bytes) = std::fs::read(format!("{FIXTURES}/09-gmail-compose-gboard-keyboard-multiwindow.xml")) else {
        return;
    };
    let tree = ui::parse(&bytes, (1080, 2400)).expect("parse");
    assert_eq!(
        tree.window_packages(),
        ["com.android.systemui", "com.google.android.gm", "com.miui.home", "com.google.android.inputmethod.latin"]
    );
    let bytes = std::fs::read(format!("{FIXTURES}/03-wechat-contacts-cjk.xml")).expect("fixture 03");
    let tree = ui::parse(&bytes, (1080, 2210)).expect("parse");
    assert!(tree.elements.iter().any(|e| e.text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))));
    let bytes = std::fs::read(format!("{FIXTURES}/27-hidden-settings-rotation3.xml")).expect("fixture 27");
    assert_eq!(ui::parse(&bytes, (1080, 2400)).expect("parse").rotation, 3);
}

#[test]
fn the_virtual_devices_dumps_parse() {
    let mut p = Phone::start();
    for cmd in [
        "input keyevent HOME",
        "am start -n com.android.settings/.Settings",
        "am start -n com.android.contacts/.activities.PeopleActivity",
        "am start -n com.google.android.apps.messaging/.ui.ConversationListActivity",
        "am start -n com.example.notes/.NoteEditorActivity",
        "am start -n com.android.deskclock/.DeskClock",
    ] {
        p.sh(cmd);
        for flag in ["", "--windows "] {
            let raw = p.sh(&format!("uiautomator dump {flag}/dev/tty"));
            let tree = ui::parse(raw.as_bytes(), (1080, 2400)).unwrap_or_else(|e| panic!("{cmd}: {e}"));
            assert!(tree.elements.iter().any(|e| e.actions.touch && e.visible), "{cmd}: something to tap");
        }
    }
    assert!(matches!(ui::parse(b"ERROR: could not get idle state.\n", (1, 1)), Err(ParseError::NoHierarchy { .. })));
}
