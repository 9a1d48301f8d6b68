//! Error messages and hints in the caller's language (seed 002's hints, seed
//! 003's localisation): zh-Hans or en-US, from the locale files at the repository root.
//!
//! Handlers and layers keep building [`ApiError`](crate::ApiError)s as before, in English;
//! an error that the server words itself also names a key of the locale files and its
//! parameters ([`ApiError::key`](crate::ApiError::key)). Nothing is translated where the
//! error is made, because only the request knows the language: [`localize`] is a layer
//! around the whole application that picks the locale of each request ([`negotiate`], or the
//! signed-in user's preference, which [`remember_preference`] records when the caller is
//! authenticated) and rewrites each error answer's body in it, with the code's hint. An
//! error without a key of its own gets its code's template, `error.CODE.message`, around its
//! English text as `{detail}`: the English template is the detail itself (it is already a
//! sentence for a person), the Chinese one says what happened in Chinese before the detail,
//! which is often an MCP server's own text and stays as it was sent. A lower layer's typed
//! error gets its key in [`crate::error_words`]; a placeholder's value may itself be worded
//! ([`ApiError::param_words`](crate::ApiError::param_words)), so a launch template's refusal
//! inside the server's own sentence is in the same language as the sentence.

mod failures;
mod layer;
mod negotiate;
mod texts;

pub use failures::{ServedFailure, reader_locale, word_failures};
pub use layer::{ErrorText, localize, remember_preference};
pub use negotiate::negotiate;
pub use texts::{CatalogError, LocaleTexts, fill, placeholders};
