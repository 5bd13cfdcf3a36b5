//! `examples/embed.rs`, the embedder's walk through the library, runs and does what it says:
//! the planned file is written with the declared server and the ledger reports it intact.

#[allow(dead_code)] // its `main` is for `cargo run --example embed`
#[path = "../../examples/embed.rs"]
mod example;

#[test]
fn the_embed_example_plans_applies_and_reads_status() {
    let dir = tempfile::tempdir().unwrap();
    let records = example::run(dir.path()).unwrap();
    let file = dir.path().join("project/.cursor/mcp.json");
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(doc["mcpServers"]["browser"]["command"], "agent-browser");
    assert_eq!(
        doc["mcpServers"]["browser"]["env"]["TOKEN"],
        "${env:BROWSER_TOKEN}"
    );
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].server, "browser");
    assert_eq!(records[0].state, "intact");
    assert_eq!(records[0].path, file.display().to_string());
    // A second run changes nothing and still owns the entry.
    let before = std::fs::read(&file).unwrap();
    let again = example::run(dir.path()).unwrap();
    assert_eq!(std::fs::read(&file).unwrap(), before);
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].state, "intact");
}
