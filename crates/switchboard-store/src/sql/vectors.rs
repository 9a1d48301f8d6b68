//! `embedding_vectors`: sentence vectors by (model, text hash), read and written in batches.

use std::fmt::Write as _;

use crate::error::{Entity, StoreError};
use crate::vector_store::TextHash;

/// Hashes looked up by one statement, at most.
pub(crate) const READ_CHUNK: usize = 256;

/// Vectors written by one statement, at most.
pub(crate) const WRITE_CHUNK: usize = 64;

/// Placeholder `n` (1-based): `$n` when `numbered` (Postgres), else `?` (SQLite, whose numbered
/// placeholders are looked up by name, slowly in long statements; see `sql/audit.rs`).
fn placeholder(sql: &mut String, n: usize, numbered: bool) {
    if numbered {
        let _ = write!(sql, "${n}");
    } else {
        sql.push('?');
    }
}

/// Reads the vectors of the model (first value) under `hashes` hashes (the next values).
pub(crate) fn select(hashes: usize, numbered: bool) -> String {
    let mut sql =
        String::from("SELECT text_hash, dims, vector FROM embedding_vectors WHERE model = ");
    placeholder(&mut sql, 1, numbered);
    sql.push_str(" AND text_hash IN (");
    for i in 0..hashes {
        if i > 0 {
            sql.push_str(", ");
        }
        placeholder(&mut sql, i + 2, numbered);
    }
    sql.push(')');
    sql
}

/// Values bound per written vector: model, text hash, dims, vector, created_at.
const ROW_VALUES: usize = 5;

/// Writes `rows` vectors (five values each), replacing those kept under the same key.
pub(crate) fn upsert(rows: usize, numbered: bool) -> String {
    let mut sql = String::from(
        "INSERT INTO embedding_vectors (model, text_hash, dims, vector, created_at) VALUES ",
    );
    for row in 0..rows {
        sql.push_str(if row == 0 { "(" } else { ", (" });
        for value in 0..ROW_VALUES {
            if value > 0 {
                sql.push_str(", ");
            }
            placeholder(&mut sql, row * ROW_VALUES + value + 1, numbered);
        }
        sql.push(')');
    }
    sql.push_str(
        " ON CONFLICT (model, text_hash) DO UPDATE SET dims = excluded.dims, \
         vector = excluded.vector, created_at = excluded.created_at",
    );
    sql
}

/// `vector` as little-endian f32 bytes.
pub(crate) fn to_bytes(vector: &[f32]) -> Vec<u8> {
    vector.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct VectorRow {
    pub text_hash: Vec<u8>,
    pub dims: i64,
    pub vector: Vec<u8>,
}

impl VectorRow {
    pub(crate) fn decode(self) -> Result<(TextHash, Vec<f32>), StoreError> {
        let id: String = self.text_hash.iter().map(|b| format!("{b:02x}")).collect();
        let corrupt = |why: String| StoreError::corrupt(Entity::EmbeddingVector, &id, why);
        let hash: TextHash = self
            .text_hash
            .as_slice()
            .try_into()
            .map_err(|_| corrupt(format!("a text hash of {} bytes", self.text_hash.len())))?;
        let dims = usize::try_from(self.dims)
            .ok()
            .filter(|dims| dims.checked_mul(4) == Some(self.vector.len()))
            .ok_or_else(|| {
                corrupt(format!(
                    "{} bytes do not hold {} floats",
                    self.vector.len(),
                    self.dims
                ))
            })?;
        let mut vector = Vec::with_capacity(dims);
        for chunk in self.vector.chunks_exact(4) {
            vector.push(f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]));
        }
        Ok((hash, vector))
    }
}

