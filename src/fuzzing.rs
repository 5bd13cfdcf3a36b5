//! Invariant checks shared by the `cargo fuzz` targets in `fuzz/` and by the test that replays
//! their seed corpus (`tests/it/fuzz_corpus.rs`). Each function takes arbitrary bytes and panics
//! only when an invariant is broken. Not part of the stable API.

use serde_json::{Value, json};

use crate::jsondoc::{JsonDoc, ReadDoc, Syntax};

const SYNTAXES: [Syntax; 3] = [Syntax::Json, Syntax::JsonComments, Syntax::Jsonc];

/// The reader: never panics; whatever it accepts round-trips byte for byte, reads the same in
/// the laxer syntaxes, and is accepted by serde_json once comments are blanked (strict JSON:
/// serde_json gives the same value).
pub fn json_read(data: &[u8]) {
    // The read-only document (`lint`) decides and reads exactly like the editing one.
    for s in SYNTAXES {
        let r = ReadDoc::parse(data.to_vec(), s);
        let j = JsonDoc::parse_for_reading(data.to_vec(), s);
        match (r, j) {
            (Ok(r), Ok(j)) => assert_eq!(r.root(), &j.value(), "ReadDoc reads another value"),
            (Err(x), Err(y)) => assert_eq!(x, y, "ReadDoc refuses differently"),
            (r, j) => panic!("ReadDoc {:?} but JsonDoc {:?}", r.err(), j.err()),
        }
    }
    let mut strict: Option<Value> = None;
    for s in SYNTAXES {
        let Ok(d) = JsonDoc::parse(data, s) else {
            assert!(
                strict.is_none(),
                "strict json accepted but {s:?} refused: {data:?}"
            );
            continue;
        };
        assert_eq!(d.to_bytes(), data, "round trip in {s:?}");
        let v = d.value();
        assert!(v.is_object());
        match &strict {
            Some(sv) => assert_eq!(&v, sv, "{s:?} reads strict json differently"),
            None if s == Syntax::Json => {
                let body = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
                let serde: Value = serde_json::from_slice(body).expect("serde_json accepts");
                assert!(
                    same_modulo_float(&serde, &v),
                    "serde_json reads another value"
                );
                strict = Some(v);
            }
            None => {}
        }
    }
}

fn same_modulo_float(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (Some(x), Some(y)) = (x.as_f64(), y.as_f64()) else {
                return false;
            };
            x == y || (x - y).abs() <= f64::EPSILON * 4.0 * x.abs().max(y.abs())
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_modulo_float(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same_modulo_float(v, w))
        }
        _ => a == b,
    }
}

/// The editor: `data[0]` picks the syntax, `data[1]` the container path and entry name,
/// `data[2]` the value, the rest is the document. For an accepted document: an upsert either
/// fails cleanly (document unchanged) or gives a document that parses and holds exactly the
/// value; when the entry was new, removing it with the upsert's hints restores the input bytes.
pub fn json_edit(data: &[u8]) {
    let [sx, px, vx, doc @ ..] = data else {
        return;
    };
    let syntax = SYNTAXES[usize::from(*sx) % 3];
    let paths: [&[&str]; 5] = [
        &["mcpServers"],
        &[],
        &["projects", "/home/u/p", "mcpServers"],
        &["a"],
        &["a", "b"],
    ];
    let container: Vec<String> = paths[usize::from(*px) % paths.len()]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let name = ["srv", "a", "", "é\"\\\n"][usize::from(*px / 5) % 4];
    let values = [
        json!({"command": "npx", "args": ["-y", "x"]}),
        json!({}),
        json!([]),
        json!("str\u{1}\"\\"),
        json!(1.5),
        json!(12345678901234567u64),
        json!(null),
        json!({"url": "http://h/mcp", "headers": {"Authorization": "Bearer ${T}"}}),
    ];
    let value = &values[usize::from(*vx) % values.len()];
    let Ok(mut d) = JsonDoc::parse(doc, syntax) else {
        return;
    };
    let mut path = container.clone();
    path.push(name.to_owned());
    let existed = d.get(&path).is_some();
    match d.upsert(&container, name, value) {
        Err(e) => {
            assert_ne!(e.code, "internal-edit-error", "{e}");
            assert_eq!(d.to_bytes(), doc, "a failed upsert changed the document");
        }
        Ok(hints) => {
            let out = d.to_bytes();
            let re = JsonDoc::parse(&out, syntax).expect("the edited document parses");
            assert_eq!(
                re.get(&path).as_ref(),
                Some(value),
                "the entry holds the value"
            );
            if !existed {
                d.remove(&container, name, &hints)
                    .expect("remove after upsert");
                assert_eq!(d.to_bytes(), doc, "upsert then remove restores the input");
            }
        }
    }
}

