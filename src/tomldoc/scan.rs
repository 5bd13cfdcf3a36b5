//! The layout of a TOML text without building its document: one pass over `toml_parser`'s
//! tokens finds every table header (outside values: brackets after `=` open arrays and inline
//! tables, whose brackets are counted), its first two keys (decoded, so `["a"]` is `[a]`) and
//! where the comments and blank lines above it begin. Anything it does not expect (a bracket
//! where no header or value can be, an undecodable key) gives `None`, and the caller reads the
//! text whole, with `toml_edit`, for its error. Pure: no I/O.

use toml_parser::lexer::TokenKind;
use toml_parser::{Raw, Source};

use super::layout::Layout;

/// The layout of `text`, or `None` (see the module docs).
pub(super) fn scan(text: &str) -> Option<Layout> {
    let src = Source::new(text);
    let mut tokens = src.lex().peekable();
    // Room for every header at once, so that growing the sections copies nothing: no more
    // headers than lines that start with `[` (after blanks).
    let mut layout = Layout::default();
    layout.reserve(bracket_lines(text));
    // Brackets of values open; whether the line (outside values) holds more than comments;
    // whether nothing but whitespace came since the line began; whether the last token
    // outside values was `=`; where the comments and blank lines after the last line with
    // content begin.
    let (mut depth, mut content, mut line_start, mut after_eq, mut decor) =
        (0usize, false, true, false, 0usize);
    let key = |t: &toml_parser::lexer::Token| -> Option<String> {
        let span = t.span();
        let raw = Raw::new_unchecked(
            text.get(span.start()..span.end())?,
            t.kind().encoding(),
            span,
        );
        let mut out = String::new();
        let mut bad = false;
        raw.decode_key(&mut out, &mut |_| bad = true);
        (!bad).then_some(out)
    };
    while let Some(t) = tokens.next() {
        let kind = t.kind();
        match kind {
            TokenKind::Eof => break,
            TokenKind::Whitespace | TokenKind::Comment => continue,
            TokenKind::Newline => {
                if depth == 0 {
                    if content {
                        decor = t.span().end();
                    }
                    content = false;
                    line_start = true;
                }
                continue;
            }
            TokenKind::LeftSquareBracket if depth == 0 && line_start => {
                let header = t.span().start();
                let array = tokens
                    .peek()
                    .is_some_and(|n| n.kind() == TokenKind::LeftSquareBracket);
                if array {
                    tokens.next();
                }
                let mut keys: Vec<String> = Vec::new();
                let end = loop {
                    let mut k = tokens.next()?;
                    while k.kind() == TokenKind::Whitespace {
                        k = tokens.next()?;
                    }
                    match k.kind() {
                        TokenKind::Atom | TokenKind::BasicString | TokenKind::LiteralString => {
                            let decoded = key(&k)?;
                            if keys.len() < 2 {
                                keys.push(decoded);
                            }
                        }
                        _ => return None,
                    }
                    let mut s = tokens.next()?;
                    while s.kind() == TokenKind::Whitespace {
                        s = tokens.next()?;
                    }
                    match s.kind() {
                        TokenKind::Dot => {}
                        TokenKind::RightSquareBracket => break s.span().end(),
                        _ => return None,
                    }
                };
                if array {
                    let close = tokens.next()?;
                    if close.kind() != TokenKind::RightSquareBracket || close.span().start() != end
                    {
                        return None;
                    }
                }
                let top = keys.first()?;
                layout.push(top, keys.get(1).map(String::as_str), decor, header);
                content = true;
                line_start = false;
                after_eq = false;
                continue;
            }
            TokenKind::LeftSquareBracket | TokenKind::LeftCurlyBracket => {
                if depth == 0 && !after_eq {
                    return None;
                }
                depth += 1;
            }
            TokenKind::RightSquareBracket | TokenKind::RightCurlyBracket => {
                depth = depth.checked_sub(1)?;
            }
            _ => {}
        }
        content = true;
        line_start = false;
        after_eq = depth == 0 && kind == TokenKind::Equals;
    }
    if depth != 0 {
        return None;
    }
    let tail = if content { text.len() } else { decor };
    layout.finish(tail, text.len())
}

/// How many lines of `text` start with `[` after spaces and tabs (at least as many as it has
/// table headers).
fn bracket_lines(text: &str) -> usize {
    text.split('\n')
        .filter(|l| l.trim_start_matches([' ', '\t']).starts_with('['))
        .count()
}
