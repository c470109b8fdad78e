//! Where the SQLite stash lives, and which paths may be used for it.
//!
//! Policy (after the seed's security model):
//! - The database is `DATA_DIR/stash.db`. `DATA_DIR` is `$STC_DATA_DIR` when
//!   set, else `~/.local/share/stc` under the **real** home directory (from
//!   the password database for the current user id, never `$HOME`).
//! - `$STC_DATA_DIR` is an explicit trust decision and may point anywhere,
//!   but it must be absolute, not the file-system root, without `..`; its
//!   nearest existing ancestor is canonicalized. An invalid value is an
//!   error, never a silent fall-back to the default.
//! - A file override (`--stash-db`, `$STC_STASH_DB`) must be absolute,
//!   without `..`, and after canonicalization lie inside the real home or
//!   the data directory.
//! - An existing database file must be a regular file, not a symlink.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use crate::store::StoreError;

/// The environment variable naming the data directory.
pub const DATA_DIR_ENV: &str = "STC_DATA_DIR";
/// The environment variable naming the database file (below `--stash-db`).
pub const STASH_DB_ENV: &str = "STC_STASH_DB";
/// The database file name inside the data directory.
pub const STASH_DB_FILE: &str = "stash.db";

fn bad(what: &str, path: &Path, why: &str) -> StoreError {
    StoreError::Config(format!("{what} {}: {why}", path.display()))
}

/// The current user's home directory from the password database.
pub fn real_home() -> Result<PathBuf, StoreError> {
    let uid = nix::unistd::Uid::current();
    match nix::unistd::User::from_uid(uid) {
        Ok(Some(user)) if user.dir.is_absolute() => {
            user.dir.canonicalize().map_err(|e| bad("home directory", &user.dir, &e.to_string()))
        }
        Ok(_) => Err(StoreError::Config(format!("no home directory for user id {uid}"))),
        Err(e) => Err(StoreError::Config(format!("cannot look up user id {uid}: {e}"))),
    }
}

/// Checks that `path` is absolute and has no `..`, then canonicalizes its
/// nearest existing ancestor and appends the rest.
fn normalize(what: &str, path: &Path) -> Result<PathBuf, StoreError> {
    if !path.is_absolute() {
        return Err(bad(what, path, "must be an absolute path"));
    }
    if path.components().any(|c| c == Component::ParentDir) {
        return Err(bad(what, path, "must not contain '..'"));
    }
    let mut existing = path.to_path_buf();
    let mut rest: Vec<&OsStr> = Vec::new();
    let parts: Vec<Component> = path.components().collect();
    let mut i = parts.len();
    while !existing.exists() {
        i -= 1;
        match parts[i] {
            Component::Normal(p) => rest.push(p),
            _ => return Err(bad(what, path, "has no existing ancestor")),
        }
        existing = parts[..i].iter().collect();
    }
    let mut out = existing.canonicalize().map_err(|e| bad(what, path, &e.to_string()))?;
    for p in rest.into_iter().rev() {
        out.push(p);
    }
    Ok(out)
}

/// The data directory: `$STC_DATA_DIR` (checked) or the default under the real home.
pub fn data_dir(env_value: Option<&OsStr>) -> Result<PathBuf, StoreError> {
    match env_value {
        Some(v) => {
            let p = Path::new(v);
            let dir = normalize(DATA_DIR_ENV, p)?;
            if dir.parent().is_none() {
                return Err(bad(DATA_DIR_ENV, p, "must not be the file-system root"));
            }
            Ok(dir)
        }
        None => Ok(real_home()?.join(".local/share/stc")),
    }
}

/// The database path for the given overrides, checked against the policy
/// above; the parent directory is created (mode 0700) if needed.
///
/// `cli` is `--stash-db`; `env_db` and `env_data_dir` are the values of
/// [`STASH_DB_ENV`] and [`DATA_DIR_ENV`].
pub fn stash_db_path(
    cli: Option<&Path>,
    env_db: Option<&OsStr>,
    env_data_dir: Option<&OsStr>,
) -> Result<PathBuf, StoreError> {
    let dir = data_dir(env_data_dir)?;
    let file = match cli.map(|p| ("--stash-db", p)).or(env_db.map(|v| (STASH_DB_ENV, Path::new(v)))) {
        Some((what, p)) => {
            // Canonicalize the directory only: the file itself must not be
            // resolved, so that a symlink is seen (and refused) below.
            let (Some(name), Some(parent)) = (p.file_name(), p.parent()) else {
                return Err(bad(what, p, "is not a file path"));
            };
            if !p.is_absolute() {
                return Err(bad(what, p, "must be an absolute path"));
            }
            let file = normalize(what, parent)?.join(name);
            let home = real_home().ok();
            let inside = file.starts_with(&dir) || home.as_ref().is_some_and(|h| file.starts_with(h));
            if !inside {
                return Err(bad(what, p, "must lie inside your home directory or the stash data directory"));
            }
            file
        }
        None => dir.join(STASH_DB_FILE),
    };
    match std::fs::symlink_metadata(&file) {
        Ok(m) if m.file_type().is_symlink() => return Err(bad("stash database", &file, "is a symlink")),
        Ok(m) if !m.is_file() => return Err(bad("stash database", &file, "is not a regular file")),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = file.parent() {
                use std::os::unix::fs::DirBuilderExt;
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(parent)
                    .map_err(|e| bad("stash directory", parent, &e.to_string()))?;
            }
        }
        Err(e) => return Err(bad("stash database", &file, &e.to_string())),
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_dir_must_be_absolute_and_plain() {
        assert!(data_dir(Some(OsStr::new("relative/dir"))).is_err());
        assert!(data_dir(Some(OsStr::new("/"))).is_err());
        assert!(data_dir(Some(OsStr::new("/tmp/../etc"))).is_err());
        let tmp = tempfile::tempdir().unwrap();
        let d = tmp.path().join("new/sub");
        assert_eq!(data_dir(Some(d.as_os_str())).unwrap(), tmp.path().canonicalize().unwrap().join("new/sub"));
    }

    #[test]
    fn overrides_are_confined_and_symlinks_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().canonicalize().unwrap();
        let ok = stash_db_path(Some(&dir.join("alt.db")), None, Some(dir.as_os_str())).unwrap();
        assert_eq!(ok, dir.join("alt.db"));
        assert!(stash_db_path(Some(Path::new("/etc/stash.db")), None, Some(dir.as_os_str())).is_err());
        assert!(stash_db_path(Some(Path::new("alt.db")), None, Some(dir.as_os_str())).is_err());
        let escape = dir.join("x/../../etc/stash.db");
        assert!(stash_db_path(Some(&escape), None, Some(dir.as_os_str())).is_err());
        let target = dir.join("target.db");
        std::fs::write(&target, b"").unwrap();
        std::os::unix::fs::symlink(&target, dir.join("link.db")).unwrap();
        let err = stash_db_path(Some(&dir.join("link.db")), None, Some(dir.as_os_str())).unwrap_err();
        assert!(err.to_string().contains("symlink"), "{err}");
        // The environment override obeys the same rule.
        assert!(stash_db_path(None, Some(OsStr::new("/etc/x.db")), Some(dir.as_os_str())).is_err());
        assert_eq!(stash_db_path(None, None, Some(dir.as_os_str())).unwrap(), dir.join(STASH_DB_FILE));
    }
}
