//! TEMPORARY STUB — replaced by the real module.
#![allow(missing_docs, dead_code)]
use std::path::{Path, PathBuf};
use std::time::Duration;
#[derive(Debug)]
pub struct FsError {
    pub code: &'static str,
    pub path: PathBuf,
    pub message: String,
    pub source: Option<std::io::Error>,
}
impl std::fmt::Display for FsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
impl std::error::Error for FsError {}
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
}
#[derive(Clone, Copy, Debug)]
pub struct FileMeta {
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
}
pub struct ReadFile {
    pub bytes: Vec<u8>,
    pub stamp: Stamp,
    pub meta: FileMeta,
}
fn e(code: &'static str, p: &Path, err: std::io::Error) -> FsError {
    FsError {
        code,
        path: p.into(),
        message: format!("`{}`: {err}", p.display()),
        source: Some(err),
    }
}
pub fn resolve(path: &Path) -> Result<PathBuf, FsError> {
    Ok(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
}
pub fn read(path: &Path, _max: u64) -> Result<Option<ReadFile>, FsError> {
    match std::fs::read(path) {
        Ok(b) => Ok(Some(ReadFile {
            stamp: Stamp {
                size: b.len() as u64,
            },
            bytes: b,
            meta: FileMeta {
                mode: 0o600,
                uid: 0,
                gid: 0,
            },
        })),
        Err(x) if x.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(x) => Err(e("unreadable", path, x)),
    }
}
pub fn stamp(_p: &Path) -> Result<Option<Stamp>, FsError> {
    Ok(None)
}
pub struct DirLocks;
pub struct FileLock;
pub fn lock_dirs(_d: &[PathBuf], _t: Duration) -> Result<DirLocks, FsError> {
    Ok(DirLocks)
}
pub fn lock_file(p: &Path, _t: Duration) -> Result<FileLock, FsError> {
    create_parent_dirs(p)?;
    Ok(FileLock)
}
pub fn create_parent_dirs(p: &Path) -> Result<Vec<PathBuf>, FsError> {
    if let Some(d) = p.parent() {
        std::fs::create_dir_all(d).map_err(|x| e("io-error", p, x))?;
    }
    Ok(vec![])
}
pub enum Expect {
    Missing,
    Stamp(Stamp),
}
pub fn replace(p: &Path, bytes: &[u8], _m: Option<FileMeta>, _x: Expect) -> Result<(), FsError> {
    std::fs::write(p, bytes).map_err(|x| e("io-error", p, x))
}
pub fn clean_stale_temps(_p: &Path) -> Result<usize, FsError> {
    Ok(0)
}
pub fn remove_file(p: &Path) -> Result<(), FsError> {
    std::fs::remove_file(p).map_err(|x| e("io-error", p, x))
}
