//! `providers`: LLM endpoints, the API key sealed, and the base URL too when it carries
//! credentials (shown masked, like the key).

use switchboard_core::MASK;

use crate::error::{Entity, StoreError};
use crate::model::{Provider, ProviderConfig, ProviderKind, Timestamp};
use crate::secret::Cipher;

const API_KEY: &str = "providers.api_key";
const BASE_URL: &str = "providers.base_url";

pub(crate) const COLUMNS: &str =
    "id, name, kind, base_url, api_key, default_model, created_at, updated_at";

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ProviderRow {
    pub id: String,
    pub name: String,
    pub kind: String,
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    pub default_model: String,
    pub created_at: i64,
    pub updated_at: i64,
}

impl ProviderRow {
    /// The row for `config`; a key given as the mask keeps `stored_key` (already sealed).
    pub(crate) fn encode(
        id: String,
        config: &ProviderConfig,
        stored_key: Option<String>,
        cipher: &Cipher,
        created_at: Timestamp,
    ) -> Result<Self, StoreError> {
        let api_key = match config.api_key.as_deref() {
            Some(MASK) => stored_key,
            Some(key) if !key.is_empty() => Some(cipher.seal(API_KEY, key)?),
            _ => None,
        };
        Ok(Self {
            id,
            name: config.name.clone(),
            kind: config.kind.as_str().to_owned(),
            base_url: config
                .base_url
                .as_deref()
                .map(|url| cipher.seal_url(BASE_URL, url))
                .transpose()?,
            api_key,
            default_model: config.default_model.clone(),
            created_at: created_at.0,
            updated_at: Timestamp::now().0,
        })
    }

    /// The provider with its key in clear (`reveal`) or masked.
    pub(crate) fn decode(&self, cipher: &Cipher, reveal: bool) -> Result<Provider, StoreError> {
        let kind = ProviderKind::parse(&self.kind).ok_or_else(|| {
            StoreError::corrupt(
                Entity::Provider,
                &self.id,
                format!("unknown kind {:?}", self.kind),
            )
        })?;
        let api_key = match &self.api_key {
            // Opened even when masked, so a damaged key shows up on display too.
            Some(sealed) => {
                let key = cipher.open(API_KEY, sealed)?;
                Some(if reveal { key } else { MASK.to_owned() })
            }
            None => None,
        };
        let base_url = self
            .base_url
            .as_deref()
            .map(|url| cipher.open_url(BASE_URL, url))
            .transpose()?
            .map(|url| {
                if reveal {
                    url
                } else {
                    switchboard_core::spec::mask_url(&url)
                }
            });
        Ok(Provider {
            id: self.id.clone(),
            config: ProviderConfig {
                name: self.name.clone(),
                kind,
                base_url,
                api_key,
                default_model: self.default_model.clone(),
                keep_api_key: false,
            },
            created_at: Timestamp(self.created_at),
            updated_at: Timestamp(self.updated_at),
        })
    }
}

