//! [`MemFs`]'s tests: paths, aliases, permissions, directories, pushes, long names and the
//! quota, each on a fresh file system.

use super::*;

#[test]
fn normalize_paths() {
    assert_eq!(MemFs::normalize("a/b/../c/", "/sdcard"), "/sdcard/a/c");
    assert_eq!(MemFs::normalize("//sdcard///x/./y", "/"), "/sdcard/x/y");
    assert_eq!(MemFs::normalize("../../..", "/a"), "/");
    assert_eq!(MemFs::normalize("/storage/emulated/0/a", "/"), "/sdcard/a");
    assert_eq!(MemFs::normalize("/storage/self/primary", "/"), "/sdcard");
    assert_eq!(MemFs::normalize("/storage/emulated/01", "/"), "/storage/emulated/01");
    assert_eq!(MemFs::normalize("", "/"), "/");
}

#[test]
fn write_read_alias() {
    let fs = MemFs::new();
    fs.write("/storage/emulated/0/a", b"hi").unwrap();
    assert_eq!(fs.read("/sdcard/a").unwrap(), b"hi");
    fs.append("/sdcard/a", b"!").unwrap();
    assert_eq!(fs.read("/storage/emulated/0/a").unwrap(), b"hi!");
    let m = fs.stat("/sdcard/a").unwrap();
    assert!(!m.is_dir);
    assert_eq!(m.size, 3);
    assert_eq!(m.mode, 0o100660);
    assert!(m.mtime > 0);
    assert_eq!(fs.read("/sdcard/none"), Err(FsError::NotFound));
    assert_eq!(fs.read("/sdcard"), Err(FsError::IsADirectory));
    assert_eq!(fs.read("/sdcard/a/b"), Err(FsError::NotADirectory));
}

#[test]
fn permissions() {
    let fs = MemFs::new();
    assert_eq!(fs.write("/system/x", b""), Err(FsError::ReadOnly));
    assert_eq!(fs.write("/data/x", b""), Err(FsError::PermissionDenied));
    assert_eq!(fs.write("/nope/x", b""), Err(FsError::NotFound));
    assert_eq!(fs.write("/sdcard", b""), Err(FsError::IsADirectory));
    assert_eq!(fs.remove("/sdcard", true), Err(FsError::PermissionDenied));
    assert_eq!(fs.mkdir("/system/d", false), Err(FsError::ReadOnly));
    fs.write("/data/local/tmp/t", b"x").unwrap();
    fs.write("/dev/null", b"gone").unwrap();
    assert_eq!(fs.read("/dev/null").unwrap(), b"");
}

#[test]
fn dirs_list_remove_clear() {
    let fs = MemFs::new();
    assert_eq!(fs.mkdir("/sdcard/a/b", false), Err(FsError::NotFound));
    fs.mkdir("/sdcard/a/b", true).unwrap();
    fs.mkdir("/sdcard/a/b", true).unwrap();
    assert_eq!(fs.mkdir("/sdcard/a", false), Err(FsError::AlreadyExists));
    fs.write("/sdcard/a/f", b"1").unwrap();
    let names: Vec<String> = fs.list("/sdcard/a").unwrap().into_iter().map(|e| e.0).collect();
    assert_eq!(names, ["b", "f"]);
    let root: Vec<String> = fs.list("/storage/emulated").unwrap().into_iter().map(|e| e.0).collect();
    assert_eq!(root, ["0"]);
    assert_eq!(fs.list("/sdcard/a/f"), Err(FsError::NotADirectory));
    assert_eq!(fs.remove("/sdcard/a", false), Err(FsError::IsADirectory));
    fs.remove("/sdcard/a", true).unwrap();
    assert!(fs.stat("/sdcard/a/b").is_none());
    fs.write("/sdcard/Download/x", b"1").unwrap();
    fs.remove("/sdcard/DCIM", true).unwrap();
    fs.clear_writable();
    assert!(fs.stat("/sdcard/Download/x").is_none());
    assert!(fs.stat("/sdcard/DCIM").is_some_and(|m| m.is_dir));
}

#[test]
fn push_creates_parents_with_mode() {
    let fs = MemFs::new();
    fs.write_with_mode("/sdcard/x/y/z.bin", b"abc", 0o100755, 42).unwrap();
    let m = fs.stat("/sdcard/x/y/z.bin").unwrap();
    assert_eq!((m.mode, m.mtime, m.size), (0o100755, 42, 3));
    assert!(fs.stat("/sdcard/x/y").unwrap().is_dir);
    assert_eq!(fs.write_with_mode("/system/a/b", b"", 0o644, 1), Err(FsError::ReadOnly));
}

#[test]
fn name_too_long() {
    let fs = MemFs::new();
    let long = format!("/sdcard/{}", "a".repeat(256));
    assert_eq!(fs.write(&long, b""), Err(FsError::NameTooLong));
    assert_eq!(FsError::NameTooLong.to_string(), "File name too long");
    fs.write(&format!("/sdcard/{}", "a".repeat(255)), b"ok").unwrap();
    let deep = format!("/sdcard{}", "/a".repeat(2100));
    assert_eq!(fs.mkdir(&deep, true), Err(FsError::NameTooLong));
    assert_eq!(fs.read(&deep), Err(FsError::NameTooLong));
    assert!(fs.stat(&deep).is_none());
    assert_eq!(fs.list(&deep), Err(FsError::NameTooLong));
    // 100k components: rejected by length, and normalize/lookup never recurse.
    let huge = "/x".repeat(100_000);
    assert_eq!(fs.write_with_mode(&huge, b"", 0o644, 0), Err(FsError::NameTooLong));
    assert_eq!(MemFs::normalize(&huge, "/").len(), huge.len());
    let t = initial_tree();
    let missing = format!("/sdcard{}", "/m".repeat(100_000));
    assert_eq!(lookup_dir(&t, &missing), Err(FsError::NotFound));
    assert_eq!(lookup_dir(&t, "/dev/null/x/y"), Err(FsError::NotADirectory));
    // A deep but legal tree works.
    let ok = format!("/sdcard{}", "/d".repeat(2000));
    fs.mkdir(&ok, true).unwrap();
    fs.write(&format!("{ok}/f"), b"1").unwrap();
    assert_eq!(fs.read(&format!("{ok}/f")).unwrap(), b"1");
}

#[test]
fn quota() {
    let fs = MemFs::with_quota(Store::new(usize::MAX).used + 10_000);
    assert_eq!(FsError::NoSpace.to_string(), "No space left on device");
    fs.write("/sdcard/a", &[0; 5000]).unwrap();
    assert_eq!(fs.append("/sdcard/a", &[0; 5000]), Err(FsError::NoSpace));
    assert_eq!(fs.write("/sdcard/b", &[0; 5000]), Err(FsError::NoSpace));
    // Rewriting in place and shrinking are allowed; freed space is reusable.
    fs.write("/sdcard/a", &[1; 5100]).unwrap();
    fs.remove("/sdcard/a", false).unwrap();
    fs.write("/sdcard/b", &[0; 9600]).unwrap();
    assert_eq!(fs.mkdir("/sdcard/d", false), Err(FsError::NoSpace));
    fs.clear_writable();
    fs.write("/sdcard/c", &[0; 9000]).unwrap();
    let mut n = 0;
    while fs.mkdir(&format!("/sdcard/d{n}"), false).is_ok() {
        n += 1;
    }
    assert!(n < 10, "{n}");
    assert_eq!(MemFs::new().lock().quota, QUOTA);
}