macro_rules! impl_vector_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use $crate::error::StoreError;
            use $crate::model::Timestamp;
            use $crate::sql::vectors::{
                READ_CHUNK, VectorRow, WRITE_CHUNK, select, to_bytes, upsert,
            };
            use $crate::vector_store::TextHash;

            /// Whether statements number their values (Postgres) or take them in order.
            const NUMBERED: bool =
                matches!(<$db as sqlx::Database>::NAME.as_bytes(), b"PostgreSQL");

            impl $store {
                fn upsert_vectors<'q>(
                    sql: &'q str,
                    model: &str,
                    vectors: &[(TextHash, Vec<f32>)],
                    now: i64,
                ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
                    let mut query = sqlx::query(sql);
                    for (hash, vector) in vectors {
                        query = query
                            .bind(model.to_owned())
                            .bind(hash.to_vec())
                            .bind(i64::try_from(vector.len()).unwrap_or(i64::MAX))
                            .bind(to_bytes(vector))
                            .bind(now);
                    }
                    query
                }
            }

            #[async_trait::async_trait]
            impl $crate::vector_store::VectorStore for $store {
                async fn vectors(
                    &self,
                    model: &str,
                    hashes: &[TextHash],
                ) -> Result<Vec<(TextHash, Vec<f32>)>, StoreError> {
                    let mut found = Vec::new();
                    for chunk in hashes.chunks(READ_CHUNK) {
                        let sql = select(chunk.len(), NUMBERED);
                        let mut query = sqlx::query_as::<_, VectorRow>(&sql).bind(model);
                        for hash in chunk {
                            query = query.bind(hash.to_vec());
                        }
                        for row in query.fetch_all(&self.pool).await? {
                            found.push(row.decode()?);
                        }
                    }
                    Ok(found)
                }

                async fn put_vectors(
                    &self,
                    model: &str,
                    vectors: &[(TextHash, Vec<f32>)],
                ) -> Result<(), StoreError> {
                    let now = Timestamp::now().0;
                    match vectors.len() {
                        0 => Ok(()),
                        // One statement is atomic without a transaction's round trips.
                        n if n <= WRITE_CHUNK => {
                            let sql = upsert(n, NUMBERED);
                            Self::upsert_vectors(&sql, model, vectors, now)
                                .execute(&mut *self.writer().await?)
                                .await?;
                            Ok(())
                        }
                        _ => {
                            let mut tx = self.begin_write().await?;
                            for chunk in vectors.chunks(WRITE_CHUNK) {
                                let sql = upsert(chunk.len(), NUMBERED);
                                Self::upsert_vectors(&sql, model, chunk, now)
                                    .execute(&mut *tx)
                                    .await?;
                            }
                            tx.commit().await?;
                            Ok(())
                        }
                    }
                }
            }
        };
    };
}

pub(crate) use impl_vector_store;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_number_their_values_on_postgres_only() {
        assert_eq!(
            select(2, true),
            "SELECT text_hash, dims, vector FROM embedding_vectors WHERE model = $1 \
             AND text_hash IN ($2, $3)"
        );
        assert!(select(2, false).ends_with("model = ? AND text_hash IN (?, ?)"));
        let sql = upsert(2, true);
        assert!(
            sql.contains("($1, $2, $3, $4, $5), ($6, $7, $8, $9, $10) ON CONFLICT"),
            "{sql}"
        );
        assert_eq!(upsert(3, false).matches('?').count(), 15);
    }

    #[test]
    fn a_vector_reads_back_from_its_bytes_and_bad_bytes_are_corrupt() {
        let row = VectorRow {
            text_hash: vec![7; 32],
            dims: 2,
            vector: to_bytes(&[0.5, -1.25]),
        };
        assert_eq!(row.decode().unwrap(), ([7; 32], vec![0.5, -1.25]));
        let short = VectorRow {
            text_hash: vec![7; 32],
            dims: 3,
            vector: to_bytes(&[0.5, -1.25]),
        };
        assert!(matches!(short.decode(), Err(StoreError::Corrupt { .. })));
        let bad_hash = VectorRow {
            text_hash: vec![7; 5],
            dims: 0,
            vector: Vec::new(),
        };
        assert!(matches!(bad_hash.decode(), Err(StoreError::Corrupt { .. })));
    }
}
