//! The second opinion on what the strict parser read: serde_json must accept the same text
//! (comments and trailing commas blanked) and, when the value is compared, read the same value.

use crate::diag::Code;
use serde_json::Value;

use super::api::ReadError;
use super::parse::Parsed;

/// Defence in depth: serde_json must accept the text with comments and trailing commas blanked
/// to spaces (offsets and newlines unchanged) and produce the same value.
pub(super) fn cross_check(text: &str, parsed: &Parsed) -> Result<(), ReadError> {
    let mut blanked = text.as_bytes().to_vec();
    blank_out(&mut blanked, &parsed.blanks);
    match serde_json::from_slice::<Value>(&blanked) {
        Ok(v) if values_agree(&v, &parsed.root) => Ok(()),
        Ok(_) => Err(ReadError {
            code: Code::ParseError,
            message: "the file was read differently by two json parsers, so it is refused".into(),
            line: 1,
            column: 1,
        }),
        // serde_json stops one level before MAX_DEPTH; the strict parser already checked depth.
        Err(e) if e.to_string().contains("recursion limit") => Ok(()),
        Err(e) => Err(ReadError {
            code: Code::ParseError,
            message: format!("the file is not valid json ({e})"),
            line: e.line().max(1),
            column: e.column().max(1),
        }),
    }
}

/// serde_json must accept the text too (comments and trailing commas blanked to spaces).
pub(super) fn serde_accepts(text: &str, blanks: &[(usize, usize)]) -> Result<(), ReadError> {
    let res = if blanks.is_empty() {
        serde_json::from_str::<serde::de::IgnoredAny>(text).map(|_| ())
    } else {
        let mut blanked = text.as_bytes().to_vec();
        blank_out(&mut blanked, blanks);
        serde_json::from_slice::<serde::de::IgnoredAny>(&blanked).map(|_| ())
    };
    match res {
        Ok(()) => Ok(()),
        // serde_json stops one level before MAX_DEPTH; the strict parser already checked depth.
        Err(e) if e.to_string().contains("recursion limit") => Ok(()),
        Err(e) => Err(ReadError {
            code: Code::ParseError,
            message: format!("the file is not valid json ({e})"),
            line: e.line().max(1),
            column: e.column().max(1),
        }),
    }
}

fn blank_out(bytes: &mut [u8], blanks: &[(usize, usize)]) {
    for &(a, z) in blanks {
        if let Some(slice) = bytes.get_mut(a..z) {
            for c in slice.iter_mut().filter(|c| **c != b'\n' && **c != b'\r') {
                *c = b' ';
            }
        }
    }
}

/// Structural equality where floats may differ by a few units in the last place: serde_json
/// (without `float_roundtrip`) is not always correctly rounded. Iterative, so any depth is fine.
pub(super) fn values_agree(a: &Value, b: &Value) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                for (k, va) in x {
                    match y.get(k) {
                        Some(vb) => stack.push((va, vb)),
                        None => return false,
                    }
                }
            }
            (Value::Array(x), Value::Array(y)) => {
                if x.len() != y.len() {
                    return false;
                }
                stack.extend(x.iter().zip(y.iter()));
            }
            (Value::Number(x), Value::Number(y)) if x.is_f64() && y.is_f64() => {
                let (Some(x), Some(y)) = (x.as_f64(), y.as_f64()) else {
                    return false;
                };
                let ordered = |f: f64| {
                    let bits = f.to_bits() as i64;
                    if bits < 0 { i64::MIN - bits } else { bits }
                };
                if ordered(x).abs_diff(ordered(y)) > 4 {
                    return false;
                }
            }
            (x, y) => {
                if x != y {
                    return false;
                }
            }
        }
    }
    true
}
