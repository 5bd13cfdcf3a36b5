//! `context_tokens` (issue 43): what each server's tool definitions cost an agent's context,
//! counted with `o200k_base` over the canonical JSON of each tool's `name`, `description` and
//! `inputSchema`; pinned-out tools not counted; the total and the profile in both outputs.

use super::cli::Cli;
use super::*;

/// The texts the probe must count, written out by hand in RFC 8785 form (members sorted, no
/// whitespace, `\n` escaped), with only the members a model gets.
const LOOKUP: &str = r#"{"description":"Finds   the term\n in the index.","inputSchema":{"properties":{"term":{"description":"Wörter, 東京 or 🚀","type":"string"}},"required":["term"],"type":"object"},"name":"lookup"}"#;
const PING: &str = r#"{"inputSchema":{"type":"object"},"name":"ping"}"#;
const SEARCH: &str = r#"{"description":"Search.","inputSchema":{"properties":{"q":{"type":"string"}},"type":"object"},"name":"search"}"#;
const FETCH: &str = r#"{"description":"Fetch.","inputSchema":{"type":"object"},"name":"fetch"}"#;

fn tokens(text: &str) -> u64 {
    probe::count_tokens(text) as u64
}

#[test]
fn the_tokenizer_is_o200k_base() {
    // Known counts, so that wiring in another encoding (or bytes, or words) fails here:
    // OpenAI's cookbook gives 6 and 7 tokens in o200k_base (5 and 5 in r50k_base), and the
    // shortest tool definition is 13 tokens (47 bytes, 1 word).
    assert_eq!(probe::TOKENIZER, "o200k_base");
    assert_eq!(probe::count_tokens("antidisestablishmentarianism"), 6);
    assert_eq!(probe::count_tokens("2 + 2 = 4"), 7);
    assert_eq!(probe::count_tokens(PING), 13);
}

#[test]
fn each_server_counts_what_reaches_the_agent_and_pinned_out_tools_do_not() {
    let f = Fakes::new();
    let m = probe_manifest(&format!(
        "{}{}{}",
        f.server("decorated", "decorated", Some(&["lookup"])),
        f.server("described", "described", None),
        f.server("broken", "exit", None)
    ));
    let out = probe_with(&m, 60.0, &[]);
    let (decorated, described, broken) = (&out[0], &out[1], &out[2]);
    assert!(decorated.ok && described.ok, "{out:?}");
    // Title, annotations, outputSchema, _meta and icons are the client's, not the model's;
    // the server's member order and whitespace do not matter.
    assert_eq!(decorated.context_by_tool["lookup"], tokens(LOOKUP));
    assert_eq!(decorated.context_by_tool["ping"], tokens(PING));
    // `ping` is outside the pin: a client that honours the pin never gives it to the agent.
    assert_eq!(decorated.unpinned, ["ping"]);
    assert_eq!(decorated.context_tokens, Some(tokens(LOOKUP)));
    assert_eq!(
        decorated.context_tokens_all,
        Some(tokens(LOOKUP) + tokens(PING))
    );
    // Without a pin every tool reaches the agent.
    let both = tokens(SEARCH) + tokens(FETCH);
    assert_eq!(described.context_tokens, Some(both));
    assert_eq!(described.context_tokens_all, Some(both));
    // A server whose tools were never listed has no count, and adds nothing to the total.
    assert_eq!(broken.context_tokens, None);
    assert!(broken.context_by_tool.is_empty());
    assert_eq!(probe::context_total(&out), tokens(LOOKUP) + both);
    for name in ["decorated", "described", "broken"] {
        f.assert_gone(name);
    }
}

fn decorated_manifest(f: &Fakes) -> String {
    format!(
        "{}{}{}[profiles.one]\nservers = [\"decorated\"]\n[profiles.two]\nservers = [\"described\"]\n",
        f.server("decorated", "decorated", Some(&["lookup"])),
        f.server("described", "described", None),
        f.server("broken", "exit", None)
    )
}

#[test]
fn json_and_text_give_each_server_its_count_and_the_total() {
    let cli = Cli::new(decorated_manifest);
    let (code, out, err) = cli.run(&["--format", "json"]);
    assert_eq!(code, 1, "{out}{err}");
    let v: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(v["encoding"], "o200k_base");
    assert!(v.get("profile").is_none(), "{v}");
    let servers = v["servers"].as_array().expect("servers");
    let field = |i: usize, k: &str| servers[i][k].clone();
    assert_eq!(field(0, "context_tokens"), json!(tokens(LOOKUP)));
    assert_eq!(
        field(0, "context_tokens_all"),
        json!(tokens(LOOKUP) + tokens(PING))
    );
    assert_eq!(
        field(0, "context_by_tool"),
        json!({"lookup": tokens(LOOKUP), "ping": tokens(PING)})
    );
    let both = tokens(SEARCH) + tokens(FETCH);
    assert_eq!(field(1, "context_tokens"), json!(both));
    // The field is there for every server, `null` when the tools were never listed.
    assert_eq!(servers[2].get("context_tokens"), Some(&Value::Null));
    let total = tokens(LOOKUP) + both;
    assert_eq!(v["context_tokens_total"], json!(total));

    let (_, text, _) = cli.run(&[]);
    let header = text.lines().next().expect("table");
    assert!(header.contains("TOOLS  TOKENS"), "{text}");
    let row = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row for {name}: {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    // SERVER RESULT PROTOCOL IMPLEMENTATION(name version) TOOLS TOKENS …
    assert_eq!(row("decorated")[6], tokens(LOOKUP).to_string(), "{text}");
    assert_eq!(row("described")[6], both.to_string(), "{text}");
    assert!(
        text.contains(&format!(
            "Tool definitions: {total} tokens of an agent's context (o200k_base), 2 of 3 servers"
        )),
        "{text}"
    );
}

#[test]
fn with_a_profile_the_total_is_that_profiles_cost() {
    let cli = Cli::new(decorated_manifest);
    // `one`: its server and the servers of no profile (`broken`), not `described`.
    let (_, out, err) = cli.run(&["--format", "json", "--profile", "one"]);
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}{err}"));
    assert_eq!(v["profile"], "one");
    let names: Vec<&str> = v["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(names, ["decorated", "broken"]);
    assert_eq!(v["context_tokens_total"], json!(tokens(LOOKUP)));
    let (_, text, _) = cli.run(&["--profile", "two"]);
    let both = tokens(SEARCH) + tokens(FETCH);
    assert!(
        text.contains(&format!(
            "Tool definitions: {both} tokens of an agent's context (o200k_base), 1 of 2 servers (the others failed before listing their tools), profile `two`"
        )),
        "{text}"
    );
}