/// The YAML editor: `data[0]` picks the container path (mappings, keyed lists), `data[1]` the entry
/// name, `data[2]` the value, the rest is the document. The reader never panics, and reads a
/// document part by part as it reads it whole (acceptance, value, the edit's bytes); for an
/// accepted document an upsert either fails without `internal-edit-error` and leaves the bytes
/// unchanged, or its output parses and holds exactly the value; when the entry was new,
/// removing it with the upsert's hints restores the input byte for byte.
pub fn yaml_edit(data: &[u8]) {
    use crate::yamldoc::YamlDoc;
    let [mx, nx, vx, doc @ ..] = data else {
        return;
    };
    let paths: [&[&str]; 5] = [
        &["mcpServers[name]"],
        &["extensions"],
        &["a", "b"],
        &["mcp_servers"],
        &["a", "s[name]"],
    ];
    let container: Vec<String> = paths[usize::from(*mx) % paths.len()]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let name = ["srv", "a", "yes", "é: #\"", "-x"][usize::from(*nx) % 5];
    let value = [
        json!({"command": "npx", "args": ["-y", "x"], "env": {"K": "${K}"}}),
        json!({}),
        json!({"url": "http://h/mcp", "headers": {"Authorization": "Bearer ${T}"}, "n": 1.5}),
        json!({"s": "a\nb\u{1}\"'", "t": [[], {}, null, true, "no"]}),
    ][usize::from(*vx) % 4]
        .clone();
    let read = YamlDoc::parse(doc.to_vec());
    let whole = YamlDoc::parse_whole(doc.to_vec());
    assert_eq!(
        read.as_ref().err().map(|e| e.code),
        whole.as_ref().err().map(|e| e.code),
        "read part by part and whole, the document is taken alike"
    );
    let (Ok(mut d), Ok(mut w)) = (read, whole) else {
        return;
    };
    assert_eq!(d.bytes(), doc, "parsing changed the bytes");
    let again = YamlDoc::parse(doc.to_vec()).expect("accepted twice");
    assert_eq!(again.value(), d.value(), "the reader is deterministic");
    assert_eq!(w.value(), d.value(), "the parts read as the whole tree");
    let mut path = container.clone();
    path.push(name.to_owned());
    let existed = d.get(&path).is_some();
    let by_whole = w.upsert(&container, name, &value);
    let by_parts = d.upsert(&container, name, &value);
    assert_eq!(
        by_parts.as_ref().map_err(|e| e.code),
        by_whole.as_ref().map_err(|e| e.code),
        "the parts edit as the whole tree does"
    );
    assert_eq!(
        d.bytes(),
        w.bytes(),
        "the parts edit as the whole tree does"
    );
    match by_parts {
        Err(e) => {
            assert_ne!(e.code, "internal-edit-error", "{e:?}");
            assert_eq!(d.bytes(), doc, "a failed upsert changed the document");
        }
        Ok(hints) => {
            let re = YamlDoc::parse(d.bytes().to_vec()).expect("the edited document parses");
            assert_eq!(
                re.get(&path).as_ref(),
                Some(&value),
                "the entry holds the value"
            );
            if !existed {
                d.remove(&container, name, &hints)
                    .expect("remove after upsert");
                assert_eq!(d.bytes(), doc, "upsert then remove restores the input");
            }
        }
    }
}

