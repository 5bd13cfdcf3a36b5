//! Splice edits of string elements in a JSON array (Kiro agent `tools` / `allowedTools`
//! grants), touching only the element's own bytes and one separating comma, so that a push
//! followed by a removal of the same value gives back the exact original text.
//!
//! Works on the array's text (from `[` to `]`); the caller re-parses the whole document after
//! the splice and checks the result. Pure: no I/O.

/// One element of an array: its byte range within the array text and, for a string, its
/// decoded value.
#[derive(Debug, Clone, PartialEq)]
struct Element {
    start: usize,
    end: usize,
    string: Option<String>,
    /// Position of the comma after the element, if any.
    comma: Option<usize>,
}

/// Split an array's text into its top-level elements. `None` if it is not a well-formed array
/// (the caller has already validated the document, so this is defence in depth).
fn elements(text: &str) -> Option<Vec<Element>> {
    let b = text.as_bytes();
    if b.first() != Some(&b'[') || b.last() != Some(&b']') {
        return None;
    }
    let mut out: Vec<Element> = Vec::new();
    let mut i = 1;
    let end = b.len() - 1;
    while i < end {
        match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                while i < end && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < end && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b',' => {
                let last = out.last_mut()?;
                if last.comma.is_some() {
                    return None;
                }
                last.comma = Some(i);
                i += 1;
            }
            _ => {
                let start = i;
                let mut depth = 0usize;
                let mut in_str = false;
                while i < end {
                    let c = b[i];
                    if in_str {
                        if c == b'\\' {
                            i += 1;
                        } else if c == b'"' {
                            in_str = false;
                            if depth == 0 {
                                i += 1;
                                break;
                            }
                        }
                    } else {
                        match c {
                            b'"' => in_str = true,
                            b'[' | b'{' => depth += 1,
                            b']' | b'}' => depth = depth.checked_sub(1)?,
                            b',' | b' ' | b'\t' | b'\n' | b'\r' | b'/' if depth == 0 => break,
                            _ => {}
                        }
                    }
                    i += 1;
                }
                let raw = text.get(start..i)?;
                let string = if raw.starts_with('"') {
                    serde_json::from_str::<String>(raw).ok()
                } else {
                    None
                };
                out.push(Element {
                    start,
                    end: i,
                    string,
                    comma: None,
                });
            }
        }
    }
    Some(out)
}

/// The array text with `value` appended as a string element, following the array's layout.
pub fn push(text: &str, value: &str) -> Option<String> {
    let els = elements(text)?;
    let quoted = serde_json::to_string(value).ok()?;
    let mut out = text.to_string();
    match els.as_slice() {
        [] => out.insert_str(1, &quoted),
        [.., prev, last] => {
            // Reuse the whitespace that separates the last two elements.
            let comma = prev.comma?;
            let sep = text.get(comma + 1..last.start)?;
            let sep = if sep.trim().is_empty() { sep } else { " " };
            out.insert_str(last.end, &format!(",{sep}{quoted}"));
        }
        [only] => {
            let lead = text.get(1..only.start)?;
            let sep = if lead.contains('\n') && lead.trim().is_empty() {
                lead
            } else {
                " "
            };
            out.insert_str(only.end, &format!(",{sep}{quoted}"));
        }
    }
    Some(out)
}

/// The byte ranges of an array's top-level elements within its text (`None`: not an array).
pub fn spans(text: &str) -> Option<Vec<(usize, usize)>> {
    Some(elements(text)?.iter().map(|e| (e.start, e.end)).collect())
}

/// The array text with `element` (a JSON value's text, already indented for its place)
/// appended, following the array's layout; an empty array gets the element on a line of its
/// own, indented by `indent`, when `close` (the indentation of the line holding the `]`) is
/// given.
pub fn push_text(text: &str, element: &str, indent: &str, close: Option<&str>) -> Option<String> {
    let els = elements(text)?;
    let mut out = text.to_string();
    match els.as_slice() {
        [] => match close {
            Some(close) => out = format!("[\n{indent}{element}\n{close}]"),
            None => out.insert_str(1, element),
        },
        [.., prev, last] => {
            let comma = prev.comma?;
            let sep = text.get(comma + 1..last.start)?;
            let sep = if sep.trim().is_empty() { sep } else { " " };
            out.insert_str(last.end, &format!(",{sep}{element}"));
        }
        [only] => {
            let lead = text.get(1..only.start)?;
            let sep = if lead.contains('\n') && lead.trim().is_empty() {
                lead
            } else {
                " "
            };
            out.insert_str(only.end, &format!(",{sep}{element}"));
        }
    }
    Some(out)
}

