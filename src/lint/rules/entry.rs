//! Rules on one server entry (`unknown-field`, `untyped-url`, `literal-secret`,
//! `placeholder-syntax`, `stale-legacy`, `not-an-object`) and on a Kiro agent file's own fields.

use serde_json::{Map, Value};

use super::placeholders::{Expands, Place, RefKind, expands, references};
use crate::dialect::Dialect;
use crate::document::kind_of;
use crate::lint::run::{Run, dotted};
use crate::lint::secrets;
use crate::lint::source::Source;
use crate::text::closest;

/// Top-level fields of a Kiro agent file (Kiro rejects unknown ones).
pub(in crate::lint) const AGENT_FIELDS: &[&str] = &[
    "$schema",
    "name",
    "description",
    "prompt",
    "mcpServers",
    "tools",
    "toolAliases",
    "allowedTools",
    "excludedTools",
    "permissions",
    "toolsSettings",
    "resources",
    "hooks",
    "includeMcpJson",
    "includePowers",
    "useLegacyMcpJson",
    "model",
    "keyboardShortcut",
    "welcomeMessage",
];

pub(in crate::lint) const SHELLS: &[&str] =
    &["sh", "bash", "zsh", "dash", "ksh", "fish", "cmd", "pwsh"];

impl Run<'_> {
    pub(in crate::lint) fn agent_fields(&mut self, file: usize) {
        let Some(Value::Object(root)) = self.src(file).map(Source::root) else {
            return;
        };
        let unknown: Vec<String> = root
            .keys()
            .filter(|k| !AGENT_FIELDS.contains(&k.as_str()))
            .cloned()
            .collect();
        for k in unknown {
            let at = self
                .src(file)
                .map_or((1, 1), |s| s.locate(std::slice::from_ref(&k)));
            let hint = suggest(&k, AGENT_FIELDS);
            self.push(
                "unknown-field",
                file,
                at,
                format!(
                    "unknown field `{k}` in this Kiro agent file: Kiro rejects or ignores it, so what it was meant to set does not apply; {hint}"
                ),
            );
        }
    }

    /// The rules on one entry; `scratch` is what the entries of one file reuse.
    pub(in crate::lint) fn check_entry<'s>(
        &mut self,
        file: usize,
        src: &'s Source,
        path: &[String],
        name: &str,
        scratch: &mut Scratch<'s>,
    ) {
        let d = self.input(file).client;
        let Some(value) = src.get(path) else { return };
        let Value::Object(entry) = value else {
            let at = src.locate(path);
            let kind = kind_of(value);
            self.push(
                "not-an-object",
                file,
                at,
                format!(
                    "server `{name}` is {kind}, but {} expects an object such as `{{\"command\": …}}` or `{{\"url\": …}}`; make it an object or remove it",
                    d.id()
                ),
            );
            return;
        };
        let at = EntryAt {
            file,
            src,
            path,
            name,
        };
        self.assess_strings(value, scratch);
        self.unknown_fields(&at, d, entry);
        self.untyped_url(&at, d, entry);
        self.literal_secrets(&at, d, &scratch.strings);
        self.placeholder_syntax(&at, d, entry, scratch);
        // unpinned-package, windows-npx
        self.check_launch(file, src, path, name, entry);
        self.stale_legacy(&at, d, value);
        self.check_policy(file, src, path, name, value);
    }

    /// Every string of the entry, assessed once: for `literal-secret` and for the code-frame
    /// redactor.
    fn assess_strings<'s>(&mut self, whole: &'s Value, scratch: &mut Scratch<'s>) {
        let strings = &mut scratch.strings;
        strings.found.clear();
        strings.steps.clear();
        scratch.path.clear();
        walk_strings(whole, &mut scratch.path, strings);
        let strings = &scratch.strings;
        let mut next = strings.found.iter();
        self.wide
            .scan_assessed(whole, &mut |name, s| match next.next() {
                // The same walk in the same order; anything else is assessed here.
                Some(f) if f.key == name && f.value == s => f.hide,
                _ => crate::redact::must_hide(name, s),
            });
    }

    /// `unknown-field`: a field the client does not read.
    fn unknown_fields(&mut self, at: &EntryAt, d: &dyn Dialect, entry: &Map<String, Value>) {
        let known = d.known_fields();
        if known.is_empty() {
            return;
        }
        // The keys the client writes itself are its own, never unknown.
        let client = d.client_managed().keys;
        for k in entry.keys() {
            if known.contains(&k.as_str()) || client.contains(&k.as_str()) {
                continue;
            }
            let mut p = at.path.to_vec();
            p.push(k.clone());
            let hint = suggest(k, known);
            self.push(
                "unknown-field",
                at.file,
                at.src.locate(&p),
                format!(
                    "unknown field `{k}` in server `{}`: {} does not read it, so it has no effect; {hint}",
                    at.name,
                    d.id()
                ),
            );
        }
    }

    /// `untyped-url`: a remote entry without its transport marker in a client that starts no
    /// server from one ([`Dialect::untyped_url_unread`]: Roo Code rejects it, Amazon Q takes it
    /// for a local command), so the entry does nothing there; the source that says so is in
    /// the message.
    fn untyped_url(&mut self, at: &EntryAt, d: &dyn Dialect, entry: &Map<String, Value>) {
        let Some(source) = crate::dialect::starts_nothing_from(d, entry) else {
            return;
        };
        let mut p = at.path.to_vec();
        p.push("url".into());
        let id = d.id();
        self.push(
            "untyped-url",
            at.file,
            at.src.locate(&p),
            format!(
                "server `{}` has a `url` but no `type`: {id} starts no server from such an entry (it rejects it or takes it for a local command), so it does nothing; add the `type` {id} wants for the server's transport (see `mcpconf clients {id}`; source: {source})",
                at.name
            ),
        );
    }

    /// `literal-secret`. What a diff masks, lint reports: a value hidden only by its
    /// credential-like name (too short or too plain to classify on its own) is a finding too.
    fn literal_secrets(&mut self, at: &EntryAt, d: &dyn Dialect, strings: &Strings) {
        for f in &strings.found {
            let Some(what) = f.what.or(f.hide.then_some(UNDER_CREDENTIAL_NAME)) else {
                continue;
            };
            self.secrets.add(f.value);
            self.wide.add(f.value);
            self.files[at.file].secret = true;
            let (rel, place) = at.string(strings, f);
            let field = dotted(&rel);
            let fix = secret_fix(d, &rel);
            self.push(
                "literal-secret",
                at.file,
                place,
                format!(
                    "`{field}` of server `{}` holds {what} written literally (the value is not shown); {fix}",
                    at.name
                ),
            );
        }
    }

    /// `placeholder-syntax` (a reference the client does not expand there) and
    /// `reference-drops-file`.
    fn placeholder_syntax(
        &mut self,
        at: &EntryAt,
        d: &dyn Dialect,
        entry: &Map<String, Value>,
        scratch: &mut Scratch,
    ) {
        let shell = crate::lint::source::member(entry, "command")
            .and_then(Value::as_str)
            .map(|c| c.rsplit('/').next().unwrap_or(c))
            .is_some_and(|c| SHELLS.contains(&c));
        let strings = &scratch.strings;
        // What the client expands: worked out at the first reference of the file (most
        // entries have none).
        let ex = &mut scratch.expands;
        for f in &strings.found {
            let Some(&top) = strings.rel(f).first() else {
                continue;
            };
            let place = match top {
                "env" | "environment" => Place::Env,
                "headers" | "http_headers" => Place::Header,
                "command" | "args" | "url" | "serverUrl" | "httpUrl" | "cwd" => Place::Other,
                _ => continue,
            };
            for (kind, tok, var) in references(f.value) {
                if kind == RefKind::Bare && (shell || place == Place::Other && top != "url") {
                    // `$VAR` in a shell's arguments is the shell's business, and elsewhere in
                    // a command line too often not meant as a reference.
                    continue;
                }
                let ex = ex.get_or_insert_with(|| expands(d));
                let Some(why) = ex.problem(d, kind, place) else {
                    if !scratch.dropped && self.reference_drops_file(at, d, strings, f, tok) {
                        scratch.dropped = true;
                    }
                    continue;
                };
                let (rel, found_at) = at.string(strings, f);
                let field = dotted(&rel);
                let fix = ex.fix(d, var, place);
                self.push(
                    "placeholder-syntax",
                    at.file,
                    found_at,
                    format!("`{tok}` in `{field}` of server `{}`: {why}; {fix}", at.name),
                );
            }
        }
    }

    /// `reference-drops-file`: an expanded reference (`tok`, in string `f`) in a file the
    /// client does not load at all while it holds one. Whether it was reported.
    fn reference_drops_file(
        &mut self,
        at: &EntryAt,
        d: &dyn Dialect,
        strings: &Strings,
        f: &Found,
        tok: &str,
    ) -> bool {
        let (unloaded, source) = d.references_unloaded_in();
        let scopes = &self.input(at.file).scopes;
        if scopes.is_empty() || !scopes.iter().all(|sc| unloaded.contains(sc)) {
            return false;
        }
        let scopes = scopes.join("/");
        let (rel, found_at) = at.string(strings, f);
        self.push(
            "reference-drops-file",
            at.file,
            found_at,
            format!(
                "`{tok}` in `{}` of server `{}`: {} does not load this {scopes} file at all while it holds a reference ({source}), so none of its servers start; move the servers with references to the user file, or write them without references",
                dotted(&rel),
                at.name,
                d.id(),
            ),
        );
        true
    }

    /// `stale-legacy`: the entry is exactly an owner's legacy shape, beside the manifest's
    /// current entries (unless it is the manifest's current entry too).
    fn stale_legacy(&mut self, at: &EntryAt, d: &dyn Dialect, whole: &Value) {
        let legacy: Vec<String> = self
            .req
            .legacy
            .iter()
            .filter(|(_, l)| {
                l.name == at.name
                    && crate::plan::semantic_eq_for(
                        &l.entry,
                        whole,
                        crate::dialect::client_facts(d.id()),
                    )
            })
            .map(|(owner, _)| owner.clone())
            .collect();
        // The manifest's own current entry for this client, ledger or not.
        let current = self.req.current.iter().any(|(c, n, v)| {
            c == d.id()
                && n == at.name
                && crate::plan::semantic_eq_for(v, whole, crate::dialect::client_facts(d.id()))
        });
        let legacy = if current { Vec::new() } else { legacy };
        for owner in legacy {
            self.push(
                "stale-legacy",
                at.file,
                at.src.locate(at.path),
                format!(
                    "server `{}` is exactly the old shape owner `{owner}` wrote before it used mcpconf (the manifest's `[[legacy]]`), still here beside its current entries, so the same tools may be exposed twice; run `mcpconf apply` to remove it",
                    at.name
                ),
            );
        }
    }

    /// `policy-denied`, `policy-not-allowed`: the entry against the manifest's `[policy]`.
    fn check_policy(
        &mut self,
        file: usize,
        src: &Source,
        path: &[String],
        name: &str,
        entry: &Value,
    ) {
        let Some(policy) = &self.req.policy else {
            return;
        };
        let (rule, message) = match crate::policy::violation(policy, name, entry) {
            None => return,
            Some(crate::policy::Violation::Denied(d)) => (
                "policy-denied",
                format!(
                    "server `{name}` is denied by the manifest's policy (deny rule `{}`); remove it from this file, or change the policy",
                    d.describe()
                ),
            ),
            Some(crate::policy::Violation::NotAllowed) => (
                "policy-not-allowed",
                format!(
                    "server `{name}` is none of the servers the manifest's exclusive policy allows (by command and arguments, or URL); remove it, or add its server to `[policy] allow`"
                ),
            ),
        };
        let at = src.locate(path);
        self.push(rule, file, at, message);
    }
}

