//! Small helpers the area modules share.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::{Entity, StoreError};

/// JSON text for a TEXT column.
pub(crate) fn to_json<T: Serialize + ?Sized>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::encode("a column", e))
}

/// A JSON TEXT column read back; a column that does not parse is a corrupt row.
pub(crate) fn from_json<T: DeserializeOwned>(
    entity: Entity,
    id: &str,
    column: &str,
    text: &str,
) -> Result<T, StoreError> {
    serde_json::from_str(text)
        .map_err(|e| StoreError::corrupt(entity, id, format!("column {column}: {e}")))
}

/// A count or limit kept in a BIGINT column.
pub(crate) fn to_i64(value: u32) -> i64 {
    i64::from(value)
}

pub(crate) fn to_u32(
    entity: Entity,
    id: &str,
    column: &str,
    value: i64,
) -> Result<u32, StoreError> {
    u32::try_from(value).map_err(|_| {
        StoreError::corrupt(
            entity,
            id,
            format!("column {column}: {value} is out of range"),
        )
    })
}

/// Rows affected by a statement that must touch exactly one owned row.
pub(crate) fn one_row(affected: u64, entity: Entity, id: &str) -> Result<(), StoreError> {
    if affected == 0 {
        Err(StoreError::not_found(entity, id))
    } else {
        Ok(())
    }
}
