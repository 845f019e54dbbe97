//! `codeact assets`: a reference cut from the virtual phone's live screen, kept in a
//! gallery folder, listed, and found again — where it is, not where it is not — and
//! the mistakes a user makes refused with what to do.

use std::path::Path;
use std::process::{Command, Output};

use crate::common;

fn assets(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_codeact"))
        .arg("assets")
        .args(args)
        .args(["--assets", dir.to_str().unwrap_or_default()])
        .output()
        .expect("codeact assets")
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

#[test]
fn a_reference_cut_from_the_screen_is_found_there_and_not_elsewhere() {
    let sim = common::SimProcess::start(&[]);
    let dir = std::env::temp_dir().join(format!("codeact-assets-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let device = ["--device", sim.addr.as_str()];
    // The Notes icon on the launcher.
    let add = assets(
        &dir,
        &[&["add", "notes_icon", "--from-screen", "867,430,1023,586", "--alias", "notes"][..], &device].concat(),
    );
    assert!(add.status.success(), "{}", text(&add));
    let list = assets(&dir, &["list"]);
    assert!(
        text(&list).contains("notes_icon (also notes): 156x156 at 867,430 on a 1080x2400 screen"),
        "{}",
        text(&list)
    );
    let found = assets(&dir, &[&["find", "notes"][..], &device].concat());
    assert!(found.status.success() && text(&found).contains("notes: [867,4"), "{}", text(&found));
    // A script finds it and taps it by picture: `#{image: NAME}` (or an alias).
    std::fs::create_dir_all(&dir).expect("dir");
    let by_picture = dir.join("by_picture.rhai");
    std::fs::write(
        &by_picture,
        "let e = find(#{image: \"notes\"});\nprint(e.bounds);\ntap(#{image: \"notes_icon\", threshold: 0.9});\nwait_for(#{desc: \"New note\"});\nassert_not_visible(#{image: \"notes\"});\n",
    )
    .expect("script");
    let run = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args([
            "exec",
            by_picture.to_str().unwrap_or_default(),
            "--keep-state",
            "--assets",
            dir.to_str().unwrap_or_default(),
        ])
        .args(device)
        .output()
        .expect("codeact exec");
    let said = text(&run);
    assert!(run.status.success(), "{said}");
    assert!(said.contains("[867, 429, 1023, 585]") && said.contains("found by picture \"notes\""), "{said}");
    assert!(said.contains("opened com.example.notes"), "{said}");
    let unknown = dir.join("unknown.rhai");
    std::fs::write(&unknown, "tap(#{image: \"no_such_picture\"});\n").expect("script");
    let run = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", unknown.to_str().unwrap_or_default(), "--assets", dir.to_str().unwrap_or_default()])
        .args(device)
        .output()
        .expect("codeact exec");
    assert!(text(&run).contains("no reference picture \"no_such_picture\""), "{}", text(&run));
    // A watcher by picture fires on the screen that shows it, with the match as its
    // element; one by description is refused (a model call before every action).
    let watching = dir.join("watching.rhai");
    std::fs::write(
        &watching,
        "home();\nwatch(\"icon\", #{image: \"notes\"}, |el| { print(\"saw \" + el.class + \" \" + el.id); unwatch(\"icon\"); });\n\
         tap(#{text: \"Settings\"});\n\
         watch(#{ai: \"a close button\"}, |el| print(el));\n",
    )
    .expect("script");
    let run = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", watching.to_str().unwrap_or_default(), "--assets", dir.to_str().unwrap_or_default()])
        .args(device)
        .output()
        .expect("codeact exec");
    let said = text(&run);
    assert!(said.contains("saw Image notes"), "{said}");
    assert!(said.contains("a watcher looks between actions and asks no model"), "{said}");
    let back = dir.join("home.rhai");
    std::fs::write(&back, "home();\n").expect("script");
    let home = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", back.to_str().unwrap_or_default(), "--keep-state"])
        .args(device)
        .output();
    assert!(home.is_ok_and(|o| o.status.success()));
    // Mistakes, each refused with what to do.
    let cases: [(&[&str], &str); 5] = [
        (&["add", "blank", "--from-screen", "100,1900,300,2100"], "one flat colour"),
        (&["add", "wide", "--from-screen", "1000,10,1200,20"], "reaches past the 1080x2400 screen"),
        (&["add", "Bad Name", "--from-screen", "867,430,1023,586"], "not a reference name"),
        (&["add", "notes_icon", "--from-screen", "867,430,1023,586"], "--replace"),
        (&["find", "nothing_like_it"], "no reference \"nothing_like_it\""),
    ];
    for (args, says) in cases {
        let out = assets(&dir, &[args, &device].concat());
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
        assert!(text(&out).contains(says), "{args:?} should say {says:?}: {}", text(&out));
    }
    // In Settings the icon is not on screen: exit 1 with the best scores seen.
    std::fs::create_dir_all(&dir).expect("dir");
    let script = dir.join("settings.rhai");
    std::fs::write(&script, "start_app(\"com.android.settings\");\n").expect("script");
    let open = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", script.to_str().unwrap_or_default(), "--keep-state"])
        .args(device)
        .output()
        .expect("codeact exec");
    assert!(open.status.success(), "{}", text(&open));
    let gone = assets(&dir, &[&["find", "notes_icon"][..], &device].concat());
    assert_eq!(gone.status.code(), Some(1), "{}", text(&gone));
    assert!(text(&gone).contains("not on screen (threshold 0.80); best seen:"), "{}", text(&gone));
    let bad_box = assets(&dir, &["add", "x", "--from-screen", "5,5,1,1"]);
    assert!(text(&bad_box).contains("x1 must be left of x2"), "{}", text(&bad_box));
    let _ = std::fs::remove_dir_all(&dir);
}
