//! Files land only where they belong: hostile file names neither escape their folder
//! nor run script in the report, and no link planted in a run folder, a suite or a
//! gallery is written through.

use std::process::Command;

use super::untrusted::*;
use crate::agent_run::{scratch, stderr};
use crate::common;
use crate::common::llm::{ScriptedLlm, reply};

/// Scripts with hostile file names: their run folders stay inside the trajectory
/// folder (files beside it are untouched), and the index's links, clicked in a
/// real Chromium, run no script and lead nowhere but to files below the index.
#[test]
fn hostile_file_names_neither_escape_their_folder_nor_run_in_the_report() {
    let dir = scratch("hostile-names");
    let names = [
        "javascript:document.body.innerHTML='<p id=pwned>'<!--.rhai",
        "...rhai",
        "a\"b#c?d e%41.rhai",
        "x<img src=x onerror=alert(1)>.rhai",
    ];
    let mut args = vec!["exec".to_string(), "--device".into(), "sim".into(), "--trajectory".into(), "tr".into()];
    for name in names {
        write(&dir, name, "complete(true, \"ok\");\n");
        args.push(name.to_string());
    }
    // What lies beside the trajectory folder must stay as it is.
    let sentinels = ["script.rhai", "report.html", "events.jsonl", "summary.json"];
    for s in sentinels {
        write(&dir, s, "sentinel");
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = codeact(&dir, &args);
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    for s in sentinels {
        assert_eq!(std::fs::read_to_string(dir.join(s)).unwrap_or_default(), "sentinel", "{s} was overwritten");
    }
    let root = dir.join("tr");
    let index = std::fs::read_to_string(root.join("report.html")).expect("the index");
    let hrefs: Vec<&str> = index.split("href=\"").skip(1).filter_map(|h| h.split('"').next()).collect();
    assert_eq!(hrefs.len(), names.len(), "{index}");
    for href in &hrefs {
        assert!(href.starts_with("./") && !href.contains(':') && !href.contains("/../"), "{href}");
        let decoded = percent_encoding::percent_decode_str(&href[2..]).decode_utf8_lossy().into_owned();
        let target = root.join(&decoded);
        assert!(target.is_file(), "{href} leads to {}", target.display());
        let real = target.canonicalize().expect("canonical");
        assert!(real.starts_with(root.canonicalize().expect("root")), "{href} leaves the folder");
    }
    // Clicked in Chromium: every link that is not a file: link is clicked by the
    // probe; a javascript: link would replace the page with the payload's marker.
    let probe = index.replace(
        "</body>",
        "<script>for (const a of document.querySelectorAll('a[href]')) if (a.protocol !== 'file:') a.click();\
         document.body.dataset.links = [...document.links].map(a => a.protocol).join(' ');</script></body>",
    );
    write(&root, "probe.html", &probe);
    let profile = dir.join("chromium-profile");
    let dom =
        crate::report::chromium(&["--dump-dom", &format!("file://{}", root.join("probe.html").display())], &profile);
    let dom = String::from_utf8_lossy(&dom.stdout).into_owned();
    assert!(dom.contains("<table") && !dom.contains("id=\"pwned\""), "{dom}");
    assert!(dom.contains("data-links=\"file: file: file: file:\""), "{dom}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `exec --heal` writes its healed script by renaming a new file into place: a
/// link shipped at that name is replaced, never written through. `memory card
/// --edit` hands the editor a private file of a random name.
#[test]
fn no_planted_link_is_written_through() {
    let sim = common::SimProcess::start(&[]);
    let dir = scratch("planted-links");
    let victim = write(&dir, "victim.txt", "keep me");
    let script = write(
        &dir,
        "wifi.rhai",
        "// Turn off Wi-Fi.\nstart_app(\"com.android.settings\");\n// Flip the switch\ntap(#{id: \"no_such_switch\"});\n",
    );
    std::os::unix::fs::symlink(&victim, dir.join("wifi.healed.rhai")).expect("plant a link");
    let healer = ScriptedLlm::per_model(vec![(
        "scripted",
        vec![reply("Thought: the switch.\n```rhai\ntap(#{id: \"wifi_switch\"});\ncomplete(true, \"step done\");\n```")],
    )]);
    let out = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["exec", &script.to_string_lossy(), "--device", &sim.addr, "--heal"])
        .args(["--base-url", &healer.base_url, "--model", "scripted", "--trajectory"])
        .arg(dir.join("runs"))
        .env("OPENAI_API_KEY", "sk-codeact-links-test-KEY-00000")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("CODEACT_MODEL")
        .env_remove("CODEACT_CONFIG")
        .output()
        .expect("codeact exec --heal");
    assert_eq!(out.status.code(), Some(0), "{}\n{}", stdout(&out), stderr(&out));
    assert_eq!(std::fs::read_to_string(&victim).unwrap_or_default(), "keep me", "the link's target is untouched");
    let healed = dir.join("wifi.healed.rhai");
    assert!(!std::fs::symlink_metadata(&healed).expect("healed").file_type().is_symlink());
    assert!(std::fs::read_to_string(&healed).unwrap_or_default().contains("wifi_switch"));

    // The editor sees a private, randomly named, regular file.
    let record = dir.join("editor-saw.txt");
    let editor = write(
        &dir,
        "editor.sh",
        &format!(
            "#!/bin/sh\nstat -c '%a %F' \"$1\" > '{}'\nbasename \"$1\" >> '{}'\necho 'Tap Save twice.' > \"$1\"\n",
            record.display(),
            record.display()
        ),
    );
    std::fs::set_permissions(&editor, std::os::unix::fs::PermissionsExt::from_mode(0o755)).expect("chmod");
    let memory = dir.join("memory.sqlite");
    let edited = Command::new(env!("CARGO_BIN_EXE_codeact"))
        .args(["memory", "card", "com.example.notes", "--edit", "--memory", &memory.to_string_lossy()])
        .env("EDITOR", &editor)
        .env_remove("VISUAL")
        .output()
        .expect("memory card --edit");
    assert_eq!(edited.status.code(), Some(0), "{}", stderr(&edited));
    let saw = std::fs::read_to_string(&record).unwrap_or_default();
    let mut lines = saw.lines();
    assert!(lines.next().is_some_and(|l| l.starts_with("600 regular")), "{saw}");
    let name = lines.next().unwrap_or_default();
    let pid_named = name
        .strip_prefix("codeact-card-")
        .and_then(|r| r.strip_suffix(".md"))
        .is_some_and(|m| m.chars().all(|c| c.is_ascii_digit()));
    assert!(name.starts_with("codeact-card-") && !pid_named, "{name}");
    let card = codeact(&dir, &["memory", "card", "com.example.notes", "--memory", &memory.to_string_lossy()]);
    assert!(stdout(&card).contains("Tap Save twice."), "{}", stdout(&card));
    let _ = std::fs::remove_dir_all(&dir);
}
