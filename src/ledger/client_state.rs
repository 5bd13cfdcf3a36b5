//! Client state in entries: the keys a client writes into an entry itself are outside the
//! proof of authorship (the record names them, and keeps a short digest of each member as
//! written), so an entry changed only there stays ours, and a drift names the member that
//! differs from what was written.

use serde_json::Value;

use super::{Ownership, Record, digest};

/// What one client does to an entry when it saves its own file: the keys it manages in it
/// (switches, approvals, trust) and the defaults it writes out for fields it was not given
/// (`key`, the value as compact JSON: `("env_keys", "[]")`, `("timeout", "300")`). Given by
/// the client's dialect; the ledger, `--adopt`, `[[legacy]]` and lint compare entries through
/// it (see [`without_defaults`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientFacts<'a> {
    /// Keys the client writes into an entry itself.
    pub keys: &'a [&'a str],
    /// Defaults the client writes out for absent fields.
    pub defaults: &'a [(&'a str, &'a str)],
    /// Fields the client also reads under another name: (that name, the client's own, a
    /// member that goes with the client's spelling as `key=json`, or `""`).
    pub respell: &'a [(&'a str, &'a str, &'a str)],
    /// Whether the client reads `$VAR` as `${VAR}` ([`crate::template::Grammar::bare`]): the
    /// two spellings are the same entry.
    pub bare_refs: bool,
    /// Whether mcpconf marks no streamable HTTP entry of this client with a `type`
    /// ([`crate::dialect::types_http`]): a `"type": "http"` (or another name of streamable
    /// HTTP) beside a `url` then only spells what the entry's shape says, and compares as
    /// absent.
    pub untyped_http: bool,
    /// The client's canonical reading of an entry, when it reads one entry in more than one
    /// shape (Zed's legacy `command: {path, args, env}` object, Grok CLI's flat entry beside
    /// its nested `transport`): both spellings compare in the one it gives.
    pub canon: Option<fn(&Value) -> Value>,
    /// Every top-level field the client reads in an entry (those it documents, those mcpconf
    /// writes for it, and the fields that say what runs in any client's spelling); `None`:
    /// not known, every field counts. A field outside it has no effect in the client: it is
    /// the user's, kept as written outside the manifest and the proof ([`unread`]).
    pub reads: Option<&'a [&'a str]>,
}

/// The launch's fields (arguments, environment, working directory, env file): nothing reads
/// them in an entry with a URL and no command, which starts no process.
const LAUNCH_ONLY: &[&str] = &["args", "env", "cwd", "envFile"];

/// The URL's fields: nothing reads headers in an entry with a command and no URL.
const REMOTE_ONLY: &[&str] = &["headers"];

/// The top-level keys of an entry `v` that its client does not read there, sorted: a field
/// outside [`ClientFacts::reads`], a launch field beside a URL where there is no command, and
/// headers beside a command where there is no URL. They change nothing the client does, so
/// they are the user's: kept in the file as written, outside the manifest and the proof.
pub fn unread(v: &Value, facts: ClientFacts<'_>) -> Vec<String> {
    let Some(m) = v.as_object() else {
        return Vec::new();
    };
    let has = |keys: &[&str]| keys.iter().any(|k| m.contains_key(*k));
    let command = has(&["command", "cmd"]);
    let url = has(&["url", "uri", "serverUrl", "httpUrl"]);
    let mut out: Vec<String> = m
        .keys()
        .filter(|k| {
            facts.reads.is_some_and(|r| !r.contains(&k.as_str()))
                || (url && !command && LAUNCH_ONLY.contains(&k.as_str()))
                || (command && !url && REMOTE_ONLY.contains(&k.as_str()))
        })
        .cloned()
        .collect();
    out.sort();
    out
}

/// An entry with the fields spelled another way (`respell`: other name, own name, a member
/// that goes with the own spelling as `key=json`) spelled the client's own way: the other name
/// is renamed when the own one is absent, and the member added when absent.
pub fn respelled(v: &Value, respell: &[(&str, &str, &str)]) -> Value {
    let Some(m) = v.as_object() else {
        return v.clone();
    };
    if !respell.iter().any(|(from, _, _)| m.contains_key(*from)) {
        return v.clone();
    }
    let mut out = m.clone();
    for (from, to, with) in respell {
        if out.contains_key(*to) {
            continue;
        }
        let Some(x) = out.remove(*from) else { continue };
        out.insert(to.to_string(), x);
        if let Some((k, json)) = with.split_once('=')
            && !out.contains_key(k)
            && let Ok(val) = serde_json::from_str(json)
        {
            out.insert(k.to_string(), val);
        }
    }
    Value::Object(out)
}

