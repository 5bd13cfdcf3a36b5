//! Which files to lint, and which client reads each.
//!
//! Without paths: every default file of every client and scope under `--root` and `--home`
//! (Kiro agent globs expanded). With paths: each file's client is detected by matching the end
//! of its path against the clients' default paths (`.cursor/mcp.json`, `.kiro/agents/*.json`,
//! …), or given with `--client`; a directory is linted as a project root.

use std::path::{Path, PathBuf};

use super::Request;
use crate::dialect::{self, Base, Ctx, Dialect};
use crate::fsio;
use rustc_hash::FxHashMap as FxMap;

/// One file to lint.
#[derive(Clone)]
pub(crate) struct Input {
    /// The path as shown in findings, when it is not `path`'s own text ([`Input::shown`]): a
    /// run holds thousands of inputs, and most are shown as the path they are read from.
    shown: Option<Box<str>>,
    /// The absolute path to read.
    pub path: PathBuf,
    /// The client that reads it.
    pub client: &'static dyn Dialect,
    /// The client's scopes this file serves (Claude Code's `~/.claude.json`: user and local).
    pub scopes: Vec<&'static str>,
}

impl Input {
    /// A file shown as the path it is read from.
    pub(crate) fn new(
        path: PathBuf,
        client: &'static dyn Dialect,
        scopes: Vec<&'static str>,
    ) -> Input {
        // `display` of a path that is UTF-8 is its text: only another path needs its own.
        let shown = match path.to_str() {
            Some(_) => None,
            None => Some(path.display().to_string().into_boxed_str()),
        };
        Input {
            shown,
            path,
            client,
            scopes,
        }
    }

    /// A file shown as `shown` (the path as given, when `path` is that path made absolute).
    pub(crate) fn shown_as(
        shown: String,
        path: PathBuf,
        client: &'static dyn Dialect,
        scopes: Vec<&'static str>,
    ) -> Input {
        let mut input = Input::new(path, client, scopes);
        if input.shown() != shown {
            input.shown = Some(shown.into_boxed_str());
        }
        input
    }

    /// The path as shown in findings.
    pub(crate) fn shown(&self) -> &str {
        match &self.shown {
            Some(s) => s,
            // `new` keeps no text only for a path that is UTF-8.
            None => self.path.to_str().unwrap_or_default(),
        }
    }

    /// [`Input::shown`], owned.
    pub(crate) fn into_shown(self) -> String {
        match self.shown {
            Some(s) => s.into_string(),
            None => self.path.into_os_string().into_string().unwrap_or_default(),
        }
    }
}

pub(crate) fn ctx(req: &Request) -> Ctx {
    Ctx {
        root: req.root.clone(),
        home: req.home.clone(),
        client_homes: req.client_homes.clone(),
        xdg_config_home: req.xdg_config_home.clone(),
        project: crate::fsio::git_main_root(&req.root),
    }
}

