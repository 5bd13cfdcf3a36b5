//! What a server's tool definitions cost an agent's context, in tokens (`context_tokens`).
//!
//! Each tool is counted as a client hands it to the model: its `name`, `description` and
//! `inputSchema` (the function-calling APIs' name, description and parameters), written as
//! compact JSON in its RFC 8785 canonical form (the form `tool_digests` hash), and tokenized
//! with OpenAI's `o200k_base` byte-pair encoding. The vocabulary is compiled into the binary:
//! counting needs no network and no file. See `docs/probe.md` (*Context cost*) for what the
//! count leaves out and how it compares with the clients' own counts.

use std::sync::LazyLock;

use serde_json::{Map, Value};
use tiktoken::CoreBpe;

use super::jcs;

/// The encoding, built on first use from the vocabulary compiled into the binary.
static O200K_BASE: LazyLock<CoreBpe> = LazyLock::new(tiktoken::encoding::o200k_base);

/// The encoding the counts are in (the JSON output's `encoding`).
pub const TOKENIZER: &str = "o200k_base";

/// The parts of a tool object an agent's model receives.
const COUNTED: &[&str] = &["name", "description", "inputSchema"];

/// How many `o200k_base` tokens `text` is, special-token spellings (`<|endoftext|>`) counted
/// as the ordinary text they are in a tool definition.
///
/// ```
/// assert_eq!(mcpconf::probe::count_tokens("antidisestablishmentarianism"), 6);
/// ```
pub fn count_tokens(text: &str) -> usize {
    O200K_BASE.count(text)
}

/// The text counted for one tool: the canonical JSON of its `COUNTED` members.
///
/// ```
/// let tool = serde_json::json!({
///     "name": "echo",
///     "title": "Echo",
///     "inputSchema": {"type": "object"},
///     "description": "Echoes.",
/// });
/// assert_eq!(
///     mcpconf::probe::counted_text(&tool),
///     r#"{"description":"Echoes.","inputSchema":{"type":"object"},"name":"echo"}"#
/// );
/// ```
pub fn counted_text(tool: &Value) -> String {
    let mut m = Map::new();
    for k in COUNTED {
        if let Some(v) = tool.get(*k) {
            m.insert((*k).to_string(), v.clone());
        }
    }
    jcs::canonical(&Value::Object(m))
}

/// The tokens one tool definition costs (see [`counted_text`]).
pub(super) fn tool_tokens(tool: &Value) -> usize {
    count_tokens(&counted_text(tool))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_o200k_base_tokens_not_bytes_or_words() {
        // OpenAI's cookbook "How to count tokens with tiktoken" (its `compare_encodings`):
        // `ant|idis|est|ablishment|arian|ism` and `2| +| |2| =| |4` in o200k_base.
        assert_eq!(count_tokens("antidisestablishmentarianism"), 6);
        assert_eq!(count_tokens("2 + 2 = 4"), 7);
        assert_eq!(count_tokens(""), 0);
        // A special token's spelling is ordinary text here (not one token, not an error).
        assert!(count_tokens("<|endoftext|>") > 1);
    }

    #[test]
    fn only_the_model_facing_members_are_counted_whatever_the_spelling() {
        let a = serde_json::json!({
            "name": "t", "description": "D", "inputSchema": {"type": "object"},
            "title": "A long human-facing title", "annotations": {"readOnlyHint": true},
            "outputSchema": {"type": "object"}, "_meta": {"x": 1}, "icons": []
        });
        let b: Value = serde_json::from_str(
            "{ \"inputSchema\" : {\"type\":\"object\"},\n \"name\": \"t\", \"description\": \"\\u0044\" }",
        )
        .unwrap();
        assert_eq!(counted_text(&a), counted_text(&b));
        assert_eq!(tool_tokens(&a), tool_tokens(&b));
        assert_eq!(
            tool_tokens(&a),
            count_tokens(r#"{"description":"D","inputSchema":{"type":"object"},"name":"t"}"#)
        );
    }
}
