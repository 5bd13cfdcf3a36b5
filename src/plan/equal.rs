//! Semantic equality of entries in a client's dialect: what `apply --adopt` accepts as the
//! same entry (defaults written out, key order), and the hint that names the first differing
//! field of a conflict (never its value).

use super::*;

/// An entry with the defaults clients write out removed: `null`s, empty `args` / `env` /
/// `headers` / `autoApprove` / `alwaysAllow`, `disabled: false`, `enabled: true`, and `type`
/// (or `transport`) `"stdio"` beside a `command` ([`crate::ledger::is_default`]). Key order
/// never mattered (values compare as maps).
pub fn normalized(v: &Value) -> Value {
    normalized_for(v, crate::ledger::ClientFacts::default())
}

/// [`normalized`] for one client (`facts`, its dialect's): also without the defaults it writes
/// out when it saves its file (Goose's `env_keys: []`, …), and with the fields it reads under
/// another name spelled its own way first (Windsurf's `url` as `serverUrl`, Gemini's `httpUrl`
/// as `type: "http"` and `url`), and an entry in another shape the client reads in its
/// canonical one ([`crate::ledger::ClientFacts::canon`]).
pub fn normalized_for(v: &Value, facts: crate::ledger::ClientFacts<'_>) -> Value {
    // An entry in another shape the client reads (Zed's legacy `command` object, Grok CLI's
    // flat entry or its nested `transport`) in the one shape it gives both.
    let canonical = facts.canon.map(|f| f(v));
    let v = canonical.as_ref().unwrap_or(v);
    let mut out = crate::ledger::without_defaults(
        &crate::ledger::respelled(v, facts.respell),
        facts.defaults,
        None,
    );
    if facts.untyped_http {
        untyped_http(&mut out);
    }
    if facts.bare_refs { braced(&out) } else { out }
}

/// The names clients give streamable HTTP in `type`.
const HTTP_NAMES: &[&str] = &[
    "http",
    "streamable-http",
    "streamable_http",
    "streamableHttp",
    "streamable",
];

/// A remote entry without a `type` that names streamable HTTP (for a client that takes a `url`
/// without `type` for it).
fn untyped_http(v: &mut Value) {
    if let Some(m) = v.as_object_mut()
        && ["url", "serverUrl", "httpUrl"]
            .iter()
            .any(|k| m.contains_key(*k))
        && m.get("type")
            .and_then(Value::as_str)
            .is_some_and(|t| HTTP_NAMES.contains(&t))
    {
        m.remove("type");
    }
}

/// Every string of an entry with `$VAR` spelled `${VAR}`, for a client that reads both alike.
fn braced(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(crate::template::grammar::braced(s).into_owned()),
        Value::Array(a) => Value::Array(a.iter().map(braced).collect()),
        Value::Object(m) => Value::Object(m.iter().map(|(k, x)| (k.clone(), braced(x))).collect()),
        x => x.clone(),
    }
}

/// Whether two entries mean the same to one client (`facts`: the defaults it writes out, the
/// fields it reads under another name; see `normalized_for`): the one comparison `apply`, `--adopt`, `[[legacy]]` and lint share.
pub fn semantic_eq_for(a: &Value, b: &Value, facts: crate::ledger::ClientFacts<'_>) -> bool {
    a == b || normalized_for(a, facts) == normalized_for(b, facts)
}

/// Whether two entries mean the same once the keys the client manages in them (`client`, see
/// `dialect::ClientManaged`) are set aside, and which of those keys differ (empty when the
/// entries are [`semantic_eq_for`] as they are).
pub fn eq_but_client_keys(
    a: &Value,
    b: &Value,
    client: &[String],
    facts: crate::ledger::ClientFacts<'_>,
) -> Option<Vec<String>> {
    adoption(a, b, client, facts).ok()
}