/// Inputs with an index by (path, client), so that adding thousands stays linear.
#[derive(Default)]
struct Inputs {
    list: Vec<Input>,
    /// Index of `list` by the hash of (path, client) (not a second copy of every path).
    index: FxMap<u64, usize>,
    /// The inputs whose (path, client) hashes like another's.
    more: FxMap<(PathBuf, &'static str), usize>,
}

/// The hash [`Inputs::index`] keeps.
fn key_hash(path: &Path, client: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one((path, client))
}

fn push(out: &mut Inputs, input: Input) {
    let id = input.client.id();
    let hash = key_hash(&input.path, id);
    let found = match out.index.get(&hash) {
        Some(&i) if out.list[i].path == input.path && out.list[i].client.id() == id => Some(i),
        Some(_) => out.more.get(&(input.path.clone(), id)).copied(),
        None => None,
    };
    if let Some(i) = found {
        let same = &mut out.list[i];
        for s in input.scopes {
            if !same.scopes.contains(&s) {
                same.scopes.push(s);
            }
        }
        return;
    }
    let i = out.list.len();
    match out.index.entry(hash) {
        std::collections::hash_map::Entry::Vacant(v) => {
            v.insert(i);
        }
        std::collections::hash_map::Entry::Occupied(_) => {
            out.more.insert((input.path.clone(), id), i);
        }
    }
    out.list.push(input);
}

/// Every default file of every client (or of `only`) under the bases; `only_root`: project
/// files only.
fn discover(ctx: &Ctx, only: Option<&dyn Dialect>, only_root: bool, out: &mut Inputs) {
    // A project holds a few of the forty-odd clients' files: its top level, listed once, says
    // which could be there (one `readdir` instead of an `open` per client and scope).
    let present = only_root.then(|| fsio::entry_names(&ctx.root)).flatten();
    for d in dialect::ALL {
        if only.is_some_and(|o| o.id() != d.id()) {
            continue;
        }
        for scope in d.scopes() {
            if scope.path.is_empty() || (only_root && scope.base != Base::Root) {
                continue;
            }
            let pattern = d.path(scope, None, ctx);
            let first = pattern
                .strip_prefix(&ctx.root)
                .ok()
                .and_then(|rel| rel.components().next());
            if let (Some(names), Some(first)) = (&present, first)
                && !names.contains(first.as_os_str())
            {
                continue;
            }
            let files = if d.multi_file() {
                fsio::glob(&pattern).unwrap_or_default()
            } else {
                vec![pattern]
            };
            for path in files {
                push(out, Input::new(path, *d, vec![scope.name]));
            }
        }
    }
}

fn wildcard(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        Some((pre, post)) => {
            name.len() >= pre.len() + post.len() && name.starts_with(pre) && name.ends_with(post)
        }
        None => pattern == name,
    }
}

/// How many trailing components of `path` match `pattern` (a relative default path whose file
/// name may hold one `*`), or 0 when it does not match.
fn match_len(path: &Path, pattern: &str) -> usize {
    if pattern.is_empty() {
        return 0;
    }
    let mut comps = path.components().rev();
    let mut n = 0;
    for p in pattern.rsplit('/').filter(|s| !s.is_empty()) {
        match comps.next().and_then(|c| c.as_os_str().to_str()) {
            Some(c) if wildcard(p, c) => n += 1,
            _ => return 0,
        }
    }
    n
}

/// How many last steps of a path [`best_match`] takes apart once.
const STEPS: usize = 8;

/// A step of a default path, its `*` (if any) found once: what [`wildcard`] matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Exact(&'static str),
    /// The text before and after the `*`.
    Star(&'static str, &'static str),
}

impl Step {
    fn of(pattern: &'static str) -> Step {
        match pattern.split_once('*') {
            Some((pre, post)) => Step::Star(pre, post),
            None => Step::Exact(pattern),
        }
    }

    /// [`wildcard`] of the step's pattern.
    fn matches(self, name: &str) -> bool {
        match self {
            Step::Exact(p) => p == name,
            Step::Star(pre, post) => {
                name.len() >= pre.len() + post.len()
                    && name.starts_with(pre)
                    && name.ends_with(post)
            }
        }
    }
}

/// The steps of a default path, last first, split once; `None` when it has more than
/// [`STEPS`] (matched by [`match_len`] on the whole path instead).
fn split_steps(pattern: &'static str) -> Option<Vec<Step>> {
    let steps: Vec<Step> = pattern
        .rsplit('/')
        .filter(|s| !s.is_empty())
        .map(Step::of)
        .collect();
    (steps.len() <= STEPS).then_some(steps)
}

/// [`match_len`] of a pattern split by [`split_steps`] against a path's last steps (last
/// first).
fn steps_match(comps: &[Option<&str>; STEPS], steps: &[Step]) -> usize {
    for (k, p) in steps.iter().enumerate() {
        match comps.get(k).copied().flatten() {
            Some(c) if p.matches(c) => {}
            _ => return 0,
        }
    }
    steps.len()
}

/// The client (and its scopes) whose default paths the end of `path` matches, longest match
/// first; `None` when no client's file looks like this.
pub fn detect_client(path: &Path) -> Option<(&'static dyn Dialect, Vec<&'static str>)> {
    Detector::default().detect(path)
}