pub(in crate::lint) fn suggest(key: &str, known: &[&str]) -> String {
    if let Some(k) = known.iter().find(|k| k.eq_ignore_ascii_case(key)) {
        return format!("did you mean `{k}`?");
    }
    match closest(key, known.iter().copied()) {
        Some(c) => format!("did you mean `{c}`?"),
        None => "remove it, or see `mcpconf clients --format json` for the known fields".into(),
    }
}

/// One entry being checked: its file, its source, its path there and its name.
struct EntryAt<'a> {
    file: usize,
    src: &'a Source,
    path: &'a [String],
    name: &'a str,
}

impl EntryAt<'_> {
    /// String `f` of the entry: its path from the entry, and where it is in the file.
    fn string(&self, strings: &Strings, f: &Found) -> (Vec<String>, (usize, usize)) {
        let rel: Vec<String> = strings.rel(f).iter().map(|k| k.to_string()).collect();
        let mut p = self.path.to_vec();
        p.extend(rel.iter().cloned());
        let at = match f.element {
            true => self.src.locate_element(&p, f.value),
            false => self.src.locate(&p),
        };
        (rel, at)
    }
}

/// What checking the entries of one file reuses from one entry to the next.
#[derive(Default)]
pub(in crate::lint) struct Scratch<'s> {
    strings: Strings<'s>,
    /// The path [`walk_strings`] is at.
    path: Vec<&'s str>,
    /// What the file's client expands, once a reference needs it.
    expands: Option<Expands>,
    /// `reference-drops-file` was reported for this file (once is enough: the whole file is
    /// what the client drops).
    dropped: bool,
}

