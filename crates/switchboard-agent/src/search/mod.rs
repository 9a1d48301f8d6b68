//! Tool search: finding, among the hundreds of tools a person may be offered, the few a
//! request needs (DESIGN.md "Large catalogs").
//!
//! [`ToolIndex`] ranks one offer's tools lexically ([`lexical`]: BM25F with names above
//! descriptions, over [`tokens`] that split code names and Chinese text) and, when an
//! embedding model gave vectors, semantically, fused by reciprocal rank ([`fusion`]). A
//! tool's exact or leading name always comes first. [`ToolSearch`] keeps the index of each
//! offer it was asked about, so a search is a lookup until the offer changes.

mod doc;
pub mod fusion;
mod glossary;
mod index;
pub mod lexical;
mod service;
pub mod tokens;

pub use doc::ToolDoc;
pub use index::{SearchHit, ToolIndex};
pub use service::{FoundTool, ToolSearch, semantic_query};
