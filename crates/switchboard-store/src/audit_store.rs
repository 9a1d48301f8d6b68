//! [`AuditStore`]: the record of every tool call (`tool_call_audit`), kept bounded per owner.
//!
//! Records are written in batches by a background writer (the tool-call service's), never on
//! the path of the call they describe, so writing takes a slice and prunes in the same
//! transaction: the table never holds more than `keep` records of an owner for longer than
//! one batch.

use async_trait::async_trait;
use switchboard_core::OwnerId;

use crate::StoreError;
use crate::model::{AuditRecord, NewAuditRecord};

/// The tool-call audit.
#[async_trait]
pub trait AuditStore: Send + Sync {
    /// Appends `records` in one transaction, then deletes the oldest records of each of their
    /// owners beyond the newest `keep`. A record of an owner that no longer exists is skipped.
    async fn record_tool_calls(
        &self,
        records: &[NewAuditRecord],
        keep: u32,
    ) -> Result<(), StoreError>;

    /// The owner's newest `limit` records, newest first.
    async fn tool_call_audit(
        &self,
        owner: &OwnerId,
        limit: u32,
    ) -> Result<Vec<AuditRecord>, StoreError>;
}
