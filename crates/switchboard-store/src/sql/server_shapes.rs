//! `mcp_server_shapes`: how each server was written through the seeds' shared path (see
//! [`ServerShape`](crate::model::ServerShape)). The row goes with its server (a cascading
//! foreign key), so deleting a server through any route leaves nothing behind.

/// The `ServerShapeStore` implementation for one store type.
macro_rules! impl_server_shape_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use std::collections::BTreeMap;

            use switchboard_core::{OwnerId, ServerId};
            use $crate::error::{Entity, StoreError};
            use $crate::model::{ServerShape, WrittenShape};
            use $crate::sql::common::one_row;

            #[async_trait::async_trait]
            impl $crate::store::ServerShapeStore for $store {
                async fn set_server_shape(
                    &self,
                    owner: &OwnerId,
                    id: &ServerId,
                    shape: &ServerShape,
                ) -> Result<(), StoreError> {
                    // Only for a server of this owner: no row, nothing inserted, not found.
                    let done = sqlx::query(
                        "INSERT INTO mcp_server_shapes \
                         (user_id, server_id, shape, is_preset, preset_type) \
                         SELECT $1, $2, $3, $4, $5 WHERE EXISTS \
                         (SELECT 1 FROM mcp_servers WHERE user_id = $1 AND id = $2) \
                         ON CONFLICT (user_id, server_id) DO UPDATE SET \
                         shape = excluded.shape, is_preset = excluded.is_preset, \
                         preset_type = excluded.preset_type",
                    )
                    .bind(&owner.0)
                    .bind(&id.0)
                    .bind(shape.shape.as_str())
                    .bind(shape.is_preset)
                    .bind(&shape.preset_type)
                    .execute(&mut *self.writer().await?)
                    .await?;
                    one_row(done.rows_affected(), Entity::Server, &id.0)
                }

                async fn server_shapes(
                    &self,
                    owner: &OwnerId,
                ) -> Result<BTreeMap<ServerId, ServerShape>, StoreError> {
                    let rows: Vec<(String, String, bool, Option<String>)> = sqlx::query_as(
                        "SELECT server_id, shape, is_preset, preset_type \
                         FROM mcp_server_shapes WHERE user_id = $1",
                    )
                    .bind(&owner.0)
                    .fetch_all(&self.pool)
                    .await?;
                    rows.into_iter()
                        .map(|(id, shape, is_preset, preset_type)| {
                            let shape = WrittenShape::parse(&shape).ok_or_else(|| {
                                StoreError::corrupt(
                                    Entity::Server,
                                    &id,
                                    format!("unknown shape {shape:?}"),
                                )
                            })?;
                            let shape = ServerShape {
                                shape,
                                is_preset,
                                preset_type,
                            };
                            Ok((ServerId(id), shape))
                        })
                        .collect()
                }
            }
        };
    };
}
pub(crate) use impl_server_shape_store;