/// Fields every client reads as absent when empty: the arguments, the environment and the
/// headers under each client's name for them (opencode's `environment`, Goose's `envs`,
/// Codex's `http_headers`, `env_http_headers`, `env_vars`), and the approval lists.
const EMPTY_DEFAULTS: &[&str] = &[
    "args",
    "env",
    "headers",
    "autoApprove",
    "alwaysAllow",
    "environment",
    "envs",
    "http_headers",
    "env_http_headers",
    "env_vars",
];

/// Whether member `key` = `x` of an entry says only what its client assumes when the member
/// is absent: `null`; an empty `args` / `env` / `headers` / `autoApprove` / `alwaysAllow` (or
/// the environment and headers under another client's name for them);
/// `disabled: false`, `enabled: true`; `type` (or `transport`) `"stdio"` beside a `command`;
/// or one of the client's own `defaults`.
pub fn is_default(key: &str, x: &Value, has_command: bool, defaults: &[(&str, &str)]) -> bool {
    let generic = match (key, x) {
        (_, Value::Null) => true,
        (k, Value::Array(a)) if EMPTY_DEFAULTS.contains(&k) => a.is_empty(),
        (k, Value::Object(o)) if EMPTY_DEFAULTS.contains(&k) => o.is_empty(),
        ("disabled", Value::Bool(false)) | ("enabled", Value::Bool(true)) => true,
        ("type" | "transport", Value::String(t)) => has_command && t == "stdio",
        _ => false,
    };
    generic
        || defaults
            .iter()
            .any(|(k, d)| *k == key && serde_json::to_string(x).is_ok_and(|t| t == *d))
}

/// An entry as its client means it: without the members that only spell out a default
/// ([`is_default`]), except those in `keep` (the members mcpconf wrote, which the record
/// names). A non-object as it is.
pub fn without_defaults(
    v: &Value,
    defaults: &[(&str, &str)],
    keep: Option<&std::collections::BTreeMap<String, String>>,
) -> Value {
    let Some(m) = v.as_object() else {
        return v.clone();
    };
    let has_command = m.contains_key("command") || m.contains_key("cmd");
    Value::Object(
        m.iter()
            .filter(|(k, x)| {
                keep.is_some_and(|w| w.contains_key(k.as_str()))
                    || !is_default(k, x, has_command, defaults)
            })
            .map(|(k, x)| (k.clone(), x.clone()))
            .collect(),
    )
}

