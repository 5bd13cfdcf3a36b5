//! Server-sent events: the `text/event-stream` framing that streamable HTTP answers may use.

use std::io::BufRead;

use super::MAX_LINE;
use super::session::{LineError, read_line_capped};

/// One dispatched event (only events with at least one `data:` line are dispatched).
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Event {
    /// The `event:` field (`message` when absent, as the SSE specification says).
    pub(super) name: String,
    /// The `data:` lines joined with `\n`.
    pub(super) data: Vec<u8>,
}

/// Why no event could be read.
#[derive(Debug)]
pub(super) enum EventError {
    /// An event (a line, or the data of one event) is longer than [`MAX_LINE`].
    TooLong,
    /// Reading failed.
    Io(std::io::Error),
}

/// Read the next event; `None` at the end of the stream.
pub(super) fn next_event(r: &mut impl BufRead) -> Result<Option<Event>, EventError> {
    let mut data: Vec<u8> = Vec::new();
    let mut name = String::new();
    let mut has_data = false;
    loop {
        let line = match read_line_capped(r, MAX_LINE) {
            Ok(Some(l)) => l,
            Ok(None) => return Ok(None),
            Err(LineError::TooLong) => return Err(EventError::TooLong),
            Err(LineError::Io(e)) => return Err(EventError::Io(e)),
        };
        let line = line.strip_suffix(b"\r").unwrap_or(&line);
        if line.is_empty() {
            if has_data {
                if name.is_empty() {
                    name.push_str("message");
                }
                return Ok(Some(Event { name, data }));
            }
            name.clear();
            continue;
        }
        if line.starts_with(b":") {
            continue;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(b" ").unwrap_or(v))
            }
            None => (line, &[][..]),
        };
        match field {
            b"data" => {
                if has_data {
                    data.push(b'\n');
                }
                if data.len() + value.len() > MAX_LINE {
                    return Err(EventError::TooLong);
                }
                data.extend_from_slice(value);
                has_data = true;
            }
            b"event" => name = String::from_utf8_lossy(value).into_owned(),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_framed() {
        let mut r = std::io::Cursor::new(
            b": comment\r\nevent: endpoint\r\ndata: /messages?s=1\r\n\r\nid: 3\ndata: {\"a\":\ndata: 1}\n\nevent: x\n\ndata: tail".to_vec(),
        );
        assert_eq!(
            next_event(&mut r).unwrap(),
            Some(Event {
                name: "endpoint".into(),
                data: b"/messages?s=1".to_vec()
            })
        );
        assert_eq!(
            next_event(&mut r).unwrap(),
            Some(Event {
                name: "message".into(),
                data: b"{\"a\":\n1}".to_vec()
            })
        );
        // An event without data is not dispatched, and an unterminated one is not either.
        assert_eq!(next_event(&mut r).unwrap(), None);
    }
}
