//! `{{setting}}` placeholders in an entry's launch. Deliberately smaller than a tool node's
//! templates: a setting name is one word, and there is no escape, as no launch needs a literal
//! `{{`.

/// One part of a launch string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Piece<'a> {
    Text(&'a str),
    Setting(&'a str),
}

/// Why a launch string is not a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TemplateError {
    Unclosed,
    BadName(String),
}

/// The pieces of `text`.
pub(super) fn pieces(text: &str) -> Result<Vec<Piece<'_>>, TemplateError> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        if start > 0 {
            out.push(Piece::Text(&rest[..start]));
        }
        let after = &rest[start + 2..];
        let end = after.find("}}").ok_or(TemplateError::Unclosed)?;
        let name = after[..end].trim();
        if !is_name(name) {
            return Err(TemplateError::BadName(name.to_owned()));
        }
        out.push(Piece::Setting(name));
        rest = &after[end + 2..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    Ok(out)
}

/// The settings `text` names (empty when it does not parse: checked elsewhere).
pub(super) fn names(text: &str) -> Vec<&str> {
    pieces(text)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|piece| match piece {
            Piece::Setting(name) => Some(name),
            Piece::Text(_) => None,
        })
        .collect()
}

/// A setting name: lowercase ASCII letters, digits and `_`, starting with a letter.
pub(super) fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_split_text_and_settings() {
        assert_eq!(
            pieces("--repository={{ repository }}/x").unwrap(),
            [
                Piece::Text("--repository="),
                Piece::Setting("repository"),
                Piece::Text("/x")
            ]
        );
        assert_eq!(pieces("plain").unwrap(), [Piece::Text("plain")]);
        assert_eq!(pieces("{{a}}{{b}}").unwrap().len(), 2);
    }

    #[test]
    fn malformed_placeholders_are_refused() {
        assert_eq!(pieces("{{root"), Err(TemplateError::Unclosed));
        assert_eq!(pieces("{{}}"), Err(TemplateError::BadName(String::new())));
        assert_eq!(
            pieces("{{Root}}"),
            Err(TemplateError::BadName("Root".into()))
        );
        assert_eq!(pieces("{{a.b}}"), Err(TemplateError::BadName("a.b".into())));
    }
}
