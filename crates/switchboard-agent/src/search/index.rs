//! The index of one set of tools: lexical always, semantic when vectors were given, fused.

use super::doc::ToolDoc;
use super::fusion;
use super::lexical::Lexical;

/// How many of each ranking's best take part in fusion.
const FUSED_DEPTH: usize = 50;

/// One tool found.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchHit {
    /// The tool's position in the index's documents.
    pub index: usize,
    pub score: f32,
}

/// The searchable tools of one offer.
#[derive(Debug)]
pub struct ToolIndex {
    docs: Vec<ToolDoc>,
    lexical: Lexical,
    /// Each document's offered and own name, lower-cased.
    names: Vec<[String; 2]>,
    /// One L2-normalised vector per document, when a model embedded them.
    vectors: Option<Vec<Vec<f32>>>,
}

impl ToolIndex {
    pub fn new(docs: Vec<ToolDoc>) -> ToolIndex {
        let lexical = Lexical::build(&docs);
        let names = docs
            .iter()
            .map(|d| [d.name.to_lowercase(), d.tool.to_lowercase()])
            .collect();
        ToolIndex {
            docs,
            lexical,
            names,
            vectors: None,
        }
    }

    /// Adds the documents' vectors (one per document, in order; a count that does not match
    /// is ignored and the index stays lexical).
    pub fn with_vectors(mut self, vectors: Vec<Vec<f32>>) -> ToolIndex {
        if vectors.len() == self.docs.len() {
            self.vectors = Some(vectors);
        }
        self
    }

    pub fn docs(&self) -> &[ToolDoc] {
        &self.docs
    }

    pub fn is_semantic(&self) -> bool {
        self.vectors.is_some()
    }

    /// The best `limit` tools for `query`, best first. A tool whose name is the query comes
    /// first, then tools whose names start with it, then the ranking (fused with the
    /// semantic one when the index has vectors and `query_vector` is given).
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        query_vector: Option<&[f32]>,
    ) -> Vec<SearchHit> {
        let lexical = self.lexical.rank(query);
        let mut ranked: Vec<(usize, f32)> = match (&self.vectors, query_vector) {
            (Some(vectors), Some(query_vector)) => {
                let semantic = semantic_rank(vectors, query_vector);
                let lexical: Vec<usize> =
                    lexical.iter().take(FUSED_DEPTH).map(|(i, _)| *i).collect();
                let semantic: Vec<usize> =
                    semantic.iter().take(FUSED_DEPTH).map(|(i, _)| *i).collect();
                fusion::fuse(&[&lexical, &semantic])
            }
            _ => lexical.clone(),
        };
        let wanted = name_form(query);
        if !wanted.is_empty() {
            let tier = |index: usize| name_tier(&self.names[index], &wanted);
            let mut named: Vec<(usize, f32)> = (0..self.docs.len())
                .filter(|i| tier(*i) > 0)
                .map(|i| (i, 0.0))
                .collect();
            if !named.is_empty() {
                ranked.retain(|(i, _)| tier(*i) == 0);
                for (i, score) in &mut named {
                    *score = ranked_score(&lexical, *i);
                }
                named.sort_by(|a, b| {
                    tier(b.0)
                        .cmp(&tier(a.0))
                        .then(b.1.total_cmp(&a.1))
                        .then(a.0.cmp(&b.0))
                });
                named.extend(ranked);
                ranked = named;
            }
        }
        ranked
            .into_iter()
            .take(limit)
            .map(|(index, score)| SearchHit { index, score })
            .collect()
    }

    /// Distinct terms and postings of the lexical index.
    pub fn size(&self) -> (usize, usize) {
        (self.lexical.terms(), self.lexical.postings())
    }
}

fn ranked_score(ranked: &[(usize, f32)], index: usize) -> f32 {
    ranked
        .iter()
        .find(|(i, _)| *i == index)
        .map_or(0.0, |(_, s)| *s)
}

/// Documents by cosine similarity (the vectors are normalised: a dot product).
fn semantic_rank(vectors: &[Vec<f32>], query: &[f32]) -> Vec<(usize, f32)> {
    let mut ranked: Vec<(usize, f32)> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (i, v.iter().zip(query).map(|(a, b)| a * b).sum()))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    ranked
}

/// A query as a name: one word (no spaces), lower-cased; empty when the query is not one.
fn name_form(query: &str) -> String {
    let query = query.trim();
    if query.is_empty() || query.contains(char::is_whitespace) {
        return String::new();
    }
    query.to_lowercase()
}

/// 2 when `wanted` is the tool's name (offered or own), 1 when one of them starts with it
/// (three characters at least), else 0.
fn name_tier(names: &[String; 2], wanted: &str) -> u8 {
    if names.iter().any(|n| n == wanted) {
        2
    } else if wanted.chars().count() >= 3 && names.iter().any(|n| n.starts_with(wanted)) {
        1
    } else {
        0
    }
}