/// The strings found in an entry by [`walk_strings`], and the steps of their paths.
#[derive(Default)]
pub(in crate::lint) struct Strings<'a> {
    pub(in crate::lint) found: Vec<Found<'a>>,
    /// The paths of all of them, one after another (see [`Strings::rel`]).
    steps: Vec<&'a str>,
}

impl<'a> Strings<'a> {
    /// The path from the entry of a string found.
    pub(in crate::lint) fn rel(&self, f: &Found<'a>) -> &[&'a str] {
        self.steps.get(f.rel.clone()).unwrap_or_default()
    }
}

/// A string found in an entry by [`walk_strings`].
pub(in crate::lint) struct Found<'a> {
    /// Where its path from the entry is in [`Strings::steps`] ([`Strings::rel`]).
    rel: std::ops::Range<usize>,
    /// The nearest key name.
    pub(in crate::lint) key: &'a str,
    pub(in crate::lint) value: &'a str,
    /// Whether it is an array element.
    pub(in crate::lint) element: bool,
    /// What kind of credential it looks like ([`secrets::classify`]).
    pub(in crate::lint) what: Option<&'static str>,
    /// Whether it must not be shown ([`crate::redact::must_hide`]).
    pub(in crate::lint) hide: bool,
}

/// Every string in an entry, in document order, each assessed by the detector.
pub(in crate::lint) fn walk_strings<'a>(
    v: &'a Value,
    path: &mut Vec<&'a str>,
    out: &mut Strings<'a>,
) {
    fn found<'a>(
        out: &mut Strings<'a>,
        path: &[&'a str],
        value: &'a str,
        element: bool,
        after_flag: Option<&str>,
    ) {
        let key = path.last().copied().unwrap_or_default();
        let (mut what, mut hide) = secrets::assess(key, value);
        // The value of a credential option in the element before (`["--token", "V"]`).
        if let Some(flag) = after_flag
            && what.is_none()
        {
            what = crate::redact::detect::classify_after(flag, value);
            hide |= what.is_some();
        }
        let start = out.steps.len();
        out.steps.extend_from_slice(path);
        out.found.push(Found {
            rel: start..out.steps.len(),
            key,
            value,
            element,
            what,
            hide,
        });
    }
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(k);
                walk_strings(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            let mut flag = None;
            for x in a {
                match x {
                    Value::String(s) => {
                        found(out, path, s, true, flag);
                        flag = crate::redact::argv::trailing_flag(s);
                    }
                    other => {
                        flag = None;
                        walk_strings(other, path, out);
                    }
                }
            }
        }
        Value::String(s) => found(out, path, s, false, None),
        _ => {}
    }
}