macro_rules! impl_provider_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::OwnerId;
            use $crate::error::{Entity, StoreError};
            use $crate::model::{Provider, ProviderConfig, Timestamp, new_id};
            use $crate::sql::common::one_row;
            use $crate::sql::providers::{COLUMNS, ProviderRow};

            impl $store {
                async fn insert_new_provider(
                    &self,
                    owner: &OwnerId,
                    config: &ProviderConfig,
                    max: Option<u32>,
                ) -> Result<Provider, StoreError> {
                    config.validate()?;
                    if config.api_key.as_deref() == Some(switchboard_core::MASK)
                        || config
                            .base_url
                            .as_deref()
                            .is_some_and(switchboard_core::spec::url_holds_mask)
                    {
                        return Err($crate::Invalid::MaskOnCreate {
                            entity: Entity::Provider,
                        }
                        .into());
                    }
                    let row =
                        ProviderRow::encode(new_id(), config, None, &self.cipher, Timestamp::now())?;
                    let mut tx = self.begin_write().await?;
                    Self::check_quota(&mut tx, owner, Entity::Provider, max).await?;
                    sqlx::query(
                        "INSERT INTO providers (id, user_id, name, kind, base_url, api_key, \
                         default_model, created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                    )
                    .bind(&row.id)
                    .bind(&owner.0)
                    .bind(&row.name)
                    .bind(&row.kind)
                    .bind(&row.base_url)
                    .bind(&row.api_key)
                    .bind(&row.default_model)
                    .bind(row.created_at)
                    .bind(row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::Provider, &row.name))?;
                    tx.commit().await?;
                    row.decode(&self.cipher, false)
                }

                async fn provider_row<'e, E>(
                    executor: E,
                    owner: &OwnerId,
                    id: &str,
                    lock: &str,
                ) -> Result<ProviderRow, StoreError>
                where
                    E: sqlx::Executor<'e, Database = $db>,
                {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM providers WHERE user_id = $1 AND id = $2{lock}"
                    );
                    sqlx::query_as::<_, ProviderRow>(&sql)
                        .bind(&owner.0)
                        .bind(id)
                        .fetch_optional(executor)
                        .await?
                        .ok_or_else(|| StoreError::not_found(Entity::Provider, id))
                }
            }

            #[async_trait::async_trait]
            impl $crate::store::ProviderStore for $store {
                async fn create_provider(
                    &self,
                    owner: &OwnerId,
                    config: &ProviderConfig,
                ) -> Result<Provider, StoreError> {
                    self.insert_new_provider(owner, config, None).await
                }

                async fn create_provider_within(
                    &self,
                    owner: &OwnerId,
                    config: &ProviderConfig,
                    max: u32,
                ) -> Result<Provider, StoreError> {
                    self.insert_new_provider(owner, config, Some(max)).await
                }

                async fn provider(&self, owner: &OwnerId, id: &str) -> Result<Provider, StoreError> {
                    Self::provider_row(&self.pool, owner, id, "")
                        .await?
                        .decode(&self.cipher, false)
                }

                async fn provider_with_key(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                ) -> Result<Provider, StoreError> {
                    Self::provider_row(&self.pool, owner, id, "")
                        .await?
                        .decode(&self.cipher, true)
                }

                async fn providers(&self, owner: &OwnerId) -> Result<Vec<Provider>, StoreError> {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM providers WHERE user_id = $1 ORDER BY created_at, id"
                    );
                    sqlx::query_as::<_, ProviderRow>(&sql)
                        .bind(&owner.0)
                        .fetch_all(&self.pool)
                        .await?
                        .iter()
                        .map(|row| row.decode(&self.cipher, false))
                        .collect()
                }

                async fn update_provider(
                    &self,
                    owner: &OwnerId,
                    id: &str,
                    config: &ProviderConfig,
                ) -> Result<Provider, StoreError> {
                    config.validate()?;
                    let mut tx = self.begin_write().await?;
                    let old = Self::provider_row(&mut *tx, owner, id, Self::LOCK).await?;
                    // Masks sent back stand for the stored secrets, the key only for the same
                    // origin unless the edit says to take it along.
                    let saved = old.decode(&self.cipher, true)?;
                    let config = config.with_saved_secrets(&saved.config)?;
                    let row = ProviderRow::encode(
                        old.id.clone(),
                        &config,
                        old.api_key.clone(),
                        &self.cipher,
                        Timestamp(old.created_at),
                    )?;
                    let done = sqlx::query(
                        "UPDATE providers SET name = $3, kind = $4, base_url = $5, api_key = $6, \
                         default_model = $7, updated_at = $8 WHERE user_id = $1 AND id = $2",
                    )
                    .bind(&owner.0)
                    .bind(id)
                    .bind(&row.name)
                    .bind(&row.kind)
                    .bind(&row.base_url)
                    .bind(&row.api_key)
                    .bind(&row.default_model)
                    .bind(row.updated_at)
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::Provider, &row.name))?;
                    one_row(done.rows_affected(), Entity::Provider, id)?;
                    tx.commit().await?;
                    row.decode(&self.cipher, false)
                }

                async fn delete_provider(&self, owner: &OwnerId, id: &str) -> Result<(), StoreError> {
                    let done = sqlx::query("DELETE FROM providers WHERE user_id = $1 AND id = $2")
                        .bind(&owner.0)
                        .bind(id)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    one_row(done.rows_affected(), Entity::Provider, id)
                }
            }
        };
    };
}
pub(crate) use impl_provider_store;
