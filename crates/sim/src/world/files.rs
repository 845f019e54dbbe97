//! The Files app's view of the phone's storage: every file and folder under /sdcard
//! as records, and moving one as `mv` does. Also the formats a form may require.
//!
//! Nothing is cached: the records are read from the shell's file system each time, so
//! what `adb push`, `ls` and the Files app show can never disagree.

use super::template::{Record, Value};
use crate::shell::MemFs;

/// The root the Files app shows.
const ROOT: &str = "/sdcard";

/// Files and folders under /sdcard, depth first, folders before files, by name.
pub(crate) fn records(fs: &MemFs) -> Vec<Record> {
    let mut out = Vec::new();
    walk(fs, ROOT, &mut out, 0);
    out
}

fn walk(fs: &MemFs, folder: &str, out: &mut Vec<Record>, depth: usize) {
    // A bound, not a feature: storage made by a script could nest without end.
    if depth > 32 || out.len() > 10_000 {
        return;
    }
    let Ok(mut entries) = fs.list(folder) else { return };
    entries.sort_by(|(a, ma), (b, mb)| mb.is_dir.cmp(&ma.is_dir).then_with(|| a.to_lowercase().cmp(&b.to_lowercase())));
    for (name, meta) in entries {
        if name == "." || name == ".." {
            continue;
        }
        let path = format!("{folder}/{name}");
        let mut record = Record::new();
        record.insert("path".into(), Value::Str(path.clone()));
        record.insert("name".into(), Value::Str(name.clone()));
        record.insert("folder".into(), Value::Str(folder.to_string()));
        record.insert("kind".into(), Value::Str(if meta.is_dir { "folder" } else { "file" }.into()));
        record.insert("size".into(), Value::Int(i64::try_from(meta.size).unwrap_or(i64::MAX)));
        out.push(record);
        if meta.is_dir {
            walk(fs, &path, out, depth + 1);
        }
    }
}

/// Moves `from` to the path `to` (a rename when the folder is the same). Refuses to
/// overwrite, to move a folder into itself, or to leave /sdcard.
pub(crate) fn move_to(fs: &MemFs, from: &str, to: &str) -> Result<(), crate::shell::FsError> {
    let inside = |p: &str| p.starts_with(&format!("{ROOT}/"));
    if !inside(from) || !inside(to) || to == from || to.starts_with(&format!("{from}/")) || fs.stat(to).is_some() {
        return Err(crate::shell::FsError::PermissionDenied);
    }
    crate::shell::builtins::copy_tree(fs, from, to)?;
    fs.remove(from, true)
}

/// Whether `value` reads as a `date` (2023-10-15, a real day), a `time` (9:05 or
/// 09:05, 24-hour), an `amount` (12, 12.5 or 12.50, not negative), an `email`
/// (one `@`, a dotted domain, no spaces), a `phone` (7 to 15 digits, with `+`,
/// spaces, dashes and brackets allowed), a `zip` (five digits) or a `password`
/// (eight characters or more).
pub(crate) fn well_formed(value: &str, format: &str) -> bool {
    match format {
        "date" => value.len() == 10 && value.parse::<jiff::civil::Date>().is_ok(),
        "time" => value.split_once(':').is_some_and(|(h, m)| {
            let digits = |s: &str| s.bytes().all(|b| b.is_ascii_digit());
            (1..=2).contains(&h.len())
                && m.len() == 2
                && digits(h)
                && digits(m)
                && h.parse::<u8>().is_ok_and(|h| h < 24)
                && m.parse::<u8>().is_ok_and(|m| m < 60)
        }),
        "amount" => {
            let (whole, cents) = value.split_once('.').unwrap_or((value, "0"));
            !whole.is_empty()
                && whole.len() <= 9
                && whole.bytes().all(|b| b.is_ascii_digit())
                && !cents.is_empty()
                && cents.len() <= 2
                && cents.bytes().all(|b| b.is_ascii_digit())
        }
        "email" => value.split_once('@').is_some_and(|(user, domain)| {
            !user.is_empty()
                && !domain.contains('@')
                && domain.split('.').count() >= 2
                && domain.split('.').all(|part| !part.is_empty())
                && !value.chars().any(char::is_whitespace)
        }),
        "phone" => {
            let digits = value.bytes().filter(u8::is_ascii_digit).count();
            (7..=15).contains(&digits)
                && value.bytes().all(|b| b.is_ascii_digit() || b" +-()".contains(&b))
                && value.bytes().skip(1).all(|b| b != b'+')
        }
        "zip" => value.len() == 5 && value.bytes().all(|b| b.is_ascii_digit()),
        "password" => value.chars().count() >= 8,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert!(well_formed("2023-10-15", "date") && !well_formed("2023-02-30", "date"));
        assert!(well_formed("9:05", "time") && well_formed("23:59", "time"));
        assert!(!well_formed("24:00", "time") && !well_formed("9:5", "time") && !well_formed("x", "time"));
        assert!(well_formed("12", "amount") && well_formed("12.50", "amount"));
        assert!(!well_formed("-3", "amount") && !well_formed("1.234", "amount") && !well_formed("", "amount"));
    }

    #[test]
    fn records_and_moves() {
        let fs = MemFs::new();
        fs.write("/sdcard/Download/a.txt", b"hi").unwrap();
        let names: Vec<String> = records(&fs).iter().map(|r| r["path"].to_string()).collect();
        assert!(names.contains(&"/sdcard/Download/a.txt".to_string()));
        move_to(&fs, "/sdcard/Download/a.txt", "/sdcard/Pictures/a.txt").unwrap();
        assert!(fs.stat("/sdcard/Pictures/a.txt").is_some() && fs.stat("/sdcard/Download/a.txt").is_none());
        assert!(move_to(&fs, "/sdcard/Pictures", "/sdcard/Pictures/x").is_err());
    }
}
