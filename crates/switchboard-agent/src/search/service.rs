//! The search a person, an assistant's model and the gateway's clients use: over an offer,
//! through the index kept for it.

use std::collections::{HashMap, VecDeque};
use std::hash::{DefaultHasher, Hasher};
use std::sync::{Arc, Mutex};

use serde::Serialize;
use switchboard_core::{Embedder, OwnerId};

use super::doc::ToolDoc;
use super::index::ToolIndex;
use crate::offer::Offer;

/// Indexes kept at most (one per person and offer); the oldest goes first.
const KEPT_INDEXES: usize = 256;

/// One tool a search found, as the API, the command line and the model see it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FoundTool {
    /// The name it is offered under (`mcp__{server}__{tool}`).
    pub name: String,
    /// Its server's name.
    pub server: String,
    /// The tool's own name.
    pub tool: String,
    pub description: String,
    pub score: f32,
}

type Key = (OwnerId, u64);

/// Tool search over offers, with their indexes kept.
#[derive(Debug)]
pub struct ToolSearch {
    embedder: Option<Arc<dyn Embedder>>,
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    indexes: HashMap<Key, Arc<ToolIndex>>,
    order: VecDeque<Key>,
}

impl ToolSearch {
    /// Lexical search only, or fused with `embedder`'s semantic ranking.
    pub fn new(embedder: Option<Arc<dyn Embedder>>) -> ToolSearch {
        ToolSearch {
            embedder,
            kept: Mutex::default(),
        }
    }

    /// Whether searches are fused with an embedding model's ranking.
    pub fn is_semantic(&self) -> bool {
        self.embedder.is_some()
    }

    /// The best `limit` tools of `offer` for `query`, best first.
    pub async fn search(
        &self,
        owner: &OwnerId,
        offer: &Offer,
        query: &str,
        limit: usize,
    ) -> Vec<FoundTool> {
        let index = self.index(owner, offer).await;
        let query_vector = match (&self.embedder, index.is_semantic()) {
            (Some(embedder), true) => embed_one(embedder.as_ref(), &semantic_query(query)).await,
            _ => None,
        };
        index
            .search(query, limit, query_vector.as_deref())
            .into_iter()
            .filter_map(|hit| {
                let doc = index.docs().get(hit.index)?;
                // The index is the offer's, so every hit is in it; checked all the same, so a
                // search can never name a tool the offer does not hold.
                offer.by_display_name(&doc.name)?;
                Some(FoundTool {
                    name: doc.name.clone(),
                    server: doc.server.clone(),
                    tool: doc.tool.clone(),
                    description: doc.description.clone(),
                    score: hit.score,
                })
            })
            .collect()
    }

    /// The index of `offer` for `owner`: kept from an earlier search while the offer is the
    /// same (a tool list changed, a server edited or removed make another offer), else built.
    pub async fn index(&self, owner: &OwnerId, offer: &Offer) -> Arc<ToolIndex> {
        let key = (owner.clone(), fingerprint(offer));
        if let Some(index) = self.kept().indexes.get(&key) {
            return Arc::clone(index);
        }
        let docs: Vec<ToolDoc> = offer.tools().iter().map(ToolDoc::of).collect();
        let mut index = ToolIndex::new(docs);
        if let Some(embedder) = &self.embedder {
            let texts: Vec<String> = index.docs().iter().map(ToolDoc::semantic_text).collect();
            match embedder.embed(&texts).await {
                Ok(vectors) => index = index.with_vectors(vectors),
                Err(error) => {
                    tracing::warn!(%error, "tools could not be embedded; searching by words only");
                }
            }
        }
        let index = Arc::new(index);
        let mut kept = self.kept();
        if kept
            .indexes
            .insert(key.clone(), Arc::clone(&index))
            .is_none()
        {
            kept.order.push_back(key);
        }
        while kept.order.len() > KEPT_INDEXES {
            if let Some(old) = kept.order.pop_front() {
                kept.indexes.remove(&old);
            }
        }
        index
    }

    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        // A panic while the map was held leaves it whole (each change is one insert or
        // remove), so a poisoned lock is taken as it is.
        self.kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The text a query is embedded as: the query, and the English words the glossary gives for
/// its Chinese ones. Models that read little Chinese (all-MiniLM-L6-v2 turns most Chinese
/// characters into one unknown token) then rank a Chinese request by its meaning in English
/// instead of by noise; a model that reads Chinese loses nothing.
pub fn semantic_query(query: &str) -> String {
    let english = super::glossary::expansions(query);
    if english.is_empty() {
        query.to_owned()
    } else {
        format!("{query} ({})", english.trim())
    }
}

async fn embed_one(embedder: &dyn Embedder, text: &str) -> Option<Vec<f32>> {
    match embedder.embed(&[text.to_owned()]).await {
        Ok(mut vectors) if vectors.len() == 1 => vectors.pop(),
        Ok(_) => None,
        Err(error) => {
            tracing::warn!(%error, "the query could not be embedded; searching by words only");
            None
        }
    }
}

/// What makes two offers' indexes the same: every tool's names, title, description,
/// annotations and parameter names and descriptions, in order. Hashed straight from the
/// offer (no document is built for an offer whose index is kept), so a search that finds its
/// index kept costs a pass over the offer's text.
fn fingerprint(offer: &Offer) -> u64 {
    // SipHash with fixed keys: fast enough that a search over a thousand tools spends well
    // under a millisecond finding its index, and stable for the process's life. A collision
    // (one in 2^64 per person) would at worst rank with an older index of the same person's
    // tools: every hit is still looked up in the offer asked about.
    let mut hash = DefaultHasher::new();
    let mut field = |text: &str| {
        hash.write_usize(text.len());
        hash.write(text.as_bytes());
    };
    for tool in offer.tools() {
        field(&tool.display_name);
        field(&tool.server.name);
        field(&tool.tool.name);
        field(tool.tool.title.as_deref().unwrap_or_default());
        field(tool.tool.description.as_deref().unwrap_or_default());
        let annotations = &tool.tool.annotations;
        field(annotations.title.as_deref().unwrap_or_default());
        field(
            match (annotations.read_only_hint, annotations.destructive_hint) {
                (Some(true), Some(true)) => "rd",
                (Some(true), _) => "r",
                (_, Some(true)) => "d",
                _ => "",
            },
        );
        schema_text(&tool.schema, 0, &mut field);
    }
    hash.finish()
}

/// Feeds the property names and descriptions of `schema` to `field`, as deep as the
/// documents read them.
fn schema_text(
    schema: &serde_json::Map<String, serde_json::Value>,
    depth: usize,
    field: &mut impl FnMut(&str),
) {
    if depth > 3 {
        return;
    }
    let Some(serde_json::Value::Object(properties)) = schema.get("properties") else {
        return;
    };
    for (name, property) in properties {
        field(name);
        if let serde_json::Value::Object(property) = property {
            if let Some(serde_json::Value::String(description)) = property.get("description") {
                field(description);
            }
            schema_text(property, depth + 1, field);
            if let Some(serde_json::Value::Object(items)) = property.get("items") {
                schema_text(items, depth + 1, field);
            }
        }
    }
}