impl Record {
    /// Whether the value found now is provably ours: its canonical value, without the
    /// record's client keys, hashes to the recorded (or pending) digest. For a record written
    /// before client state was known (no `members`), `facts.keys` are the keys the client
    /// writes itself: the value without any of those it holds is tried too, so an entry whose
    /// only change is such a key stays ours. An entry the client re-saved with its defaults
    /// written out (`facts.defaults`, members mcpconf did not write) is the same entry.
    pub fn ownership_in(&self, current: Option<&Value>, facts: ClientFacts<'_>) -> Ownership {
        let fallback = facts.keys;
        let Some(v) = current else {
            return Ownership::Missing;
        };
        let pending = self.pending.as_ref().and_then(|p| p.digest.as_deref());
        let proves = |x: &Value| {
            let d = digest(x);
            self.digest.as_deref() == Some(d.as_str()) || pending == Some(d.as_str())
        };
        if proves(v) {
            return Ownership::Intact;
        }
        let own: Vec<&str> = self.client_state.iter().map(String::as_str).collect();
        if !own.is_empty() && proves(&without(v, &own)) {
            return Ownership::Intact;
        }
        // Fields the client does not read, added or changed since: the user's, outside the
        // proof (the entry without them is judged; it has none left, so this ends).
        let unread = unread(v, facts);
        if !unread.is_empty() {
            let keys: Vec<&str> = unread.iter().map(String::as_str).collect();
            return self.ownership_in(Some(&without(v, &keys)), facts);
        }
        // The client's own save: defaults written out for members mcpconf did not write.
        let canon = without_defaults(v, facts.defaults, self.members.as_ref());
        if &canon != v && (proves(&canon) || (!own.is_empty() && proves(&without(&canon, &own)))) {
            return Ownership::Intact;
        }
        if self.members.is_none() {
            let present: Vec<&str> = fallback
                .iter()
                .copied()
                .filter(|k| v.get(*k).is_some())
                .take(8)
                .collect();
            // Every non-empty subset of the client keys present (at most 255 digests, and only
            // for an entry that does not match as it is).
            for mask in 1u32..(1 << present.len()) {
                let keys: Vec<&str> = present
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| mask & (1 << i) != 0)
                    .map(|(_, k)| *k)
                    .collect();
                if proves(&without(v, &keys)) {
                    return Ownership::Intact;
                }
            }
        }
        Ownership::Drifted
    }

    /// The client keys of an intact entry that the client added or changed since mcpconf
    /// wrote it, sorted (for `status`: `intact (client state: …)`). For a record from before
    /// client state was known, every key of `fallback` the entry holds.
    pub fn client_state_in(&self, current: &Value, fallback: &[&str]) -> Vec<String> {
        let Some(m) = current.as_object() else {
            return Vec::new();
        };
        let mut out: Vec<String> = match &self.members {
            Some(members) => self
                .client_state
                .iter()
                .filter(|k| {
                    m.get(k.as_str())
                        .is_some_and(|x| members.get(k.as_str()) != Some(&short_digest(x)))
                })
                .cloned()
                .collect(),
            None => fallback
                .iter()
                .filter(|k| m.contains_key(**k))
                .map(|k| k.to_string())
                .collect(),
        };
        out.sort();
        out
    }

    /// The first member (in key order) where the entry found now differs from the one
    /// recorded, outside the client keys, as a phrase: `` `args` differs ``, `` `x` was
    /// added ``, `` `env` was removed ``. `None` for a record without `members`, or when no
    /// member differs.
    pub fn differing_member(&self, current: &Value) -> Option<String> {
        let members = self.members.as_ref()?;
        let Some(m) = current.as_object() else {
            return Some("the entry is no longer an object".to_string());
        };
        let mut keys: Vec<&str> = members
            .keys()
            .map(String::as_str)
            .chain(m.keys().map(String::as_str))
            .filter(|k| !self.client_state.iter().any(|c| c == k))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys.into_iter()
            .find_map(|k| match (members.get(k), m.get(k)) {
                (Some(_), None) => Some(format!("`{k}` was removed")),
                (None, Some(_)) => Some(format!("`{k}` was added")),
                (Some(d), Some(x)) if *d != short_digest(x) => Some(format!("`{k}` differs")),
                _ => None,
            })
    }
}

/// An entry without some of its keys (a copy; a non-object as it is). A key `a.b` names the
/// member `b` of the member `a` (Hermes' `tools.exclude` beside a pinned `tools.include`).
pub fn without(v: &Value, keys: &[&str]) -> Value {
    let Value::Object(m) = v else {
        return v.clone();
    };
    let mut out = serde_json::Map::new();
    for (k, x) in m {
        if keys.contains(&k.as_str()) {
            continue;
        }
        let nested: Vec<&str> = keys
            .iter()
            .filter_map(|p| p.strip_prefix(k.as_str())?.strip_prefix('.'))
            .collect();
        let x = if nested.is_empty() {
            x.clone()
        } else {
            without(x, &nested)
        };
        out.insert(k.clone(), x);
    }
    Value::Object(out)
}

/// The member a client key names: `key` itself, or for `a.b` the member `b` of `a`.
pub fn member_at<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    if let Some(x) = v.get(key) {
        return Some(x);
    }
    let (head, rest) = key.split_once('.')?;
    member_at(v.get(head)?, rest)
}

/// `want` with the nested client keys (`a.b`) that `found` holds copied in, so an update of
/// the member `a` keeps the client's `b` (top-level client keys are kept by the editor).
pub fn with_nested_state(want: &Value, found: &Value, keys: &[String]) -> Value {
    let mut out = want.clone();
    for key in keys {
        let Some((head, rest)) = key.split_once('.') else {
            continue;
        };
        let (Some(x), Some(Value::Object(inner))) = (
            member_at(found, key),
            out.as_object_mut().and_then(|m| m.get_mut(head)),
        ) else {
            continue;
        };
        if !rest.contains('.') {
            inner.insert(rest.to_string(), x.clone());
        }
    }
    out
}

/// The proof of an entry as written: the digest of the entry without its client keys, and
/// the short digest of each of its members.
pub fn entry_proof(
    v: &Value,
    client_state: &[String],
) -> (String, Option<std::collections::BTreeMap<String, String>>) {
    let keys: Vec<&str> = client_state.iter().map(String::as_str).collect();
    let d = if keys.iter().any(|k| member_at(v, k).is_some()) {
        digest(&without(v, &keys))
    } else {
        digest(v)
    };
    let members = v.as_object().map(|m| {
        m.iter()
            .map(|(k, x)| (k.clone(), short_digest(x)))
            .collect()
    });
    (d, members)
}

