//! A scan of the text a person reads (an error's message, a command's output) for what a
//! program's insides look like: Rust paths (`switchboard_mcp::transport::Watched`), generic
//! types (`WorkerTransport<Client>`), `Debug` dumps (`Error { kind: .. }`, `Os(2)`,
//! `Some(Response(..))`) and Rust's number types in serde's words (`expected u32`).
//!
//! Each pattern is matched where a program's text has it and a person's rarely does: a path
//! needs a name on both sides of `::` (so `http://h`, `[::1]` and `fe80::1` pass), a generic
//! a capitalised name right before `<`, a dump a capitalised name with a lower-case letter
//! right before `(` or ` {`. URLs are skipped whole.

/// Every leak in `text`, each as the few characters around it; empty when the text is clean.
pub fn leaks(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for word in text.split_whitespace() {
        if is_url(word) {
            continue;
        }
        if has_path(word) || has_generic(word) || has_call_dump(word) {
            found.push(word.to_owned());
        }
    }
    found.extend(struct_dumps(text));
    found.extend(number_types(text));
    found
}

/// Asserts `text` has no leak, naming `what` it is and the leaks found.
#[track_caller]
pub fn assert_in_words(what: &str, text: &str) {
    let found = leaks(text);
    assert!(
        found.is_empty(),
        "{what} shows the program's insides {found:?}: {text}"
    );
}

fn is_url(word: &str) -> bool {
    let word = word.trim_start_matches(['(', '[', '`', '"', '\'', '<']);
    word.split_once("://").is_some_and(|(scheme, _)| {
        !scheme.is_empty()
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+.-".contains(c))
    })
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// `a::b`: a name that starts with a letter, `::`, and a letter or `_` after it.
fn has_path(word: &str) -> bool {
    let bytes: Vec<char> = word.chars().collect();
    (1..bytes.len().saturating_sub(2)).any(|at| {
        if bytes[at] != ':' || bytes[at + 1] != ':' {
            return false;
        }
        let after = bytes[at + 2];
        if !(after.is_ascii_alphabetic() || after == '_') {
            return false;
        }
        let start = (0..at).rev().take_while(|&i| is_name_char(bytes[i])).last();
        start.is_some_and(|start| bytes[start].is_ascii_alphabetic() || bytes[start] == '_')
    })
}

/// `Name<...`: a capitalised name with a lower-case letter, then `<` and a name.
fn has_generic(word: &str) -> bool {
    before_each(word, '<', |name, after| {
        is_type_name(name) && after.is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '&')
    })
}

/// `Name(`: a capitalised name with a lower-case letter right before `(` (`Some(`, `Os(`,
/// `NotFound(`), as `Debug` writes a tuple variant.
fn has_call_dump(word: &str) -> bool {
    before_each(word, '(', |name, _| is_type_name(name))
}

/// `Name { field:`, as `Debug` writes a struct.
fn struct_dumps(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(" { ") {
        let name: String = rest[..at]
            .chars()
            .rev()
            .take_while(|c| is_name_char(*c))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let after = &rest[at + 3..];
        let field: String = after.chars().take_while(|c| is_name_char(*c)).collect();
        let dumped = is_type_name(&name)
            && !field.is_empty()
            && (after[field.len()..].starts_with(": ") || after[field.len()..].starts_with(", "));
        if dumped {
            found.push(format!("{name} {{ {field}"));
        }
        rest = &rest[at + 3..];
    }
    found
}

/// serde's `expected u32`, `expected i64`, `expected f64`.
fn number_types(text: &str) -> Vec<String> {
    const TYPES: [&str; 14] = [
        "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
        "f32", "f64",
    ];
    text.match_indices("expected ")
        .filter_map(|(at, _)| {
            let after = &text[at + "expected ".len()..];
            let name: String = after.chars().take_while(|c| is_name_char(*c)).collect();
            TYPES
                .contains(&name.as_str())
                .then(|| format!("expected {name}"))
        })
        .collect()
}

/// Whether `check(name, next)` holds for the name right before any `mark` in `word`, and the
/// character after that mark.
fn before_each(word: &str, mark: char, check: impl Fn(&str, Option<char>) -> bool) -> bool {
    let chars: Vec<char> = word.chars().collect();
    chars.iter().enumerate().any(|(at, c)| {
        if *c != mark {
            return false;
        }
        let name: String = chars[..at]
            .iter()
            .rev()
            .take_while(|c| is_name_char(**c))
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        check(&name, chars.get(at + 1).copied())
    })
}

/// A Rust type's name: a capital first, and a lower-case letter somewhere (`HTTP` or `PATH`
/// is a person's word).
fn is_type_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && name.chars().any(|c| c.is_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_insides_of_a_program_are_found() {
        let leaked = [
            "cannot reach https://h/mcp: Send message error Transport \
             [switchboard_mcp::transport::watched::Watched<rmcp::transport::worker::WorkerTransport<X>>] error",
            "failed: Os { code: 2, kind: NotFound, message: \"No such file\" }",
            "expect initialized response, but received: Some(Response(JsonRpcResponse))",
            "no compatible protocol version (server: [ProtocolVersion(\"2024-11-05\")])",
            "the connection failed: Kind(Io)",
            "a value of type Vec<String> was expected",
            "invalid value: integer `-1`, expected u32",
            "Error { kind: Timeout }",
        ];
        for text in leaked {
            assert!(!leaks(text).is_empty(), "{text}");
        }
        assert_eq!(
            leaks("a failure of crate::module::Type in the middle"),
            ["crate::module::Type"]
        );
    }

    #[test]
    fn words_a_person_writes_pass() {
        let clean = [
            "cannot reach https://example.invalid/mcp: the name does not resolve; check the address",
            "could not start `npx`: `npx` was not found on this machine; install Node.js, which provides it",
            "members may not reach `::1` or `[fe80::1]` (an admin can allow it)",
            "the proxy http://user@h.example:8080/a::b?q=<x> is not used",
            "server `s` answered 401 Unauthorized: check the API key or token",
            "the server answered HTTP 503 (Service Unavailable); try again later",
            "unknown field `secretEnvs`; the fields are `id`, `name`, `secretEnv`",
            "invalid type: string \"x\", expected a whole number from 0 to 4294967295",
            "the body is not valid JSON: EOF while parsing an object at line 1 column 1",
            "{{ the template }} is { fine }, and 2 < 3",
            "PATH (set it) and HTTP(S) are words; Node.js (it provides npx) too",
            "服务器 `s` 在握手期间关闭了连接；请检查它的命令",
        ];
        for text in clean {
            assert_eq!(leaks(text), Vec::<String>::new(), "{text}");
        }
    }
}
