//! Words of tool definitions and queries, as the lexical index compares them.
//!
//! Names are split where people see word boundaries: `snake_case`, `kebab-case`, dotted and
//! slashed names, `camelCase` and `HTTPServer`, letters and digits. Words are lower-cased,
//! English stop words dropped, and the rest stemmed (Snowball's English stemmer, so "issues",
//! "issue" and "issuing" meet). Chinese, Japanese and Korean text has no spaces: each run of
//! those characters gives its single characters and its overlapping pairs (bigrams, as
//! Lucene's CJK analyzer does), so a two-character word of a query meets the same pair in a
//! description without a dictionary.

use rust_stemmers::{Algorithm, Stemmer};

/// Words too common in tool descriptions and requests to tell tools apart.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "how", "i", "if",
    "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "please", "that", "the", "this",
    "to", "use", "using", "want", "was", "we", "what", "which", "with", "you", "your",
];

/// Splits and normalises text into index terms.
pub struct Tokenizer {
    stemmer: Stemmer,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokenizer")
    }
}

impl Default for Tokenizer {
    fn default() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
        }
    }
}

impl Tokenizer {
    /// The terms of `text`, in order, repeats kept (term frequency counts them).
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut terms = Vec::new();
        for piece in pieces(text) {
            match piece {
                Piece::Word(word) => {
                    for part in split_word(word) {
                        let lower = part.to_lowercase();
                        if STOP_WORDS.contains(&lower.as_str()) {
                            continue;
                        }
                        terms.push(self.stemmer.stem(&lower).into_owned());
                    }
                }
                Piece::Ideographs(chars) => ideograph_terms(&chars, &mut terms),
            }
        }
        terms
    }
}

/// A run of text of one kind.
enum Piece<'a> {
    /// Letters and digits with the joiners inside names (`_`, `-`, `.`, `/`), not yet split.
    Word(&'a str),
    /// Characters of a script written without spaces.
    Ideographs(Vec<char>),
}

/// Whether `c` belongs to a script written without spaces between words (CJK ideographs,
/// kana, Hangul).
pub(crate) fn is_ideograph(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF     // Hiragana, Katakana
        | 0x3400..=0x4DBF   // CJK Extension A
        | 0x4E00..=0x9FFF   // CJK Unified Ideographs
        | 0xAC00..=0xD7AF   // Hangul syllables
        | 0xF900..=0xFAFF   // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F // CJK Extensions B-F and supplements
    )
}

fn pieces(text: &str) -> Vec<Piece<'_>> {
    let mut pieces = Vec::new();
    let mut word_start: Option<usize> = None;
    let mut ideographs: Vec<char> = Vec::new();
    for (i, c) in text.char_indices() {
        if is_ideograph(c) {
            if let Some(start) = word_start.take() {
                pieces.push(Piece::Word(&text[start..i]));
            }
            ideographs.push(c);
            continue;
        }
        if !ideographs.is_empty() {
            pieces.push(Piece::Ideographs(std::mem::take(&mut ideographs)));
        }
        if c.is_alphanumeric() {
            word_start.get_or_insert(i);
        } else if let Some(start) = word_start.take() {
            pieces.push(Piece::Word(&text[start..i]));
        }
    }
    if let Some(start) = word_start {
        pieces.push(Piece::Word(&text[start..]));
    }
    if !ideographs.is_empty() {
        pieces.push(Piece::Ideographs(ideographs));
    }
    pieces
}

/// The words inside one run of letters and digits: `getHTTPResponse2` -> `get`, `HTTP`,
/// `Response`, `2`.
pub(crate) fn split_word(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for k in 1..chars.len() {
        let (i, c) = chars[k];
        let (_, prev) = chars[k - 1];
        let next = chars.get(k + 1).map(|(_, c)| *c);
        let boundary = (prev.is_lowercase() && c.is_uppercase())
            || (prev.is_alphabetic() != c.is_alphabetic())
            // `HTTPServer`: the last capital of a run starts the next word.
            || (prev.is_uppercase() && c.is_uppercase() && next.is_some_and(char::is_lowercase));
        if boundary {
            parts.push(&word[start..i]);
            start = i;
        }
    }
    if start < word.len() {
        parts.push(&word[start..]);
    }
    parts
}

/// Single characters and overlapping pairs of a run of ideographs.
fn ideograph_terms(chars: &[char], terms: &mut Vec<String>) {
    for (k, c) in chars.iter().enumerate() {
        terms.push(c.to_string());
        if let Some(next) = chars.get(k + 1) {
            terms.push([*c, *next].iter().collect());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        Tokenizer::default().terms(text)
    }

    #[test]
    fn names_are_split_at_every_boundary_people_see() {
        assert_eq!(terms("create_pull_request"), ["creat", "pull", "request"]);
        assert_eq!(
            terms("browser-take-screenshot"),
            ["browser", "take", "screenshot"]
        );
        assert_eq!(terms("fs.readFile"), ["fs", "read", "file"]);
        assert_eq!(terms("getHTTPResponse2"), ["get", "http", "respons", "2"]);
        assert_eq!(
            terms("mcp__github__list_issues"),
            ["mcp", "github", "list", "issu"]
        );
    }

    #[test]
    fn words_are_stemmed_and_stop_words_dropped() {
        assert_eq!(
            terms("Lists the issues of a repository"),
            ["list", "issu", "repositori"]
        );
        assert_eq!(terms("issue"), terms("issues"));
    }

    #[test]
    fn chinese_gives_characters_and_pairs() {
        assert_eq!(
            terms("创建分支"),
            ["创", "创建", "建", "建分", "分", "分支", "支"]
        );
        assert_eq!(
            terms("读取file内容"),
            ["读", "读取", "取", "file", "内", "内容", "容"]
        );
    }

    proptest::proptest! {
        #[test]
        fn terms_are_never_empty_nor_carry_separators(text in "\\PC{0,64}") {
            for term in terms(&text) {
                proptest::prop_assert!(!term.is_empty());
                proptest::prop_assert!(!term.contains(['_', '-', '.', '/', ' ']));
            }
        }

        #[test]
        fn a_snake_name_and_its_camel_form_give_the_same_terms(
            words in proptest::collection::vec("[a-z]{2,8}", 1..5)
        ) {
            let snake = words.join("_");
            let camel: String = words
                .iter()
                .enumerate()
                .map(|(i, w)| if i == 0 { w.clone() } else { w[..1].to_uppercase() + &w[1..] })
                .collect();
            proptest::prop_assert_eq!(terms(&snake), terms(&camel));
        }
    }
}
