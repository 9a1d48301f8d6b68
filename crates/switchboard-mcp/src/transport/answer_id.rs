//! The id of an answer that cannot be read whole: a line too long to take, or JSON that does
//! not parse (invalid UTF-8, nesting deeper than the parser goes). Without it the request the
//! answer was for would wait for its whole timeout; with it the request fails at once, saying
//! why.
//!
//! Only the top level of the object is looked at, and only as far as the text goes: `id` must
//! be there with `result` or `error` beside it, and no `method` (a request or notification of
//! the server's own has its ids in another numbering, and must never end one of ours).

use rmcp::model::{NumberOrString, RequestId};

/// The id of the answer `text` begins, when its top level says it is one.
pub(crate) fn answer_id(text: &[u8]) -> Option<RequestId> {
    let mut keys = TopLevelKeys::new(text)?;
    let mut id = None;
    let mut answer = false;
    while let Some(key) = keys.next_key() {
        match key {
            b"id" => id = Some(keys.value_as_id()?),
            b"method" => return None,
            other => {
                answer |= matches!(other, b"result" | b"error");
                // A value the text ends inside: what was seen so far decides.
                if keys.skip_value().is_none() {
                    break;
                }
            }
        }
    }
    if answer { id } else { None }
}

/// A walk over the keys of the outermost object of a JSON text, skipping every value but the
/// one asked for; it stops where the text does (or stops making sense).
struct TopLevelKeys<'a> {
    text: &'a [u8],
    at: usize,
}

impl<'a> TopLevelKeys<'a> {
    fn new(text: &'a [u8]) -> Option<Self> {
        let mut walk = Self { text, at: 0 };
        walk.skip_space();
        (walk.peek()? == b'{').then(|| {
            walk.at += 1;
            walk
        })
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(|b| b.is_ascii_whitespace()) {
            self.at += 1;
        }
    }

    /// The next key (its raw bytes, escapes left as they are), the walk then at its value.
    fn next_key(&mut self) -> Option<&'a [u8]> {
        self.skip_space();
        if self.peek()? == b',' {
            self.at += 1;
            self.skip_space();
        }
        if self.peek()? != b'"' {
            return None;
        }
        let key = self.string()?;
        self.skip_space();
        if self.peek()? != b':' {
            return None;
        }
        self.at += 1;
        self.skip_space();
        Some(key)
    }

    /// The string at the walk (its opening quote), without its quotes.
    fn string(&mut self) -> Option<&'a [u8]> {
        let start = self.at + 1;
        let mut at = start;
        loop {
            match *self.text.get(at)? {
                b'\\' => at += 2,
                b'"' => break,
                _ => at += 1,
            }
        }
        self.at = at + 1;
        self.text.get(start..at)
    }

    /// The value at the walk as a request id (an integer or a string without escapes); the
    /// walk then after it.
    fn value_as_id(&mut self) -> Option<RequestId> {
        match self.peek()? {
            b'"' => {
                let text = self.string()?;
                if text.contains(&b'\\') {
                    return None;
                }
                let text = std::str::from_utf8(text).ok()?;
                Some(NumberOrString::String(text.into()))
            }
            _ => {
                let start = self.at;
                while self.peek().is_some_and(|b| b == b'-' || b.is_ascii_digit()) {
                    self.at += 1;
                }
                let digits = std::str::from_utf8(self.text.get(start..self.at)?).ok()?;
                digits.parse().ok().map(NumberOrString::Number)
            }
        }
    }

    /// Skips the value at the walk (any JSON value, nested ones whole).
    fn skip_value(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => {
                    self.string()?;
                }
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.at += 1;
                }
                _ => self.at += 1,
            }
            if depth == 0 && matches!(self.peek(), Some(b',' | b'}')) {
                return Some(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(text: &str) -> Option<RequestId> {
        answer_id(text.as_bytes())
    }

    #[test]
    fn an_answers_id_is_found_before_or_after_a_long_value() {
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"text":"…"#),
            Some(NumberOrString::Number(7))
        );
        assert_eq!(
            id(r#"{"result":{"id":99,"x":[1,{"id":3}]},"id":"a-1","jsonrpc":"2.0"}"#),
            Some(NumberOrString::String("a-1".into()))
        );
        assert_eq!(
            id(r#" { "jsonrpc" : "2.0" , "error" : {"code":-1}, "id" : -4 }"#),
            Some(NumberOrString::Number(-4))
        );
    }

    #[test]
    fn requests_notifications_and_the_unclear_have_none() {
        // The server's own request: its id is not one of ours.
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":1,"method":"sampling/createMessage","params":{"#),
            None
        );
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":1,"result":{},"method":"x"}"#),
            None
        );
        // No id yet, or no sign it answers anything.
        assert_eq!(id(r#"{"jsonrpc":"2.0","result":{"content":"#), None);
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":1}"#), None);
        assert_eq!(id(r#"[{"id":1,"result":{}}]"#), None);
        assert_eq!(id("not json at all"), None);
        assert_eq!(id(r#"{"id":"a\"b","result":1}"#), None);
    }
}