/// A (dialect, scope) pair that may match, with its default path and macOS path split.
#[derive(Clone)]
struct Candidate {
    dialect: &'static dyn Dialect,
    scope: &'static dialect::Scope,
    /// The patterns: `scope.path`, `scope.macos`, or one of the client's
    /// [`Dialect::block_files`] of this scope (the others empty).
    pats: [&'static str; 2],
    /// `pats` split by [`split_steps`].
    steps: [Option<Vec<Step>>; 2],
}

impl Candidate {
    /// Whether it can match a path whose last step is `name` and the one before `parent`
    /// (`None`: there is none, or it is not UTF-8), and how many last steps of the path
    /// [`best_match`] then compares.
    fn may_match(&self, name: &str, parent: Option<&str>) -> Option<usize> {
        let mut depth = None;
        for steps in &self.steps {
            let d = match steps {
                // Matched on the whole path ([`match_len`]).
                None => 0,
                Some(s) => {
                    let first = s.first().is_some_and(|f| f.matches(name));
                    let second = s
                        .get(1)
                        .is_none_or(|f| parent.is_some_and(|p| f.matches(p)));
                    if !(first && second) {
                        continue;
                    }
                    s.len()
                }
            };
            depth = Some(depth.unwrap_or(0).max(d));
        }
        depth
    }
}

/// The candidates for one file name, found once: all of them, and by the step before the
/// name those that can match (one or two of the two dozen that end in `mcp.json`).
struct Named {
    all: Vec<Candidate>,
    by_parent: FxMap<String, Pruned>,
    /// For a path with no step before the name (or one that is not UTF-8).
    alone: Option<Pruned>,
}

/// The candidates that can match a path ending in a given parent and name, and how many
/// last steps of the path [`best_match`] compares for them.
#[derive(Clone)]
struct Pruned {
    list: std::sync::Arc<[Candidate]>,
    depth: usize,
}

/// [`detect_client`] for many paths: the scopes whose default paths can match a file's last
/// two steps are worked out (and their paths split into steps) once for those steps
/// (thousands of `.cursor/mcp.json` share one list).
#[derive(Default)]
struct Detector {
    /// By file name: the (dialect, scope) pairs, in [`dialect::ALL`] order, one of whose
    /// default paths ends in a pattern that matches the name, pruned by the step before it.
    by_name: FxMap<String, Named>,
}

impl Detector {
    fn detect(&mut self, path: &Path) -> Option<(&'static dyn Dialect, Vec<&'static str>)> {
        // The steps `match_len` compares with a pattern's last two; when the last is not
        // UTF-8 no pattern matches.
        let (name, parent) = last_two(path)?;
        let pruned = self.candidates(name, parent);
        best_match(path, &pruned.list, pruned.depth)
    }

    /// [`Detector::detect`] on a detector shared by threads (locked only to find the list).
    fn detect_shared(
        this: &std::sync::Mutex<Detector>,
        path: &Path,
    ) -> Option<(&'static dyn Dialect, Vec<&'static str>)> {
        let (name, parent) = last_two(path)?;
        let pruned = match this.lock() {
            Ok(mut d) => d.candidates(name, parent),
            Err(e) => e.into_inner().candidates(name, parent),
        };
        best_match(path, &pruned.list, pruned.depth)
    }