/// The array text without its element `i` (and one separating comma); the only element of
/// an array that holds nothing else leaves `[]`.
pub fn remove_at(text: &str, i: usize) -> Option<String> {
    let els = elements(text)?;
    let e = els.get(i)?;
    if els.len() == 1
        && text
            .get(e.end..text.len() - 1)?
            .trim()
            .trim_start_matches(',')
            .trim()
            .is_empty()
        && text.get(1..e.start)?.trim().is_empty()
    {
        return Some("[]".to_string());
    }
    remove_element(text, &els, i)
}

/// The array text without the last string element equal to `value`; `None` if absent.
pub fn remove(text: &str, value: &str) -> Option<String> {
    let els = elements(text)?;
    let i = els
        .iter()
        .rposition(|e| e.string.as_deref() == Some(value))?;
    remove_element(text, &els, i)
}

fn remove_element(text: &str, els: &[Element], i: usize) -> Option<String> {
    let e = &els[i];
    let (from, to) = if els.len() == 1 {
        // The only element: take a trailing comma with it.
        (e.start, e.comma.map(|c| c + 1).unwrap_or(e.end))
    } else if i + 1 == els.len() {
        // The last one: from the end of the previous element, its comma included.
        (els[i - 1].end, e.end)
    } else {
        (e.start, els[i + 1].start)
    };
    let mut out = text.to_string();
    out.replace_range(from..to, "");
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_then_remove_is_identity() {
        let cases = [
            "[]",
            "[ ]",
            "[\n]",
            "[\"read\"]",
            "[\"read\", \"write\"]",
            "[\"read\",\"write\"]",
            "[\n    \"read\",\n    \"write\"\n  ]",
            "[\n    \"read\"\n  ]",
            "[\"a\", {\"x\": [1, \"]\"]}, 3]",
            "[\"a\", \"b\",]",
            "[\"a\" /* c */, \"b\" // d\n]",
        ];
        for c in cases {
            let pushed = push(c, "@openab").unwrap();
            let v: serde_json::Value =
                serde_json::from_str(&pushed.replace("/* c */", "").replace("// d", ""))
                    .or_else(|_| serde_json::from_str(&pushed.replace(",]", "]")))
                    .unwrap_or(serde_json::Value::Null);
            if !c.contains("//") && !c.contains(",]") {
                assert_eq!(
                    v.as_array().unwrap().last().unwrap(),
                    "@openab",
                    "{c:?} -> {pushed:?}"
                );
            }
            assert_eq!(
                remove(&pushed, "@openab").unwrap(),
                c,
                "{c:?} -> {pushed:?}"
            );
        }
    }

    #[test]
    fn layout_is_followed() {
        assert_eq!(
            push("[\n  \"a\",\n  \"b\"\n]", "c").unwrap(),
            "[\n  \"a\",\n  \"b\",\n  \"c\"\n]"
        );
        assert_eq!(push("[\"a\"]", "c").unwrap(), "[\"a\", \"c\"]");
        assert_eq!(
            push("[\n  \"a\"\n]", "c").unwrap(),
            "[\n  \"a\",\n  \"c\"\n]"
        );
    }

    #[test]
    fn remove_first_middle_and_missing() {
        assert_eq!(
            remove("[\"x\", \"a\", \"b\"]", "x").unwrap(),
            "[\"a\", \"b\"]"
        );
        assert_eq!(
            remove("[\"a\", \"x\", \"b\"]", "x").unwrap(),
            "[\"a\", \"b\"]"
        );
        assert_eq!(remove("[\"a\"]", "x"), None);
        assert_eq!(remove("[\"x\",]", "x").unwrap(), "[]");
        assert_eq!(remove("[\"a\\u0040\"]", "a@").unwrap(), "[]");
    }
}