/// What `literal-secret` says of a value hidden only by the name it stands under.
const UNDER_CREDENTIAL_NAME: &str = "a literal value under a credential-like name";

pub(in crate::lint) fn secret_fix(d: &dyn Dialect, rel: &[String]) -> String {
    let top = rel.first().map(String::as_str).unwrap_or("");
    let var = match (top, rel.get(1)) {
        ("env" | "environment", Some(k)) => k.clone(),
        _ => "API_TOKEN".to_string(),
    };
    let ex = expands(d);
    if d.id() == "codex" {
        return "Codex reads secrets from its environment: list the variable in `env_vars`, or use `bearer_token_env_var` / `env_http_headers` for headers".into();
    }
    if ex.none {
        return format!(
            "{} expands no environment references, so start the server through a wrapper that reads the secret from the environment or a 0600 file",
            d.id()
        );
    }
    let r = ex.spell(&var);
    let in_env = matches!(top, "env" | "environment");
    if ex.env_only && !in_env {
        return format!(
            "{} expands references only in env values: pass it as an env value `{r}` and let the server read it from there",
            d.id()
        );
    }
    let in_place = in_env || matches!(top, "headers" | "http_headers");
    if ex.env_and_headers_only && !in_place {
        return format!(
            "{} expands references only in env values and headers: pass it as an env value `{r}` and let the server read it from there",
            d.id()
        );
    }
    if top == "headers" || top == "http_headers" {
        return format!("put it in an environment variable and reference it, e.g. `Bearer {r}`");
    }
    format!("put it in an environment variable and write `{r}` instead")
}
