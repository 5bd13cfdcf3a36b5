//! Byte-preserving reading and editing of JSON / JSONC agent config files.
//!
//! # What this module owns
//!
//! * **Reading, fail closed.** [`JsonDoc::parse`] runs a small, strict, *iterative* (never recursive)
//!   parser written for this module. It accepts exactly RFC 8259 JSON plus, depending on [`Syntax`],
//!   `//` / `/* */` comments and trailing commas. Everything else (single quotes, unquoted keys, hex,
//!   `+1`, `.5`, `NaN`, lone surrogates, raw control characters, trailing data, …) is refused with a
//!   stable [`ReadError::code`] and the 1-based line/column of the offending token. It also refuses
//!   duplicate keys at any depth (JSON readers silently keep one of them), nesting deeper than
//!   [`MAX_DEPTH`], and a root that is not an object. A leading UTF-8 BOM is accepted and re-emitted.
//!   Every text it accepts, `serde_json` accepts too with the same value (after comments and trailing
//!   commas are blanked to spaces, which keeps all offsets): the property tests prove it on generated,
//!   mutated and token-soup documents, and each edit is cross-checked by `serde_json` on the object it
//!   changes (below), so reading does not parse the whole file a second time.
//! * **Editing by splicing.** The parser records the byte span of every object, key, value and comma.
//!   [`JsonDoc::upsert`] and [`JsonDoc::remove`] compute a few `(range, replacement)` splices from those
//!   spans, so only the bytes of the entry being changed (plus, at most, one separator comma) differ
//!   afterwards. Comments, key order, number spellings, string escapes, indentation, line endings and
//!   the BOM of everything else stay byte-for-byte. New text follows the file's style: indentation unit,
//!   newline kind, `":"` spacing, trailing-comma use, and one-line vs multi-line layout of the object.
//! * **Exact undo.** An upsert that creates containers or fills an empty object returns [`UndoHint`]s
//!   (structure and whitespace only, never values) so that the matching [`JsonDoc::remove`] restores the
//!   original bytes exactly.
//! * **Verification.** After every edit the new text is re-parsed with the same [`Syntax`] and its value
//!   must equal the old value with exactly the intended change (compared in place, without cloning the
//!   root), and the serde_json cross-check must pass; otherwise the edit is refused with
//!   `internal-edit-error` and the document is left untouched.
//!
//! # Numbers
//!
//! Floats are read with Rust's correctly rounded parser (what `JSON.parse` gives the agent apps), so a
//! float written by an upsert (shortest round-trip spelling) always reads back identically. serde_json
//! without `float_roundtrip` can be one ulp off; the cross-check tolerates a few ulps for that reason.
//! A number outside the `f64` range (`1e400`) is refused as `parse-error`.
//!
//! # What it must never do
//!
//! No I/O, no panics (no `unwrap`, no unchecked indexing on input-derived positions), no unbounded
//! recursion on input, and no reformatting of bytes the user wrote.
//!
//! # Layout of the module
//!
//! * `api` — the public types ([`JsonDoc`], [`Syntax`], [`ReadError`], [`EditError`],
//!   [`UndoHint`]) and the read-only queries.
//! * `parse` — the strict validating/building parser; knows nothing about edits.
//! * `read` — [`ReadDoc`], a document that is only read (`lint`): one pass builds the value
//!   and the spans of every object.
//! * `wide` — the validating pass's string scan, 64 bytes at a time (SSE2 on x86_64).
//! * `scan` — fast walks over already validated text (member spans, skipping values); knows
//!   nothing about edits either.
//! * `layout` — the file's style (indentation, newlines, one-line vs multi-line) and the writer
//!   of new text in that style.
//! * `edit` — [`JsonDoc::upsert`] and [`JsonDoc::remove`]: they plan splices and hand them to
//!   `verify`, the only place that turns splices into a new text, so every edit is proven.
//! * `verify` — applies splices and proves the result.
//! * `proxy` — the proof of an edit of a big object on a stand-in of it (its big untouched
//!   values replaced), whose result is the new text of the range the edit covers.
//! * `view` — what an edit reads (an edited object's new text, an object of the bytes read,
//!   a skeleton of the root, or the whole text) and how its result becomes a part over the
//!   bytes read, so that no edit of a big file builds the whole of it.
//! * `array` — splice edits of string elements in an array (Kiro agent grants).

mod agree;
mod api;
pub mod array;
mod batch;
mod edit;
mod layout;
mod parse;
mod proxy;
mod read;
mod scan;
mod verify;
mod view;
mod wide;

#[cfg(test)]
pub(crate) mod proptests;
#[cfg(test)]
mod proptests_read;
#[cfg(test)]
mod proptests_serde;
#[cfg(test)]
mod tests;

pub use api::{EditError, JsonDoc, MAX_DEPTH, ReadError, Syntax, UndoHint};
pub use read::ReadDoc;
pub use scan::string_members;
pub use verify::SERDE_WHOLE_FILE;