/// What `apply --adopt` makes of an entry `found` in a file where the manifest wants `wanted`
/// (`client`: the keys the client, or its user, keeps in the entry outside the manifest; `facts`:
/// the client's defaults and spellings): `Ok` with the kept keys whose values differ (the entry
/// is adopted as it is), or `Err` with the top-level fields, in the client's own spelling, where
/// the two differ once those keys and the defaults are set aside (a conflict). The one
/// comparison `plan` and `import`'s warnings share, so import never promises what plan refuses.
pub fn adoption(
    found: &Value,
    wanted: &Value,
    client: &[String],
    facts: crate::ledger::ClientFacts<'_>,
) -> Result<Vec<String>, Vec<String>> {
    if semantic_eq_for(found, wanted, facts) {
        return Ok(Vec::new());
    }
    let (Some(x), Some(y)) = (found.as_object(), wanted.as_object()) else {
        return Err(vec!["(the whole entry)".to_string()]);
    };
    let strip = |m: &serde_json::Map<String, Value>| {
        let kept = Value::Object(
            m.iter()
                .filter(|(k, _)| !client.contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        );
        normalized_for(&kept, facts)
    };
    let (p, q) = (strip(x), strip(y));
    if p == q {
        // The kept keys that differ once defaults are set aside (`enabled: true` is none).
        let (nx, ny) = (normalized_for(found, facts), normalized_for(wanted, facts));
        return Ok(client
            .iter()
            .filter(|k| nx.get(k.as_str()) != ny.get(k.as_str()))
            .cloned()
            .collect());
    }
    let (Some(p), Some(q)) = (p.as_object(), q.as_object()) else {
        return Err(vec!["(the whole entry)".to_string()]);
    };
    let mut keys: Vec<String> = p
        .keys()
        .chain(q.keys())
        .filter(|k| p.get(k.as_str()) != q.get(k.as_str()))
        .cloned()
        .collect();
    keys.sort();
    keys.dedup();
    Err(keys)
}

/// The first field (dotted path) where two entries differ once defaults are removed.
pub fn first_difference(a: &Value, b: &Value) -> Option<String> {
    fn walk(a: &Value, b: &Value, path: &mut Vec<String>) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let (Some(p), Some(q)) = (x.get(k), y.get(k)) else {
                        path.push(k.clone());
                        return Some(path.join("."));
                    };
                    path.push(k.clone());
                    if let Some(d) = walk(p, q, path) {
                        return Some(d);
                    }
                    path.pop();
                }
                None
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    path.push(i.to_string());
                    if let Some(d) = walk(p, q, path) {
                        return Some(d);
                    }
                    path.pop();
                }
                None
            }
            _ if a == b => None,
            _ if path.is_empty() => Some("(the whole entry)".to_string()),
            _ => Some(path.join(".")),
        }
    }
    walk(&normalized(a), &normalized(b), &mut Vec::new())
}

/// ` (it differs in `FIELD`)` for an entry the manifest wants in `client`'s file, found
/// otherwise: the first field [`adoption`] names (never a key the client keeps, nor its value).
pub(super) fn conflict_hint(
    found: &Value,
    wanted: &Value,
    client_state: &[String],
    client: &str,
) -> String {
    match adoption(
        found,
        wanted,
        client_state,
        crate::dialect::client_facts(client),
    ) {
        Err(fields) if !fields.is_empty() => {
            // The member within the field where they part (`args.0`, `headers.Authorization`).
            let f = &fields[0];
            let within = match (found.get(f), wanted.get(f)) {
                (Some(a), Some(b)) => first_difference(a, b)
                    .filter(|p| p != "(the whole entry)")
                    .map(|p| format!("{f}.{p}")),
                _ => None,
            };
            format!(" (it differs in `{}`)", within.unwrap_or_else(|| f.clone()))
        }
        _ => difference_hint(found, wanted),
    }
}

/// ` (it differs in `FIELD`)`: names the field, never its value.
pub(super) fn difference_hint(found: &Value, wanted: &Value) -> String {
    match first_difference(found, wanted) {
        Some(f) => format!(" (it differs in `{f}`)"),
        None => String::new(),
    }
}
