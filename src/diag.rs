//! Diagnostics: what every layer reports when it refuses something, with a stable code and a
//! position.

/// A refusal to read a file, with a stable code and a 1-based position.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadError {
    /// Stable kebab-case code (`parse-error`, `duplicate-key`, …).
    pub code: &'static str,
    /// One sentence.
    pub message: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
}