/// The TOML editor: `data[0]` picks the container (`mcp_servers`, Codex's tables, or
/// `mcp_servers[name]`, Mistral Vibe's `[[mcp_servers]]`), `data[1]` the entry name,
/// `data[2]` the value, the rest is the document. Read through its windows, a document is
/// accepted or refused exactly as read whole, with the same values; for an accepted one an
/// upsert either fails without `internal-edit-error` and leaves the bytes unchanged, or its
/// output parses, holds exactly the value and reads as the same edit of the whole text does;
/// when the entry was new, removing it restores the input byte for byte.
pub fn toml_edit(data: &[u8]) {
    use crate::tomldoc::TomlDoc;
    let [cx, nx, vx, doc @ ..] = data else {
        return;
    };
    let container = vec![["mcp_servers", "mcp_servers[name]"][usize::from(*cx) % 2].to_owned()];
    let name = ["srv", "a", "s0", "é: #\"", ""][usize::from(*nx) % 5];
    let value = [
        json!({"command": "npx", "args": ["-y", "x"], "env": {"K": "${K}"}}),
        json!({}),
        json!({"url": "http://h/mcp", "headers": {"Authorization": "Bearer ${T}"}, "n": 1.5}),
        json!({"s": "a\nb\u{1}\"'", "t": [[], {}, true, "no"]}),
    ][usize::from(*vx) % 4]
        .clone();
    let read = TomlDoc::parse(doc);
    let whole = TomlDoc::parse_whole(doc);
    assert_eq!(
        read.as_ref().err().map(|e| e.code),
        whole.as_ref().err().map(|e| e.code),
        "the windows and the whole text disagree on the document"
    );
    let (Ok(mut d), Ok(mut w)) = (read, whole) else {
        return;
    };
    assert_eq!(d.bytes(), doc, "parsing changed the bytes");
    assert_eq!(d.value(), w.value(), "the windows read another value");
    let mut path = container.clone();
    path.push(name.to_owned());
    assert_eq!(
        d.get(&container),
        w.get(&container),
        "the container reads alike"
    );
    let existed = d.get(&path).is_some();
    let (a, b) = (
        d.upsert(&container, name, &value),
        w.upsert(&container, name, &value),
    );
    assert_eq!(
        a.as_ref().err().map(|e| e.code),
        b.as_ref().err().map(|e| e.code),
        "the window and the whole text edit alike"
    );
    match a {
        Err(e) => {
            assert_ne!(e.code, "internal-edit-error", "{e:?}");
            assert_eq!(d.bytes(), doc, "a failed upsert changed the document");
        }
        Ok(()) => {
            let re = TomlDoc::parse(d.bytes()).expect("the edited document parses");
            // An empty table is as good as none (the edit's proof ignores empty tables).
            if value != json!({}) {
                assert_eq!(
                    re.get(&path).as_ref(),
                    Some(&value),
                    "the entry holds the value"
                );
            }
            assert_eq!(
                re.value(),
                w.value(),
                "the window's edit reads as the whole text's"
            );
            if !existed {
                d.remove(&container, name).expect("remove after upsert");
                assert_eq!(d.bytes(), doc, "upsert then remove restores the input");
            }
        }
    }
}

/// The manifest parser: never panics, on any text; nor does reading its registry servers, or
/// reading the same text as a lock file (which, when it parses, renders to a lock that reads
/// back the same) and parsing the manifest with that lock.
pub fn manifest(data: &[u8]) {
    if let Ok(text) = std::str::from_utf8(data) {
        let _ = crate::manifest::parse(text, &crate::known::Known);
        let _ = crate::manifest::registry_refs(text);
        if let Ok(lock) = crate::manifest::lock::Lock::parse(text) {
            let again =
                crate::manifest::lock::Lock::parse(&lock.render()).expect("a rendered lock parses");
            assert_eq!(again, lock, "a lock renders to what it read");
            let _ = crate::manifest::parse_with_lock(text, &crate::known::Known, Some(&lock));
        }
    }
}