    fn candidates(&mut self, name: &str, parent: Option<&str>) -> Pruned {
        let named = match self.by_name.get_mut(name) {
            Some(n) => n,
            None => self
                .by_name
                .entry(name.to_string())
                .or_insert_with(|| Named {
                    all: split(&candidates(name)),
                    by_parent: FxMap::default(),
                    alone: None,
                }),
        };
        let known = match parent {
            Some(p) => named.by_parent.get(p),
            None => named.alone.as_ref(),
        };
        if let Some(p) = known {
            return p.clone();
        }
        let mut depth = 0;
        let list: std::sync::Arc<[Candidate]> = named
            .all
            .iter()
            .filter(|c| {
                c.may_match(name, parent)
                    .inspect(|&d| depth = depth.max(d))
                    .is_some()
            })
            .cloned()
            .collect();
        let pruned = Pruned {
            list,
            depth: depth.min(STEPS),
        };
        match parent {
            Some(p) => {
                named.by_parent.insert(p.to_string(), pruned.clone());
            }
            None => named.alone = Some(pruned.clone()),
        }
        pruned
    }
}

/// A path's last step and the one before it (`None` when that is not UTF-8 or there is none),
/// as [`best_match`] takes them apart; `None` when the last step is not UTF-8.
fn last_two(path: &Path) -> Option<(&str, Option<&str>)> {
    let mut back = path.components().rev();
    let name = back.next()?.as_os_str().to_str()?;
    Some((name, back.next().and_then(|c| c.as_os_str().to_str())))
}

/// The (dialect, scope) pairs one of whose default paths' last step matches a file named
/// `name` (the others cannot match any path ending in it).
/// (A scope's block files, [`Dialect::block_files`], are candidates of their own.)
fn candidates(name: &str) -> Vec<(usize, usize, [&'static str; 2])> {
    let last = |p: &str| {
        p.rsplit('/')
            .find(|s| !s.is_empty())
            .map(|l| wildcard(l, name))
    };
    let mut out = Vec::new();
    for (i, d) in dialect::ALL.iter().enumerate() {
        for (j, scope) in d.scopes().iter().enumerate() {
            if last(scope.path) == Some(true) || last(scope.macos) == Some(true) {
                out.push((i, j, [scope.path, scope.macos]));
            }
            for (s, block) in d.block_files() {
                if *s == scope.name && last(block) == Some(true) {
                    out.push((i, j, [block, ""]));
                }
            }
        }
    }
    out
}

/// The pairs as [`Candidate`]s.
fn split(pairs: &[(usize, usize, [&'static str; 2])]) -> Vec<Candidate> {
    pairs
        .iter()
        .filter_map(|&(i, j, pats)| {
            let dialect = *dialect::ALL.get(i)?;
            let scope = dialect.scopes().get(j)?;
            Some(Candidate {
                dialect,
                scope,
                pats,
                steps: [split_steps(pats[0]), split_steps(pats[1])],
            })
        })
        .collect()
}

/// The client and scopes of the candidates whose default paths match the most last steps of
/// `path`; `depth`: how many last steps the candidates' split paths compare (at most
/// [`STEPS`]).
fn best_match(
    path: &Path,
    candidates: &[Candidate],
    depth: usize,
) -> Option<(&'static dyn Dialect, Vec<&'static str>)> {
    // The path's last steps, last first, taken apart once for every pattern.
    let mut comps: [Option<&str>; STEPS] = [None; STEPS];
    for (slot, c) in comps.iter_mut().take(depth).zip(path.components().rev()) {
        *slot = c.as_os_str().to_str();
    }
    let mut best: Option<(usize, &'static dyn Dialect, Vec<&'static str>)> = None;
    for c in candidates {
        let (d, scope) = (c.dialect, c.scope);
        let n = c
            .pats
            .iter()
            .zip(&c.steps)
            .map(|(p, steps)| match steps {
                Some(steps) => steps_match(&comps, steps),
                None => match_len(path, p),
            })
            .max()
            .unwrap_or(0);
        if n == 0 {
            continue;
        }
        match &mut best {
            Some((m, bd, scopes)) if *m == n && bd.id() == d.id() => {
                if !scopes.contains(&scope.name) {
                    scopes.push(scope.name);
                }
            }
            Some((m, _, _)) if *m >= n => {}
            _ => {
                // Two scopes at most in practice (a project and a user file share a path).
                let mut scopes = Vec::with_capacity(2);
                scopes.push(scope.name);
                best = Some((n, d, scopes));
            }
        }
    }
    best.map(|(_, d, s)| (d, s))
}

/// The files a request names: `paths` (the request's, taken by the caller so that each path
/// given becomes its input's without a copy), or every known client file when there are none.
pub(crate) fn inputs(req: &Request, paths: Vec<PathBuf>) -> Result<Vec<Input>, String> {
    let ctx = ctx(req);
    let mut out = Inputs::default();
    if paths.is_empty() {
        discover(&ctx, req.client, false, &mut out);
        return Ok(out.list);
    }
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let detector = std::sync::Mutex::new(Detector::default());
    out.list.reserve(paths.len());
    out.index.reserve(paths.len());
    let mut failed = None;
    // Each path is made absolute and its client detected on the machine's cores; the paths
    // are then taken in order on this thread, as one loop over them would.
    super::parallel::parallel_each(
        paths,
        |_, given: PathBuf| {
            // `cwd.join(given)`: the path given itself when it is absolute (`join` would copy
            // it), else in one allocation. The path as given is kept when it differs.
            let (relative, abs) = if given.is_absolute() {
                (None, given)
            } else {
                let mut abs =
                    PathBuf::with_capacity(cwd.as_os_str().len() + given.as_os_str().len() + 1);
                abs.push(&cwd);
                abs.push(&given);
                (Some(given), abs)
            };
            let detected = Detector::detect_shared(&detector, &abs);
            (relative, abs, detected)
        },
        |(relative, abs, detected)| {
            if failed.is_some() {
                return;
            }
            // A path that looks like a client's file is taken for one (no stat for each).
            if (req.client.is_some() || detected.is_none()) && abs.is_dir() {
                let sub = Ctx {
                    project: crate::fsio::git_main_root(&abs),
                    root: abs,
                    ..ctx.clone()
                };
                discover(&sub, req.client, true, &mut out);
                return;
            }
            let (client, scopes) = match (req.client, detected) {
                (Some(c), Some((d, s))) if d.id() == c.id() => (c, s),
                (Some(c), _) => (c, vec![c.default_scope().name]),
                (None, Some(found)) => found,
                (None, None) => {
                    failed = Some(format!(
                        "cannot tell which client reads `{}` from its path; pass `--client ID` (one of {})",
                        relative.as_deref().unwrap_or(&abs).display(),
                        dialect::ids().join(", ")
                    ));
                    return;
                }
            };
            let input = match relative {
                None => Input::new(abs, client, scopes),
                // `display` of a path that is UTF-8 is its text.
                Some(given) => {
                    let shown = given
                        .into_os_string()
                        .into_string()
                        .unwrap_or_else(|os| PathBuf::from(os).display().to_string());
                    Input::shown_as(shown, abs, client, scopes)
                }
            };
            push(&mut out, input);
        },
    );
    match failed {
        Some(e) => Err(e),
        None => Ok(out.list),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(p: &str) -> Option<(&'static str, Vec<&'static str>)> {
        detect_client(Path::new(p)).map(|(d, s)| (d.id(), s))
    }

    /// The loop over every dialect and scope that [`Detector`] prunes by file name.
    fn detect_every_scope(path: &Path) -> Option<(&'static str, Vec<&'static str>)> {
        let mut all: Vec<(usize, usize, [&'static str; 2])> = Vec::new();
        for (i, d) in dialect::ALL.iter().enumerate() {
            for (j, scope) in d.scopes().iter().enumerate() {
                all.push((i, j, [scope.path, scope.macos]));
                for (s, block) in d.block_files() {
                    if *s == scope.name {
                        all.push((i, j, [block, ""]));
                    }
                }
            }
        }
        best_match(path, &split(&all), STEPS).map(|(d, s)| (d.id(), s))
    }

    #[test]
    fn inputs_are_merged_by_path_and_client_when_hashes_collide() {
        let (d, e) = (dialect::ALL[0], dialect::ALL[1]);
        let input = |p: &str, client: &'static dyn Dialect, scope: &'static str| {
            Input::new(PathBuf::from(p), client, vec![scope])
        };
        let mut out = Inputs::default();
        push(&mut out, input("/a", d, "user"));
        // A key whose hash the index already holds for another (a collision, forced).
        out.index.insert(key_hash(Path::new("/b"), d.id()), 0);
        push(&mut out, input("/b", d, "user"));
        push(&mut out, input("/b", d, "project"));
        push(&mut out, input("/a", d, "project"));
        push(&mut out, input("/a", e, "user"));
        push(&mut out, input("/a", d, "user"));
        let got: Vec<(&str, &str, Vec<&str>)> = out
            .list
            .iter()
            .map(|i| (i.shown(), i.client.id(), i.scopes.clone()))
            .collect();
        assert_eq!(
            got,
            [
                ("/a", d.id(), vec!["user", "project"]),
                ("/b", d.id(), vec!["user", "project"]),
                ("/a", e.id(), vec!["user"]),
            ]
        );
    }

    #[test]
    fn a_step_split_once_matches_like_its_pattern() {
        let patterns = ["*", "*.json", "mcp.json", "a*b", "ab*", "", "x*y*z", "*a*"];
        let names = [
            "", "a", "ab", "aab", "abb", "b", "mcp.json", ".json", "xyz", "xy*z", "a*b",
        ];
        for p in patterns {
            for n in names {
                assert_eq!(Step::of(p).matches(n), wildcard(p, n), "{p} {n}");
            }
        }
    }

    /// Issue 45, class 8: a block file of a scope made of several files is its client's, from
    /// its path alone, whatever it is called (Continue's `.continue/mcpServers/*.yaml`).
    #[test]
    fn block_files_are_their_clients() {
        for d in dialect::ALL {
            for (scope, pattern) in d.block_files() {
                for name in ["playwright-mcp", "a.b", "mcpconf"] {
                    let p = pattern.replace('*', name);
                    for path in [format!("/r/{p}"), format!("rel/x/{p}")] {
                        let (found, scopes) = detect_client(Path::new(&path))
                            .unwrap_or_else(|| panic!("{path}: no client"));
                        assert_eq!((found.id(), scopes), (d.id(), vec![*scope]), "{path}");
                    }
                }
            }
        }
        let (d, _) = detect_client(Path::new("/r/.continue/mcpServers/github.yaml")).unwrap();
        assert_eq!(d.id(), "continue");
        assert!(detect_client(Path::new("/r/.continue/other/github.yaml")).is_none());
    }

    #[test]
    fn pruning_by_file_name_detects_the_same_clients() {
        let mut paths: Vec<String> = Vec::new();
        for d in dialect::ALL {
            for scope in d.scopes() {
                for p in [scope.path, scope.macos] {
                    if p.is_empty() {
                        continue;
                    }
                    let p = p.replace('*', "dev");
                    paths.push(format!("/h/{p}"));
                    paths.push(format!("/r/x/{p}"));
                    paths.push(format!("rel/{p}"));
                    paths.push(p.clone());
                    if let Some((_, last)) = p.rsplit_once('/') {
                        paths.push(format!("/other/{last}"));
                        // The file under every other pattern's steps, and alone.
                        paths.push(last.to_string());
                        for q in ["Library/Application Support/Code/User", ".kiro/settings"] {
                            paths.push(format!("/h/{q}/{last}"));
                        }
                    }
                }
            }
        }
        paths.extend(
            [
                "",
                "/",
                "..",
                "/a/..",
                "mcp.json",
                ".json",
                "/h/.kiro/agents/.json",
                "/x/*.json",
            ]
            .map(String::from),
        );
        let mut detector = Detector::default();
        // Twice, the second time in the other order: answered from what the first cached.
        for p in paths.iter().chain(paths.iter().rev()) {
            let path = Path::new(p);
            let fast = detector.detect(path).map(|(d, s)| (d.id(), s));
            assert_eq!(fast, detect_every_scope(path), "{p}");
        }
    }

    /// Many given paths (detected on several threads) come out in the order given, the same
    /// file given twice merged, and the first path of no known client is the one named.
    #[test]
    fn given_paths_keep_their_order_and_the_first_unknown_is_named() {
        let mut paths: Vec<PathBuf> = (0..200)
            .map(|i| PathBuf::from(format!("/nowhere/p{i}/.cursor/mcp.json")))
            .collect();
        paths.push(PathBuf::from("/nowhere/p7/.cursor/mcp.json"));
        paths.push(PathBuf::from("/nowhere/h/.claude.json"));
        let req = super::super::Request::new("/nowhere", "/nowhere/h");
        let got = inputs(&req, paths.clone()).unwrap();
        let expect: Vec<(PathBuf, &str, Vec<&str>)> = paths
            .iter()
            .take(200)
            .chain(paths.last())
            .map(|p| {
                let (d, s) = detect_client(p).unwrap();
                (p.clone(), d.id(), s)
            })
            .collect();
        let got: Vec<(PathBuf, &str, Vec<&str>)> = got
            .into_iter()
            .map(|i| (i.path, i.client.id(), i.scopes))
            .collect();
        assert_eq!(got, expect);
        let mut bad = paths;
        bad.insert(150, PathBuf::from("/nowhere/first.txt"));
        bad.insert(170, PathBuf::from("/nowhere/second.txt"));
        let e = inputs(&req, bad).err().unwrap();
        assert!(e.contains("`/nowhere/first.txt`"), "{e}");
        let e = inputs(&req, vec![PathBuf::from("nowhere/first.txt")])
            .err()
            .unwrap();
        assert!(e.contains("`nowhere/first.txt`"), "{e}");
    }

    /// A path given as absolute is shown as it is and read as it is; a relative one is shown
    /// as given and read from the current directory.
    #[test]
    fn given_paths_are_shown_as_given_and_read_absolute() {
        let req = super::super::Request::new("/nowhere", "/nowhere/h");
        let cwd = std::env::current_dir().unwrap();
        let given = [
            PathBuf::from("/nowhere/p/.cursor/mcp.json"),
            PathBuf::from("rel/.cursor/mcp.json"),
            PathBuf::from("./dot/.vscode/mcp.json"),
        ];
        let got: Vec<(String, PathBuf)> = inputs(&req, given.to_vec())
            .unwrap()
            .into_iter()
            .map(|i| (i.shown().to_string(), i.path))
            .collect();
        assert_eq!(
            got,
            [
                ("/nowhere/p/.cursor/mcp.json".to_string(), given[0].clone()),
                ("rel/.cursor/mcp.json".to_string(), cwd.join(&given[1])),
                ("./dot/.vscode/mcp.json".to_string(), cwd.join(&given[2])),
            ]
        );
        // The owned form says the same.
        let i = Input::shown_as("x.json".into(), "/a/x.json".into(), dialect::ALL[0], vec![]);
        assert_eq!(i.shown(), "x.json");
        assert_eq!(i.into_shown(), "x.json");
        let i = Input::new("/a/x.json".into(), dialect::ALL[0], vec![]);
        assert!(
            i.shown.is_none(),
            "a path shown as itself keeps no second copy"
        );
        assert_eq!(i.shown(), "/a/x.json");
        assert_eq!(i.into_shown(), "/a/x.json");
    }

    #[test]
    fn detects_clients_from_paths() {
        assert_eq!(
            id("/r/.cursor/mcp.json"),
            Some(("cursor", vec!["project", "user"]))
        );
        assert_eq!(
            id("/h/.kiro/settings/mcp.json"),
            Some(("kiro", vec!["project", "user"]))
        );
        assert_eq!(
            id("/h/.kiro/agents/dev.json"),
            Some(("kiro-agent", vec!["project", "user"]))
        );
        assert_eq!(id("/h/.kiro/agents/dev.md"), None);
        assert_eq!(
            id("/h/.claude.json"),
            Some(("claude-code", vec!["user", "local"]))
        );
        assert_eq!(id("/r/.mcp.json"), Some(("claude-code", vec!["project"])));
        assert_eq!(id("/r/.codex/config.toml").map(|x| x.0), Some("codex"));
        assert_eq!(id("/r/.vscode/mcp.json").map(|x| x.0), Some("vscode"));
        assert_eq!(id("/r/.amazonq/mcp.json").map(|x| x.0), Some("amazonq"));
        assert_eq!(id("/r/opencode.json").map(|x| x.0), Some("opencode"));
        assert_eq!(
            id("/h/.config/zed/settings.json"),
            Some(("zed", vec!["user"]))
        );
        assert_eq!(id("/r/mcp.json"), None);
        assert_eq!(id("/r/settings.json"), None);
    }
}
