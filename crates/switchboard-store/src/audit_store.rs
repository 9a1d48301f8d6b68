//! [`AuditStore`]: the record of every tool call (`tool_call_audit`), kept bounded per owner.
//!
//! Records are written in batches by a background writer (the tool-call service's), never on
//! the path of the call they describe, so writing takes a slice. Pruning is its own call: it
//! walks up to `keep` index entries of the owner, which the writer does every so many records
//! of an owner rather than after each one.

use async_trait::async_trait;
use switchboard_core::OwnerId;

use crate::StoreError;
use crate::model::{AuditRecord, NewAuditRecord};

/// The tool-call audit.
#[async_trait]
pub trait AuditStore: Send + Sync {
    /// Appends `records` in one transaction. A record of an owner that no longer exists is
    /// skipped.
    async fn record_tool_calls(&self, records: &[NewAuditRecord]) -> Result<(), StoreError>;

    /// Deletes the owner's records older than their newest `keep`; how many were deleted.
    async fn prune_tool_calls(&self, owner: &OwnerId, keep: u32) -> Result<u64, StoreError>;

    /// The owner's newest `limit` records, newest first.
    async fn tool_call_audit(
        &self,
        owner: &OwnerId,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, StoreError>;
}