/// A registry answer: resolving any bytes as a `server.json` for a few declarations never
/// panics, and a resolved entry never holds a value the document marks secret.
pub fn registry(data: &[u8]) {
    let Ok(doc) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    let name = doc
        .pointer("/server/name")
        .or_else(|| doc.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("io.github.a/b");
    let version = doc
        .pointer("/server/version")
        .or_else(|| doc.get("version"))
        .and_then(Value::as_str)
        .unwrap_or("1.0.0");
    for extra in [
        "",
        "package = \"npm\"",
        "package = \"oci\"",
        "remote = true",
    ] {
        let text = format!(
            "[servers.s]\nregistry = {}\nversion = {}\n{extra}\n",
            Value::String(name.into()),
            Value::String(version.into())
        );
        let Ok(refs) = crate::manifest::registry_refs(&text) else {
            continue;
        };
        let Some(r) = refs.first() else { continue };
        if let Ok(locked) = crate::registry::resolve(&doc, r, "https://r.example") {
            let entry = locked.entry.to_string();
            let (mut secrets, mut plain) = (Vec::new(), Vec::new());
            collect_values(&doc, false, &mut secrets, &mut plain);
            // A secret's value may also stand in the document unmarked: only the marked ones
            // must stay out.
            let only_secret =
                |s: &&String| s.len() >= 8 && !plain.iter().any(|p| p.contains(s.as_str()));
            for s in secrets.iter().filter(only_secret) {
                assert!(
                    !entry.contains(s.as_str()),
                    "a secret value reached the entry: {entry}"
                );
            }
        }
    }
}

/// Every string of the document: `value` and `default` of objects marked `isSecret` (or
/// `is_secret`, or a variable of one) into `secrets`, the rest into `plain`.
fn collect_values(v: &Value, secret: bool, secrets: &mut Vec<String>, plain: &mut Vec<String>) {
    match v {
        Value::Object(o) => {
            let secret = secret
                || ["isSecret", "is_secret"]
                    .iter()
                    .any(|k| o.get(*k).and_then(Value::as_bool) == Some(true));
            for (k, x) in o {
                match x.as_str() {
                    Some(s) if secret && (k == "value" || k == "default") => secrets.push(s.into()),
                    // A secret input's `{variables}` are inside its value: secret too. Anything
                    // else under an object marked `isSecret` (a package that carries the flag,
                    // which means nothing there) is judged on its own.
                    _ => collect_values(x, secret && k == "variables", secrets, plain),
                }
            }
        }
        Value::Array(a) => a
            .iter()
            .for_each(|x| collect_values(x, false, secrets, plain)),
        Value::String(s) => plain.push(s.clone()),
        _ => {}
    }
}

/// Redaction of argument vectors: a secret planted in the vector the bytes describe (byte 0 the
/// shape: an option and its value as two elements, `--flag=value` in an element or inside a
/// longer string, `--flag value` inside one string, the option ending one element and the
/// value the next, a short credential in a URL's query; byte 1 the option; the rest, split at
/// line feeds, the other elements) is never shown by the diff masker, whole text or line by
/// line, in JSON, TOML or YAML, nor by the known-value redactor of the entry.
pub fn redact_argv(data: &[u8]) {
    use crate::redact::mask::{Lang, mask, mask_lines};
    const FLAGS: [&str; 6] = [
        "--api-key",
        "--token",
        "-password",
        "--auth-token",
        "--client-secret",
        "--session",
    ];
    let (Some(&shape), Some(&flag)) = (data.first(), data.get(1)) else {
        return;
    };
    let flag = FLAGS[usize::from(flag) % FLAGS.len()];
    let tail: String = data.iter().take(6).map(|b| format!("{b:02x}")).collect();
    let secret = format!("PLANTED{tail}");
    let others: Vec<String> = data
        .get(2..)
        .unwrap_or_default()
        .split(|&b| b == b'\n')
        .map(|a| {
            String::from_utf8_lossy(a)
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || " ._/@:=-".contains(*c))
                .collect::<String>()
                .replace("PLANTED", "")
        })
        .filter(|a| !a.is_empty())
        .take(8)
        .collect();
    let at = others.len() / 2;
    let planted: Vec<String> = match shape % 6 {
        0 => vec![flag.into(), secret.clone()],
        1 => vec![format!("{flag}={secret}")],
        2 => vec![format!("cmd --x {flag}={secret} y")],
        3 => vec![format!("tool {flag} {secret} x")],
        4 => vec![format!("npx srv {flag}"), secret.clone()],
        _ => vec![format!("https://h/mcp?token={}&page=2", &secret[..9])],
    };
    let mut args = others[..at].to_vec();
    args.extend(planted);
    args.extend(others[at..].iter().cloned());
    let q: Vec<String> = args
        .iter()
        .map(|a| serde_json::Value::String(a.clone()).to_string())
        .collect();
    let texts = [
        (
            format!(
                "{{\"s\": {{\"command\": \"npx\", \"args\": [{}]}}}}\n",
                q.join(", ")
            ),
            Lang::Json,
        ),
        (
            format!("{{\n  \"args\": [\n    {}\n  ]\n}}\n", q.join(",\n    ")),
            Lang::Json,
        ),
        (
            format!("[s]\nargs = [\n  {},\n]\n", q.join(",\n  ")),
            Lang::Toml,
        ),
        (
            format!(
                "s:\n  args:\n{}\n",
                q.iter().map(|a| format!("  - {a}\n")).collect::<String>()
            ),
            Lang::Yaml,
        ),
        (format!("s:\n  args: [{}]\n", q.join(", ")), Lang::Yaml),
    ];
    let mut red = crate::redact::Redactor::default();
    red.scan(&serde_json::json!({ "args": args }));
    for (text, lang) in &texts {
        for shown in [mask(text, *lang), mask_lines(text, *lang), red.redact(text)] {
            assert!(
                !shown.contains("PLANTED"),
                "a planted secret is shown:\n{text}\n->\n{shown}"
            );
        }
    }
}

