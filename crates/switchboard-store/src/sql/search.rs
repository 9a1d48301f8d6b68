//! Finding conversations by the text of their title or their messages: a `LIKE` over the
//! person's own rows, with what they typed taken literally.
//!
//! A substring search cannot use a B-tree index, so what bounds its cost is which rows it
//! reads: the person's conversations walked newest first on `conversations_user` (the
//! listing's index and order, so a page stops at its `LIMIT`), and for each one its messages
//! on `messages_user` (migration 0019: the person's, by conversation; without it, Postgres
//! answers the `EXISTS` from a scan of everyone's messages). Nobody else's rows are read,
//! and a person's messages are capped by their quota. Letters are folded as each database folds them: ASCII
//! on SQLite (`LIKE`), every cased script on Postgres (`ILIKE`).

/// The longest text a search takes, in characters.
pub(crate) const MAX_SEARCH_CHARS: usize = 200;

/// The character that makes the next one literal in a pattern (`ESCAPE '\'`).
const ESCAPE: char = '\\';

/// The `LIKE` pattern matching any text that contains `text`: its `%` and `_` (and the
/// escape character itself) stand for themselves, not for "any".
pub(crate) fn contains_pattern(text: &str) -> String {
    let mut pattern = String::with_capacity(text.len() + 2);
    pattern.push('%');
    for c in text.chars() {
        if matches!(c, '%' | '_' | ESCAPE) {
            pattern.push(ESCAPE);
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

#[cfg(test)]
mod tests {
    use super::contains_pattern;

    #[test]
    fn wildcards_and_the_escape_are_taken_literally() {
        assert_eq!(contains_pattern("plan"), "%plan%");
        assert_eq!(contains_pattern("100%"), "%100\\%%");
        assert_eq!(contains_pattern("a_b"), "%a\\_b%");
        assert_eq!(contains_pattern("C:\\dir"), "%C:\\\\dir%");
        assert_eq!(contains_pattern(""), "%%");
        assert_eq!(contains_pattern("天气"), "%天气%");
    }
}
