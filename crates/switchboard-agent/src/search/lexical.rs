//! Lexical ranking: BM25F over the fields of a tool's definition, names weighted above
//! descriptions.
//!
//! Each field's term frequency is normalised by that field's length against its average
//! (so a long description does not outweigh a short name), weighted, and summed before BM25's
//! saturation (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and
//! Beyond", 2009, section 3.5). Everything that does not depend on the query is computed when
//! the index is built: a search only adds up the postings of the query's terms.

use std::collections::HashMap;

use super::doc::ToolDoc;
use super::glossary;
use super::tokens::Tokenizer;

/// BM25's term-frequency saturation.
const K1: f32 = 1.2;

/// A field of a tool's definition: its weight and how much its length normalises.
struct Field {
    weight: f32,
    b: f32,
    text: fn(&ToolDoc) -> String,
}

const FIELDS: &[Field] = &[
    Field {
        weight: 4.0,
        b: 0.3,
        text: |d| format!("{} {} {}", d.tool, d.title, d.name),
    },
    Field {
        weight: 2.0,
        b: 0.3,
        text: |d| d.server.clone(),
    },
    Field {
        weight: 1.0,
        b: 0.75,
        text: |d| d.description.clone(),
    },
    Field {
        weight: 0.5,
        b: 0.75,
        text: |d| d.parameters.clone(),
    },
    Field {
        weight: 0.5,
        b: 0.5,
        text: |d| d.annotations.clone(),
    },
    Field {
        weight: 0.3,
        b: 0.75,
        text: |d| d.server_description.clone(),
    },
];

/// Query words the glossary added count less than the words the person wrote.
const EXPANSION_WEIGHT: f32 = 0.6;

/// The inverted index of a set of tools.
#[derive(Debug)]
pub struct Lexical {
    tokenizer: Tokenizer,
    /// Per term: the tools it occurs in, with its weighted, length-normalised frequency there.
    postings: HashMap<String, Vec<(u32, f32)>>,
    docs: usize,
}

impl Lexical {
    pub fn build(docs: &[ToolDoc]) -> Lexical {
        let tokenizer = Tokenizer::default();
        let terms: Vec<Vec<Vec<String>>> = docs
            .iter()
            .map(|doc| {
                FIELDS
                    .iter()
                    .map(|f| tokenizer.terms(&(f.text)(doc)))
                    .collect()
            })
            .collect();
        let averages: Vec<f32> = (0..FIELDS.len())
            .map(|f| {
                let total: usize = terms.iter().map(|fields| fields[f].len()).sum();
                (total as f32 / docs.len().max(1) as f32).max(1.0)
            })
            .collect();
        let mut postings: HashMap<String, Vec<(u32, f32)>> = HashMap::new();
        for (index, fields) in terms.iter().enumerate() {
            let mut weighted: HashMap<&str, f32> = HashMap::new();
            for (f, field_terms) in fields.iter().enumerate() {
                let field = &FIELDS[f];
                let norm = 1.0 - field.b + field.b * field_terms.len() as f32 / averages[f];
                for term in field_terms {
                    *weighted.entry(term.as_str()).or_default() += field.weight / norm;
                }
            }
            let index = u32::try_from(index).unwrap_or(u32::MAX);
            for (term, tf) in weighted {
                postings
                    .entry(term.to_owned())
                    .or_default()
                    .push((index, tf));
            }
        }
        Lexical {
            tokenizer,
            postings,
            docs: docs.len(),
        }
    }

    /// Every tool that shares a term with `query`, best first, with its score.
    pub fn rank(&self, query: &str) -> Vec<(usize, f32)> {
        let mut weights: HashMap<String, f32> = HashMap::new();
        for term in self.tokenizer.terms(query) {
            weights.insert(term, 1.0);
        }
        for term in self.tokenizer.terms(&glossary::expansions(query)) {
            weights.entry(term).or_insert(EXPANSION_WEIGHT);
        }
        let mut scores: HashMap<u32, f32> = HashMap::new();
        for (term, weight) in &weights {
            let Some(postings) = self.postings.get(term) else {
                continue;
            };
            let df = postings.len() as f32;
            let idf = (1.0 + (self.docs as f32 - df + 0.5) / (df + 0.5)).ln();
            for (doc, tf) in postings {
                *scores.entry(*doc).or_default() += weight * idf * tf * (K1 + 1.0) / (tf + K1);
            }
        }
        let mut ranked: Vec<(usize, f32)> = scores
            .into_iter()
            .map(|(doc, score)| (doc as usize, score))
            .collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked
    }

    /// Distinct terms held, for the index's size.
    pub fn terms(&self) -> usize {
        self.postings.len()
    }

    /// Postings held, for the index's size.
    pub fn postings(&self) -> usize {
        self.postings.values().map(Vec::len).sum()
    }
}