/// The credentials inside a string (`redact::spans`): for any text around a secret planted in
/// one of the shapes people embed (byte 0 the shape; the rest, split at its middle, the text
/// before and after, each on lines of their own), every span lies on character bounds inside
/// the text, free-text scrubbing shows no byte of the secret, the detector classifies the whole
/// text as holding a credential under a neutral name, and the known-value redactor of a value
/// holding it hides it.
pub fn redact_spans(data: &[u8]) {
    let Some(&shape) = data.first() else {
        return;
    };
    let tail: String = data.iter().take(6).map(|b| format!("{b:02x}")).collect();
    let secret = format!("Pl4nt{tail}Qz7Rv3Lm9Tw");
    let s = secret.as_str();
    let shapes = [
        format!("API_KEY={s}"),
        format!("GITHUB_TOKEN={s}"),
        format!("Authorization: Bearer {s}"),
        format!("X-Api-Key: {s}"),
        format!("--apikey:{s}"),
        format!("{{\"apiKey\": \"{s}\"}}"),
        format!("Server=db;Password={s};"),
        format!("https://h.example/o?se=1&sig={s}"),
        format!("postgres://app:{s}@db/x"),
        format!("--api-key={s}"),
        format!("Bearer {s}"),
        format!("sk-{s}{s}"),
    ];
    let planted = &shapes[usize::from(shape) % shapes.len()];
    let rest = String::from_utf8_lossy(data.get(1..).unwrap_or_default()).replace("Pl4nt", "");
    let mid = rest
        .char_indices()
        .map(|(i, _)| i)
        .nth(rest.chars().count() / 2)
        .unwrap_or(rest.len());
    let text = format!("{}\n {planted} \n{}", &rest[..mid], &rest[mid..]);
    // Whatever the text, spans are in bounds and on character bounds.
    for t in [rest.as_str(), text.as_str()] {
        for sp in crate::redact::spans::secret_spans(t) {
            assert!(sp.range.start <= sp.range.end && sp.range.end <= t.len());
            assert!(t.is_char_boundary(sp.range.start) && t.is_char_boundary(sp.range.end));
        }
        let _ = crate::redact::classify("value", t);
    }
    // The planted line alone: found, classified and hidden.
    let line = format!(" {planted} ");
    assert!(
        crate::redact::classify("value", &line).is_some(),
        "not classified: {line:?}"
    );
    let mut red = crate::redact::Redactor::default();
    red.consider("value", &line);
    for shown in [crate::redact::scrub_text(&text), red.redact(&text)] {
        assert!(
            !shown.contains(s),
            "a planted secret is shown:\n{text}\n->\n{shown}"
        );
    }
}
