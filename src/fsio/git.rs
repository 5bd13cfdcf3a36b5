//! Where a directory's git repository is, read from `.git` as git lays it out (no `git`
//! process): what a client that keys its per-project state by repository needs.

use std::fs;
use std::path::{Path, PathBuf};

/// The root of the main worktree of the git repository `dir` lies in (for a linked worktree,
/// the repository it was added from: `.git` is then a file `gitdir: <common>/worktrees/<name>`
/// whose `commondir` names `<common>`), or `None` when `dir` is in no repository. `dir` is
/// taken as given (resolve it first); only small files are read.
pub fn git_main_root(dir: &Path) -> Option<PathBuf> {
    for d in dir.ancestors() {
        let dot = d.join(".git");
        let Ok(meta) = fs::symlink_metadata(&dot) else {
            continue;
        };
        if meta.is_dir() {
            return Some(d.to_path_buf());
        }
        if !meta.is_file() || meta.len() > 4096 {
            return None;
        }
        let text = fs::read_to_string(&dot).ok()?;
        let gitdir = text.trim().strip_prefix("gitdir:")?.trim();
        let gitdir = d.join(gitdir);
        let common = match fs::read_to_string(gitdir.join("commondir")) {
            Ok(c) if c.len() <= 4096 => gitdir.join(c.trim()),
            // A submodule's `.git` file names its module directory: no linked worktree.
            _ => return Some(d.to_path_buf()),
        };
        let common = super::resolve(&common).unwrap_or(common);
        return match common.file_name() {
            Some(n) if n == ".git" => common.parent().map(Path::to_path_buf),
            _ => Some(d.to_path_buf()),
        };
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_linked_worktree_and_a_subdirectory_name_the_main_root() {
        let t = tempfile::tempdir().unwrap();
        let base = t.path().canonicalize().unwrap();
        let main = base.join("repo");
        fs::create_dir_all(main.join(".git/worktrees/wt")).unwrap();
        fs::create_dir_all(main.join("sub/deeper")).unwrap();
        fs::write(main.join(".git/worktrees/wt/commondir"), "../..\n").unwrap();
        let wt = base.join("wt");
        fs::create_dir_all(wt.join("src")).unwrap();
        fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", main.join(".git/worktrees/wt").display()),
        )
        .unwrap();
        assert_eq!(git_main_root(&main), Some(main.clone()));
        assert_eq!(git_main_root(&main.join("sub/deeper")), Some(main.clone()));
        assert_eq!(git_main_root(&wt.join("src")), Some(main.clone()));
        let lone = base.join("lone");
        fs::create_dir_all(&lone).unwrap();
        assert_eq!(git_main_root(&lone), None);
    }
}
