//! The memory store's own tests.

use super::*;
use crate::memory::ReplayStep;

fn experience(task: &str) -> Experience {
    let step = ReplayStep {
        intent: "open Settings".into(),
        code: "start_app(\"com.android.settings\");".into(),
        app: "com.android.launcher3".into(),
        activity: ".Launcher".into(),
        anchor: None,
    };
    Experience { task: task.into(), apps: vec!["com.android.settings".into()], steps: vec![step], effects: None }
}

#[test]
fn experiences_are_kept_found_searched_healed_and_forgotten() {
    let dir = std::env::temp_dir().join(format!("codeact-memory-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let path = dir.join("deep/memory.sqlite");
    let store = Store::open(&path).unwrap();
    let id = store.add(&experience("Turn off Wi-Fi")).unwrap();
    store.add(&experience("Add an alarm at 7:30")).unwrap();
    let found = store.find_task("turn off wi-fi.").unwrap().unwrap();
    assert_eq!((found.id, found.experience.steps.len()), (id, 1));
    let hits = store.search("switch wi-fi off", 5).unwrap();
    assert_eq!(hits.first().map(|h| h.0), Some(id));
    assert!(store.search("\"; DROP TABLE experiences; --", 5).unwrap().is_empty());
    let similar = store.similar("Turn off Bluetooth", 3).unwrap();
    assert_eq!(similar.first().map(|r| r.id), Some(id), "shares \"turn off\"");
    assert!(store.similar("Turn off Wi-Fi", 3).unwrap().iter().all(|r| r.id != id), "not itself");
    store.set_card("com.example.notes", "Long-press a note to delete it.").unwrap();
    assert_eq!(store.card("com.example.notes").unwrap().as_deref(), Some("Long-press a note to delete it."));
    store.set_card("com.example.notes", " ").unwrap();
    assert!(store.cards().unwrap().is_empty());
    store.heal(id, &experience("Turn off Wi-Fi")).unwrap();
    assert!(store.get(id).unwrap().healed);
    // A second connection, as a concurrent run has, sees and writes the same data.
    let other = Store::open(&path).unwrap();
    assert_eq!(other.list().unwrap().len(), 2);
    other.forget(id).unwrap();
    assert!(store.find_task("Turn off Wi-Fi").unwrap().is_none());
    assert!(matches!(store.forget(id), Err(MemoryError::NoSuch(_))));
    // An import keeps what memory lacks, once: again, it adds nothing.
    let file = [experience("Open the clock"), experience("Open the clock"), experience("Add an alarm at 7:30")];
    assert_eq!(store.import(&file).unwrap(), (1, 2));
    assert_eq!(store.import(&file).unwrap(), (0, 3));
    assert_eq!(store.list().unwrap().len(), 2);
    let _ = std::fs::remove_dir_all(&dir);
}
