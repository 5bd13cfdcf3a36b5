//! Property tests of the read-only document (`lint`) against the editing one: the same
//! values, refusals and errors on generated, mutated, random and wide documents.

use super::api::*;
use super::proptests::{Rng, cfg, gen_doc, show};

use proptest::prelude::*;
use serde_json::Value;

/// [`super::ReadDoc`] decides exactly like [`JsonDoc::parse_for_reading`] (same error: code,
/// message, position), reads the same value, and finds every member of every object (at any
/// depth, not through arrays) where [`JsonDoc`] does.
fn read_doc_agrees(bytes: &[u8]) -> Result<(), TestCaseError> {
    for s in [Syntax::Json, Syntax::JsonComments, Syntax::Jsonc] {
        let r = super::ReadDoc::parse(bytes.to_vec(), s);
        let j = JsonDoc::parse_for_reading(bytes.to_vec(), s);
        match (&r, &j) {
            (Ok(r), Ok(j)) => {
                prop_assert_eq!(r.root(), &j.value());
                prop_assert_eq!(r.text(), j.text());
                let mut stack: Vec<(Vec<String>, &Value)> = vec![(Vec::new(), r.root())];
                while let Some((path, v)) = stack.pop() {
                    let Value::Object(m) = v else { continue };
                    for (k, x) in m {
                        let mut p = path.clone();
                        p.push(k.clone());
                        let at = r.key_offset(&p).map(|o| line_col(r.text(), o));
                        prop_assert_eq!(at, j.location(&p), "{:?}", p);
                        prop_assert!(at.is_some());
                        prop_assert_eq!(r.value_span(&p), j.value_span(&p), "{:?}", p);
                        stack.push((p, x));
                    }
                    // A key that is not there.
                    let mut p = path.clone();
                    p.push("\u{0}absent".into());
                    prop_assert_eq!(r.key_offset(&p), None);
                }
            }
            (Err(x), Err(y)) => prop_assert_eq!(x, y),
            _ => prop_assert!(
                false,
                "read {:?} but parse_for_reading {:?}: {}",
                r.as_ref().err(),
                j.as_ref().err(),
                show(bytes)
            ),
        }
    }
    Ok(())
}

/// An object with `n` members (more than the linear search of [`super::ReadDoc`] covers),
/// keys in shuffled order, some nested.
fn wide_doc() -> impl Strategy<Value = Vec<u8>> {
    (17usize..80, any::<u64>()).prop_map(|(n, seed)| {
        let mut rng = Rng(seed | 1);
        let mut keys: Vec<String> = (0..n).map(|i| format!("k{}", i * 7919 % 1000)).collect();
        keys.dedup();
        for i in (1..keys.len()).rev() {
            let j = (rng.next() % (i as u64 + 1)) as usize;
            keys.swap(i, j);
        }
        let members: Vec<String> = keys
            .iter()
            .map(|k| {
                if rng.chance(3) {
                    format!("\"{k}\": {{\"a\": [1, {{\"{k}\": true}}], \"b\": \"x\"}}")
                } else {
                    format!("\"{k}\": {}", rng.next() % 100)
                }
            })
            .collect();
        format!("{{\"top\": {{\n{}\n}}, \"z\": null}}", members.join(",\n")).into_bytes()
    })
}

proptest! {
    #![proptest_config(cfg())]

    /// The read-only document agrees with the editing one on generated documents.
    #[test]
    fn prop_read_doc_agrees((bytes, _f, _c) in gen_doc()) {
        read_doc_agrees(&bytes)?;
    }

    /// … on mutated (mostly invalid) ones: the same refusals and errors.
    #[test]
    fn prop_read_doc_agrees_mutated(
        (bytes, _f, _c) in gen_doc(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..3, any::<u8>()), 1..4),
        pick in prop::sample::select(vec![b'{', b'}', b'[', b']', b'"', b'\\', b',', b':', b'/', b'*', b'\n', b'\r', b' ', b'0', b'e', b'.', b'-', b'+', 0u8, 0xff]),
    ) {
        let mut bytes = bytes;
        for (i, op, byte) in edits {
            let b = if byte % 2 == 0 { pick } else { byte };
            let at = if bytes.is_empty() { 0 } else { i.index(bytes.len()) };
            match op {
                0 if !bytes.is_empty() => { bytes.remove(at); }
                1 => bytes.insert(at, b),
                _ if !bytes.is_empty() => bytes[at] = b,
                _ => {}
            }
        }
        read_doc_agrees(&bytes)?;
    }

    /// … on arbitrary bytes.
    #[test]
    fn prop_read_doc_agrees_random(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        read_doc_agrees(&bytes)?;
    }

    /// … on objects wide enough to be looked up through the sorted index.
    #[test]
    fn prop_read_doc_agrees_wide(bytes in wide_doc()) {
        read_doc_agrees(&bytes)?;
    }
}
