//! An incremental `text/event-stream` parser, following the WHATWG HTML "server-sent events"
//! processing model.
//!
//! We parse the stream ourselves rather than through `sse-stream` because a legacy SSE session
//! cannot be resumed, so whatever the parser does with odd input decides whether a whole session
//! survives. `sse-stream` treats unknown field names and lines without a colon as errors (the
//! spec says to ignore them), drops the rest of the chunk after such an error (which can swallow
//! the response a caller is waiting for), and holds an event of any size in memory. This parser
//! ignores what the spec says to ignore and refuses an event once it grows past a limit.
//!
//! Only `event` and `data` matter here: `id` and `retry` serve reconnection, which the legacy
//! transport does not do.

/// One dispatched event: its type (`None` when the server gave none) and its data lines joined
/// with `\n`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    pub(crate) event: Option<String>,
    pub(crate) data: String,
}

/// An event, or an unfinished line, grew past the parser's limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("an SSE event exceeded the limit of {limit} bytes")]
pub(crate) struct EventTooLarge {
    pub(crate) limit: usize,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// Feeds on arbitrary chunks of the body: lines, UTF-8 sequences and CRLF pairs may all be split
/// across chunks.
#[derive(Debug)]
pub(crate) struct SseParser {
    /// The bytes of the line not yet terminated.
    line: Vec<u8>,
    /// The previous chunk ended in `\r`, so a leading `\n` in the next one belongs to it.
    after_cr: bool,
    /// Whether the first line (which may start with a byte order mark) has been seen.
    started: bool,
    event: Option<String>,
    /// Data lines so far, each followed by `\n` as the spec's data buffer is.
    data: String,
    max_event_size: usize,
}

impl SseParser {
    pub(crate) fn new(max_event_size: usize) -> Self {
        Self {
            line: Vec::new(),
            after_cr: false,
            started: false,
            event: None,
            data: String::new(),
            max_event_size,
        }
    }

    /// Consumes one chunk of the body and returns the events it completed, in order.
    pub(crate) fn push(&mut self, mut chunk: &[u8]) -> Result<Vec<SseEvent>, EventTooLarge> {
        let mut events = Vec::new();
        if chunk.is_empty() {
            return Ok(events);
        }
        if std::mem::take(&mut self.after_cr)
            && let Some(rest) = chunk.strip_prefix(b"\n")
        {
            chunk = rest;
        }
        while let Some(end) = chunk.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&chunk[..end]);
            self.check_size()?;
            let line = std::mem::take(&mut self.line);
            self.process_line(&line, &mut events);
            self.line = line;
            self.line.clear();

            let was_cr = chunk[end] == b'\r';
            chunk = &chunk[end + 1..];
            if was_cr {
                match chunk.first() {
                    Some(b'\n') => chunk = &chunk[1..],
                    None => self.after_cr = true,
                    Some(_) => {}
                }
            }
        }
        self.line.extend_from_slice(chunk);
        self.check_size()?;
        Ok(events)
    }

    fn check_size(&self) -> Result<(), EventTooLarge> {
        if self.line.len().saturating_add(self.data.len()) > self.max_event_size {
            Err(EventTooLarge {
                limit: self.max_event_size,
            })
        } else {
            Ok(())
        }
    }

    fn process_line(&mut self, mut line: &[u8], events: &mut Vec<SseEvent>) {
        if !self.started {
            self.started = true;
            line = line.strip_prefix(BOM).unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        let (field, value) = match line.iter().position(|&b| b == b':') {
            Some(0) => return, // a comment, often a keep-alive
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        match field {
            b"event" => self.event = Some(String::from_utf8_lossy(value).into_owned()),
            b"data" => {
                self.data.push_str(&String::from_utf8_lossy(value));
                self.data.push('\n');
            }
            _ => {} // `id`, `retry` and unknown fields
        }
    }

    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if self.data.is_empty() {
            return; // the spec dispatches nothing for an event without data
        }
        let mut data = std::mem::take(&mut self.data);
        data.pop(); // the `\n` after the last data line
        events.push(SseEvent { event, data });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: name.map(str::to_owned),
            data: data.to_owned(),
        }
    }

    fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
        let mut parser = SseParser::new(1024);
        chunks
            .iter()
            .flat_map(|chunk| parser.push(chunk).unwrap())
            .collect()
    }

    #[test]
    fn parses_named_and_unnamed_events() {
        let events = parse_all(&[b"event: endpoint\ndata: /m?s=1\n\ndata: {}\n\n"]);
        assert_eq!(
            events,
            vec![event(Some("endpoint"), "/m?s=1"), event(None, "{}")]
        );
    }

    #[test]
    fn joins_data_lines_and_keeps_spaces_after_the_first() {
        let events = parse_all(&[b"data:a\ndata:  b\ndata\n\n"]);
        assert_eq!(events, vec![event(None, "a\n b\n")]);
    }

    #[test]
    fn handles_lines_and_line_endings_split_across_chunks() {
        let events = parse_all(&[
            b"eve",
            b"nt: message\r",
            b"\ndata: {\"a\"",
            b":1}\r\r\n",
            b"\n",
        ]);
        assert_eq!(events, vec![event(Some("message"), "{\"a\":1}")]);
    }

    #[test]
    fn lone_cr_ends_a_line() {
        let events = parse_all(&[b"data: x\r\rdata: y\r", b"\r"]);
        assert_eq!(events, vec![event(None, "x"), event(None, "y")]);
    }

    #[test]
    fn ignores_comments_unknown_fields_bare_lines_and_bom() {
        let events = parse_all(&[
            b"\xEF\xBB\xBF: keep-alive\nid: 7\nretry: soon\nfoo: bar\nbare\ndata: ok\n\n",
        ]);
        assert_eq!(events, vec![event(None, "ok")]);
    }

    #[test]
    fn utf8_split_across_chunks_survives() {
        let text = "data: héllo\n\n".as_bytes();
        let (a, b) = text.split_at(8); // inside the two bytes of 'é'
        assert_eq!(parse_all(&[a, b]), vec![event(None, "héllo")]);
    }

    #[test]
    fn events_without_data_are_not_dispatched_and_reset_the_type() {
        let events = parse_all(&[b"event: ping\n\ndata: x\n\n"]);
        assert_eq!(events, vec![event(None, "x")]);
    }

    #[test]
    fn unterminated_event_at_end_is_not_dispatched() {
        assert!(parse_all(&[b"data: partial\n"]).is_empty());
    }

    #[test]
    fn refuses_an_event_past_the_limit() {
        let mut parser = SseParser::new(12);
        assert_eq!(parser.push(b"data: 1234\n").unwrap(), vec![]);
        assert_eq!(parser.push(b"data: 56"), Err(EventTooLarge { limit: 12 }));
    }

    #[test]
    fn limit_applies_per_event() {
        let mut parser = SseParser::new(12);
        let events = parser
            .push(b": ping\ndata: 1234\n\ndata: 5678\n\n")
            .unwrap();
        assert_eq!(events, vec![event(None, "1234"), event(None, "5678")]);
    }
}
