//! Schema errors about parameters a tool node filled in, worded without their values.
//!
//! A mapping may carry a secret (`Authorization: Bearer {{token}}`), and the validator's
//! reasons quote the value that broke the rule (`"Bearer sk-…" does not match "^…"`). In a
//! chat run that text goes back to the model as the tool result, so a violation at (or inside)
//! a mapped parameter is reported by parameter name and rule only. A violation of the
//! arguments as a whole may quote the whole object, mapped values included, so under a
//! mapping it keeps its text only for rules whose reasons name properties, never values.

use switchboard_schema::validate::{ArgumentsError, Violation};

/// Rules on the whole arguments object whose reasons name properties only.
const NAMES_ONLY: &[&str] = &[
    "required",
    "additionalProperties",
    "unevaluatedProperties",
    "dependentRequired",
    "dependencies",
    "propertyNames",
];

/// `error` with the reasons that could quote a value of a `mapped` parameter reworded.
pub(super) fn hide_mapped_values(error: ArgumentsError, mapped: &[String]) -> ArgumentsError {
    let ArgumentsError::Invalid(mut violations) = error else {
        return error;
    };
    if mapped.is_empty() {
        return ArgumentsError::Invalid(violations);
    }
    for violation in &mut violations.violations {
        reword(violation, mapped);
    }
    ArgumentsError::Invalid(violations)
}

fn reword(violation: &mut Violation, mapped: &[String]) {
    let keyword = &violation.keyword;
    match top_level_property(&violation.instance_path) {
        Some(parameter) if mapped.contains(&parameter) => {
            violation.reason =
                format!("the mapped parameter `{parameter}` does not fit its schema ({keyword})");
        }
        Some(_) => {}
        None if NAMES_ONLY.contains(&keyword.as_str()) => {}
        None => {
            violation.reason = format!(
                "the arguments, with mapped parameters filled in, do not fit the schema ({keyword})"
            );
        }
    }
}

/// The first segment of a JSON pointer, unescaped; `None` for the whole document.
fn top_level_property(pointer: &str) -> Option<String> {
    let rest = pointer.strip_prefix('/')?;
    let segment = rest.split('/').next().unwrap_or(rest);
    Some(segment.replace("~1", "/").replace("~0", "~"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_name_their_top_level_property() {
        assert_eq!(top_level_property(""), None);
        assert_eq!(top_level_property("/a~1b/0").as_deref(), Some("a/b"));
        assert_eq!(top_level_property("/t~0k").as_deref(), Some("t~k"));
    }
}