/// The first 16 hex digits of a member's [`digest`]: enough to tell a changed member, too
/// short to be worth guessing a value from.
pub fn short_digest(v: &Value) -> String {
    let d = digest(v);
    d.get(7..23).unwrap_or_default().to_string()
}

#[cfg(test)]
mod tests {
    use super::super::Record;
    use super::*;
    use serde_json::json;

    fn rec(digest: Option<&str>) -> Record {
        crate::ledger::tests::rec(digest, None)
    }

    /// A nested client key (`tools.exclude`) is outside the proof while its siblings are in
    /// it: Hermes' exclusion beside our pin keeps the entry ours, a changed pin does not; an
    /// update copies the client's member into the wanted entry.
    #[test]
    fn a_nested_client_key_is_outside_the_proof_and_kept_by_an_update() {
        let written = json!({"url": "u", "tools": {"include": ["a", "b"]}});
        let state = vec!["enabled".to_string(), "tools.exclude".to_string()];
        let (d, members) = entry_proof(&written, &state);
        let mut r = rec(Some(&d));
        r.client_state = state.clone();
        r.members = members;
        let found = json!({"url": "u", "tools": {"include": ["a", "b"], "exclude": ["b"]}});
        assert_eq!(r.ownership(Some(&found)), Ownership::Intact);
        let emptied = json!({"url": "u", "tools": {"include": ["a", "b"], "exclude": []}});
        assert_eq!(r.ownership(Some(&emptied)), Ownership::Intact);
        let pin = json!({"url": "u", "tools": {"include": ["a"], "exclude": ["b"]}});
        assert_eq!(r.ownership(Some(&pin)), Ownership::Drifted);
        assert_eq!(member_at(&found, "tools.exclude"), Some(&json!(["b"])));
        let want = json!({"url": "v", "tools": {"include": ["a", "b", "c"]}});
        assert_eq!(
            with_nested_state(&want, &found, &state),
            json!({"url": "v", "tools": {"include": ["a", "b", "c"], "exclude": ["b"]}})
        );
        assert_eq!(with_nested_state(&want, &written, &state), want);
    }

    #[test]
    fn client_keys_are_outside_the_proof_and_named_when_changed() {
        let written = json!({"command": "c", "args": ["a"], "enabled": true});
        let state = vec!["enabled".to_string(), "autoApprove".to_string()];
        let (d, members) = entry_proof(&written, &state);
        assert_eq!(d, digest(&json!({"command": "c", "args": ["a"]})));
        let mut r = rec(Some(&d));
        r.client_state = state;
        r.members = members;
        // The client's own keys, changed or added: still ours, and named.
        let found = json!({"command": "c", "args": ["a"], "enabled": false, "autoApprove": ["t"]});
        assert_eq!(r.ownership(Some(&found)), Ownership::Intact);
        assert_eq!(
            r.client_state_in(&found, &[]),
            vec!["autoApprove", "enabled"]
        );
        assert_eq!(r.client_state_in(&written, &[]), Vec::<String>::new());
        // Anything else: drift, named by the member that differs from what was written.
        for (v, why) in [
            (
                json!({"command": "c", "args": ["b"], "enabled": true}),
                "`args` differs",
            ),
            (
                json!({"command": "c", "args": ["a"], "x": 1}),
                "`x` was added",
            ),
            (
                json!({"command": "c", "enabled": true}),
                "`args` was removed",
            ),
        ] {
            assert_eq!(r.ownership(Some(&v)), Ownership::Drifted, "{v}");
            assert_eq!(r.differing_member(&v).as_deref(), Some(why), "{v}");
        }
    }

    #[test]
    fn records_without_members_try_the_clients_keys() {
        let written = json!({"command": "c"});
        let r = rec(Some(&digest(&written)));
        let found = json!({"command": "c", "autoApprove": ["t"], "disabled": true});
        assert_eq!(r.ownership(Some(&found)), Ownership::Drifted);
        let keys = ["autoApprove", "disabled", "disabledTools"];
        assert_eq!(
            r.ownership_in(
                Some(&found),
                ClientFacts {
                    keys: &keys,
                    ..ClientFacts::default()
                }
            ),
            Ownership::Intact
        );
        assert_eq!(
            r.client_state_in(&found, &keys),
            vec!["autoApprove", "disabled"]
        );
        let other = json!({"command": "d", "disabled": true});
        assert_eq!(
            r.ownership_in(
                Some(&other),
                ClientFacts {
                    keys: &keys,
                    ..ClientFacts::default()
                }
            ),
            Ownership::Drifted
        );
        assert_eq!(r.differing_member(&other), None);
    }
}
