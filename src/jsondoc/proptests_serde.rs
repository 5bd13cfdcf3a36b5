//! The proof that stands in for a whole-file serde_json check when a file is read: every text
//! the strict parser accepts, in any syntax, serde_json accepts too (after comments and
//! trailing commas are blanked to spaces) and reads as the same value. The inputs aim at where
//! two JSON readers disagree: numbers (leading zeros, signs, exponents, range), escapes
//! (`\u`, surrogates, invalid letters), whitespace that is not JSON's (form feed, vertical
//! tab, NBSP, a BOM inside, U+2028), raw control characters, literals, comments and commas,
//! truncation, and nesting.

use super::agree::{cross_check, serde_accepts};
use super::api::*;
use super::parse::{Mode, parse_core, parse_only};
use super::proptests::{cfg, gen_doc, show};

use proptest::prelude::*;

/// Fragments of JSON and near-JSON.
const TOKENS: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\"a\"",
    "\"b\"",
    "\"\\u0061\"",
    "\"\\\"\"",
    "\"a\\/b\"",
    "0",
    "-0",
    "01",
    "-",
    "1.",
    ".5",
    "1.5",
    "1e",
    "1e+",
    "1E-2",
    "1e400",
    "-1e400",
    "1e-400",
    "+1",
    "12345678901234567890",
    "1234567890123456789012345678901234567890",
    "0x1",
    "1_0",
    "true",
    "false",
    "null",
    "tru",
    "nul",
    "True",
    "NaN",
    "Infinity",
    "-Infinity",
    "undefined",
    "\"\\u\"",
    "\"\\u12\"",
    "\"\\uD800\"",
    "\"\\uDC00\"",
    "\"\\ud83d\\ude00\"",
    "\"\\uD83D\\u0041\"",
    "\"\\x41\"",
    "\"\\'\"",
    "\"\\a\"",
    "\"\\U0041\"",
    "\"\\0\"",
    "'a'",
    "\"\t\"",
    "\"\n\"",
    "\"\u{7f}\"",
    "\"\u{1}\"",
    "\"é中😀\"",
    "\"\u{2028}\"",
    " ",
    "\n",
    "\r",
    "\t",
    "\r\n",
    "\u{c}",
    "\u{b}",
    "\u{a0}",
    "\u{feff}",
    "\u{2028}",
    "\u{0}",
    "//c\n",
    "// c",
    "/*c*/",
    "/* c",
    "*/",
    "/",
    "#c\n",
];

fn token_doc() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop::sample::select(TOKENS), 1..24).prop_map(|t| t.concat().into_bytes())
}

/// A generated document with a few fragments put in, taken out or put over its bytes.
fn mutated_doc() -> impl Strategy<Value = Vec<u8>> {
    (
        gen_doc(),
        prop::collection::vec(
            (
                any::<prop::sample::Index>(),
                0u8..3,
                prop::sample::select(TOKENS),
            ),
            1..4,
        ),
    )
        .prop_map(|((mut bytes, _f, _c), edits)| {
            for (i, op, tok) in edits {
                let at = if bytes.is_empty() {
                    0
                } else {
                    i.index(bytes.len())
                };
                match op {
                    0 => {
                        let end = (at + tok.len()).min(bytes.len());
                        bytes.drain(at..end);
                    }
                    1 => {
                        bytes.splice(at..at, tok.bytes());
                    }
                    _ => {
                        let end = (at + tok.len()).min(bytes.len());
                        bytes.splice(at..end, tok.bytes());
                    }
                }
            }
            bytes
        })
}

/// What the removed whole-file check would have refused, never happens: for each syntax, a text
/// that [`JsonDoc::parse`] (the validating pass) accepts is accepted by serde_json with the
/// same value, and the validating and building passes agree.
fn serde_agrees(bytes: &[u8]) -> Result<(), TestCaseError> {
    for s in [Syntax::Json, Syntax::JsonComments, Syntax::Jsonc] {
        let Ok(doc) = JsonDoc::parse(bytes, s) else {
            continue;
        };
        let text = doc.text();
        let built = parse_only(text, s);
        prop_assert!(
            built.is_ok(),
            "validated but not built ({:?}): {}",
            s,
            show(bytes)
        );
        let Ok(built) = built else { continue };
        prop_assert!(
            cross_check(text, &built).is_ok() && serde_accepts(text, &built.blanks).is_ok(),
            "{:?} accepts what serde_json refuses or reads differently: {}",
            s,
            show(bytes)
        );
        let validated = parse_core(text, s, Mode::VALIDATE);
        prop_assert_eq!(validated.map(|v| v.blanks).ok(), Some(built.blanks));
    }
    Ok(())
}

