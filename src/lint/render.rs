//! Lint output as strings: text with code frames, the contract's JSON, SARIF 2.1.0 and GitHub
//! workflow commands. Lines of files shown in code frames were redacted when the findings were
//! made; the command layer passes the whole output through the report's redactor as well.

use std::fmt::Write;
use std::path::Path;

use serde_json::{Value, json};

use super::{Finding, LintReport, RULES, Severity};

fn paint(color: bool, code: &str, s: &str) -> String {
    if color {
        format!("\x1b[{code}m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

/// Text for people: findings grouped by file, each with a code frame and a caret at its
/// column, then a summary line.
pub fn text(report: &LintReport, color: bool) -> String {
    let mut out = String::new();
    let mut current: Option<&str> = None;
    for f in &report.findings {
        if current != Some(f.path.as_str()) {
            if current.is_some() {
                out.push('\n');
            }
            let _ = writeln!(out, "{}", paint(color, "1;4", &f.path));
            current = Some(&f.path);
        }
        let (label, code) = match f.severity {
            Severity::Error => ("error", "1;31"),
            _ => ("warning", "1;33"),
        };
        let _ = writeln!(
            out,
            "{}: {}",
            paint(color, code, &format!("{label}[{}]", f.rule)),
            f.message
        );
        let _ = writeln!(
            out,
            "  {} {}:{}:{}",
            paint(color, "34", "-->"),
            f.path,
            f.line,
            f.column
        );
        if let Some(line) = &f.source_line {
            frame(&mut out, f, line, color);
        }
    }
    let errors = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = report.findings.len() - errors;
    let files: std::collections::BTreeSet<&str> =
        report.findings.iter().map(|f| f.path.as_str()).collect();
    if !report.findings.is_empty() {
        out.push('\n');
    }
    let checked = report.files.len();
    if report.findings.is_empty() {
        let _ = writeln!(
            out,
            "No problems found in {checked} file{}.",
            plural(checked)
        );
    } else {
        let _ = writeln!(
            out,
            "Found {errors} error{}, {warnings} warning{} in {} file{} ({checked} checked).",
            plural(errors),
            plural(warnings),
            files.len(),
            plural(files.len()),
        );
    }
    out
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A code frame: the (already redacted) line and a caret under the column.
fn frame(out: &mut String, f: &Finding, line: &str, color: bool) {
    const MAX: usize = 200;
    let chars: Vec<char> = line.chars().collect();
    let col = f.source_column.saturating_sub(1).min(chars.len());
    // Long lines (minified files) are cut around the column.
    let start = col.saturating_sub(MAX / 2);
    let end = (start + MAX).min(chars.len());
    let before: String = chars[start..col].iter().collect();
    let rest: String = chars[col..end].iter().collect();
    let shown = format!("{before}{rest}");
    let shown = shown.trim_end();
    let lead = if start > 0 { "…" } else { "" };
    let caret_pad: String = format!("{lead}{before}")
        .chars()
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    let n = f.line.to_string();
    let gutter = " ".repeat(n.len());
    let bar = paint(color, "34", "|");
    let _ = writeln!(out, "  {gutter} {bar}");
    let _ = writeln!(out, "  {} {bar} {lead}{shown}", paint(color, "34", &n));
    let _ = writeln!(
        out,
        "  {gutter} {bar} {caret_pad}{}",
        paint(
            color,
            if f.severity == Severity::Error {
                "1;31"
            } else {
                "1;33"
            },
            "^"
        )
    );
}

/// The contract's JSON: `{"findings":[{"rule","severity","path","line","column","message"}]}`.
pub fn json(report: &LintReport) -> String {
    let mut s =
        serde_json::to_string_pretty(&json!({ "findings": report.findings })).unwrap_or_default();
    s.push('\n');
    s
}

/// `path` relative to `root` when it is inside it (with `/` separators), else `None`.
fn relative(path: &str, root: &Path) -> Option<String> {
    let p = Path::new(path);
    if p.is_relative() {
        return Some(path.trim_start_matches("./").to_string());
    }
    p.strip_prefix(root)
        .ok()
        .map(|r| r.to_string_lossy().into_owned())
}

/// Percent-encode a path for a URI (RFC 3986 unreserved characters and `/` kept).
fn uri_path(p: &str) -> String {
    let mut out = String::new();
    for b in p.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Off => "none",
    }
}

/// SARIF 2.1.0, one run, with every rule's metadata and help, so that GitHub code scanning
/// shows the rule's page beside each result. Paths inside `root` are relative to `%SRCROOT%`.
pub fn sarif(report: &LintReport, root: &Path) -> String {
    let rules: Vec<Value> = RULES
        .iter()
        .map(|r| {
            json!({
                "id": r.id,
                "name": r.id,
                "shortDescription": { "text": r.summary },
                "fullDescription": { "text": r.summary },
                "help": { "text": r.help, "markdown": r.help },
                "defaultConfiguration": { "level": level(r.default) },
                "properties": {
                    "tags": ["mcp", "configuration"],
                    "problem.severity": level(r.default),
                },
            })
        })
        .collect();
    let results: Vec<Value> = report
        .findings
        .iter()
        .map(|f| {
            let index = RULES.iter().position(|r| r.id == f.rule).unwrap_or(0);
            let artifact = match relative(&f.path, root) {
                Some(rel) => json!({ "uri": uri_path(&rel), "uriBaseId": "%SRCROOT%" }),
                None => json!({ "uri": format!("file://{}", uri_path(&f.path)) }),
            };
            json!({
                "ruleId": f.rule,
                "ruleIndex": index,
                "level": level(f.severity),
                "message": { "text": f.message },
                "locations": [{
                    "physicalLocation": {
                        "artifactLocation": artifact,
                        "region": { "startLine": f.line, "startColumn": f.column },
                    }
                }],
            })
        })
        .collect();
    let mut root_uri = format!("file://{}", uri_path(&root.to_string_lossy()));
    if !root_uri.ends_with('/') {
        root_uri.push('/');
    }
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "mcpconf",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "originalUriBaseIds": { "%SRCROOT%": { "uri": root_uri } },
            "results": results,
            "columnKind": "unicodeCodePoints",
        }],
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
    s.push('\n');
    s
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub Actions workflow commands: `::error file=…,line=…,col=…,title=…::message`.
pub fn github(report: &LintReport, root: &Path) -> String {
    let mut out = String::new();
    for f in &report.findings {
        let kind = if f.severity == Severity::Error {
            "error"
        } else {
            "warning"
        };
        let path = relative(&f.path, root).unwrap_or_else(|| f.path.clone());
        let _ = writeln!(
            out,
            "::{kind} file={},line={},col={},title={}::{}",
            escape_property(&path),
            f.line,
            f.column,
            escape_property(&format!("mcpconf {}", f.rule)),
            escape_data(&f.message)
        );
    }
    out
}
