//! Redirections (`<`, `>`, `>>`, `&>`, `&>>`, `N>&M`): where a simple command's stdin,
//! stdout and stderr go, with mksh's messages when a file cannot be opened. Not writing the
//! output once the command ran (that is `run`).

use super::env::{ShellEnv, path_for_fs};
use super::fs::{FsError, MemFs};
use super::parse::RedirKind;

/// Where a descriptor of a simple command goes.
#[derive(Clone)]
pub(super) enum Target {
    Stdout,
    Stderr,
    File(String),
}

/// Why a redirection cannot be set up, in mksh's words.
#[derive(Debug, thiserror::Error)]
pub(super) enum RedirectError {
    #[error("can't create {path}: {reason}")]
    Create { path: String, reason: FsError },
    #[error("can't open {path}: {reason}")]
    Open { path: String, reason: FsError },
    #[error("{0}: illegal file descriptor name")]
    BadDescriptor(String),
}

/// Points `fd` (or stdin) at `path` as `kind` says.
pub(super) fn redirect(
    fd: u32,
    kind: RedirKind,
    path: &str,
    env: &ShellEnv,
    cwd: &str,
    targets: &mut [Target; 2],
    input: &mut Option<Vec<u8>>,
) -> Result<(), RedirectError> {
    let slot = match fd {
        1 => Some(0),
        2 => Some(1),
        _ => None,
    };
    let file = |append: bool| -> Result<Target, RedirectError> {
        match path {
            "/dev/stdout" | "/dev/tty" => return Ok(Target::Stdout),
            "/dev/stderr" => return Ok(Target::Stderr),
            _ => {}
        }
        let abs = MemFs::normalize(path, cwd);
        let r = if append {
            env.fs.append(path_for_fs(path, &abs), b"")
        } else {
            env.fs.write(path_for_fs(path, &abs), b"")
        };
        r.map_err(|reason| RedirectError::Create { path: path.to_string(), reason })?;
        Ok(Target::File(abs))
    };
    match kind {
        RedirKind::In => {
            if fd == 0 {
                let abs = MemFs::normalize(path, cwd);
                let data = env
                    .fs
                    .read(path_for_fs(path, &abs))
                    .map_err(|reason| RedirectError::Open { path: path.to_string(), reason })?;
                *input = Some(data);
            }
        }
        RedirKind::Out | RedirKind::Append => {
            let t = file(kind == RedirKind::Append)?;
            if let Some(s) = slot {
                targets[s] = t;
            }
        }
        RedirKind::Both | RedirKind::BothAppend => {
            let t = file(kind == RedirKind::BothAppend)?;
            targets[0] = t.clone();
            targets[1] = t;
        }
        RedirKind::Dup => {
            let t = match path {
                "1" => targets[0].clone(),
                "2" => targets[1].clone(),
                "-" => Target::File("/dev/null".into()),
                "0" => return Ok(()),
                _ if fd == 1 => {
                    // `>&file` is `&>file` in mksh.
                    let t = file(false)?;
                    targets[1] = t.clone();
                    t
                }
                _ => return Err(RedirectError::BadDescriptor(path.to_string())),
            };
            if let Some(s) = slot {
                targets[s] = t;
            }
        }
    }
    Ok(())
}