proptest! {
    #![proptest_config(cfg())]

    #[test]
    fn prop_accepted_tokens_are_serde_json(bytes in token_doc()) {
        serde_agrees(&bytes)?;
    }

    #[test]
    fn prop_accepted_token_objects_are_serde_json(bytes in token_doc()) {
        // Most token soups are not objects; an object around them is more often valid.
        let mut b = b"{\"k\":".to_vec();
        b.extend_from_slice(&bytes);
        b.push(b'}');
        serde_agrees(&b)?;
        let mut b = b"{\"k\":[".to_vec();
        b.extend_from_slice(&bytes);
        b.extend_from_slice(b"]}");
        serde_agrees(&b)?;
    }

    #[test]
    fn prop_accepted_mutations_are_serde_json(bytes in mutated_doc()) {
        serde_agrees(&bytes)?;
    }

    #[test]
    fn prop_accepted_random_bytes_are_serde_json(
        bytes in prop::collection::vec(prop::sample::select(b"{}[]\",:0123456789-+.eEtrufalsn \n\t\\u/*".to_vec()), 0..64),
    ) {
        serde_agrees(&bytes)?;
    }

    /// Nesting to the depth limit and past it: accepted only within the limit, and then by
    /// serde_json too (its own recursion limit aside, which the strict parser's is below).
    #[test]
    fn prop_deep_nesting_is_serde_json(depth in 1usize..200, arr in any::<bool>()) {
        let (o, c) = if arr { ("[", "]") } else { ("{\"a\":", "}") };
        let text = format!("{{\"x\":{}1{}}}", o.repeat(depth), c.repeat(depth));
        let ok = JsonDoc::parse(text.as_bytes(), Syntax::Json).is_ok();
        prop_assert_eq!(ok, depth < MAX_DEPTH);
        serde_agrees(text.as_bytes())?;
    }
}

/// The cases the whole-file check was there for, one by one: each is refused by the strict
/// parser itself, with a position.
#[test]
fn what_serde_json_refuses_is_refused_without_it() {
    for text in [
        "{\"a\":01}",
        "{\"a\":1.}",
        "{\"a\":.5}",
        "{\"a\":+1}",
        "{\"a\":1e400}",
        "{\"a\":-}",
        "{\"a\":\"\\uD800\"}",
        "{\"a\":\"\\uDC00x\"}",
        "{\"a\":\"\\x41\"}",
        "{\"a\":\"\u{1}\"}",
        "{\"a\":1}\u{c}",
        "{\"a\":1}\u{a0}",
        "{\u{b}\"a\":1}",
        "{\"a\":1}\u{feff}",
        "{\"a\":NaN}",
        "{\"a\":tru}",
        "{'a':1}",
        "{\"a\":1,}",
        "{\"a\":[1,]}",
        "{\"a\":1}//c",
        "{\"a\":1} x",
        "{\"a\":\"\\u12\"}",
        "{\"a\" 1}",
        "{\"a\":1 \"b\":2}",
    ] {
        assert!(
            serde_json::from_str::<serde_json::Value>(text).is_err(),
            "{text}"
        );
        let e = JsonDoc::parse(text.as_bytes(), Syntax::Json).err();
        assert!(
            e.as_ref().is_some_and(|e| e.line >= 1 && e.column >= 1),
            "{text}: {e:?}"
        );
    }
}

/// The validating pass's duplicate-key check (a shared list, then a hash set past 12 keys)
/// finds what the building pass's map finds: a duplicate spelled with an escape, on either
/// side of the threshold, after nested objects that opened and closed in between, and not
/// across sibling or nested objects.
#[test]
fn duplicate_keys_are_found_on_both_sides_of_the_hash_set() {
    for n in [1usize, 11, 12, 13, 40] {
        for dup_of in [0, n / 2, n - 1] {
            let mut members: Vec<String> = (0..n)
                .map(|i| format!("\"k{i}\": {{\"k{i}\": {{\"k0\": 1}}, \"x\": [{{\"k{i}\": 2}}]}}"))
                .collect();
            // `k<dup_of>` again, its `k` written as an escape.
            members.push(format!("\"\\u006b{dup_of}\": 0"));
            let text = format!("{{\"a\": {{{}}}, \"k0\": 1}}", members.join(", "));
            let v = parse_core(&text, Syntax::Json, Mode::VALIDATE).err();
            let b = parse_only(&text, Syntax::Json).err();
            assert_eq!(v, b, "{text}");
            let e = v.expect("a duplicate");
            assert_eq!(e.code.as_str(), "duplicate-key", "{text}");
            assert_eq!(
                e.message,
                format!(
                    "duplicate key \"k{dup_of}\" in an object (json readers keep only one of them)"
                )
            );
            // Without the duplicate the same shape is accepted by both.
            members.pop();
            let text = format!("{{\"a\": {{{}}}, \"k0\": 1}}", members.join(", "));
            assert!(
                parse_core(&text, Syntax::Json, Mode::VALIDATE).is_ok(),
                "{text}"
            );
            assert!(parse_only(&text, Syntax::Json).is_ok(), "{text}");
        }
    }
}
