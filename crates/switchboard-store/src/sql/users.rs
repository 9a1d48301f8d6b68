//! `users` and `api_tokens`. Tokens are random 256-bit strings; only their SHA-256 is kept
//! (a token is as strong as a key, so a slow password hash would buy nothing), and a lookup is
//! one indexed equality on the hash.

use aes_gcm::aead::OsRng;
use aes_gcm::aead::rand_core::RngCore;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use switchboard_core::OwnerId;

use crate::error::{Entity, StoreError};
use crate::model::{ApiToken, Role, Timestamp, User};

/// Every token starts with this, so a leaked one is easy to recognise in a scanner.
pub const TOKEN_PREFIX: &str = "sb_";

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct UserRow {
    pub id: String,
    pub name: String,
    pub role: String,
    pub created_at: i64,
    pub locale: Option<String>,
}

impl UserRow {
    pub(crate) fn decode(self) -> Result<User, StoreError> {
        let role = Role::parse(&self.role).ok_or_else(|| {
            StoreError::corrupt(
                Entity::User,
                &self.id,
                format!("unknown role {:?}", self.role),
            )
        })?;
        let locale = match self.locale {
            Some(tag) => Some(tag.parse().map_err(|e: switchboard_core::UnknownLocale| {
                StoreError::corrupt(Entity::User, &self.id, e.to_string())
            })?),
            None => None,
        };
        Ok(User {
            id: OwnerId(self.id),
            name: self.name,
            role,
            created_at: Timestamp(self.created_at),
            locale,
        })
    }
}

#[derive(Debug, sqlx::FromRow)]
pub(crate) struct TokenRow {
    pub id: String,
    pub user_id: String,
    pub label: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub view_id: Option<String>,
}

/// A live token's user with the view it is limited to (`LEFT JOIN mcp_views`).
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct AccessRow {
    #[sqlx(flatten)]
    pub user: UserRow,
    pub view_id: Option<String>,
    pub view_name: Option<String>,
    pub expires_at: Option<i64>,
}

impl AccessRow {
    pub(crate) fn decode(self) -> Result<crate::model::TokenAccess, StoreError> {
        let view = match (self.view_id, self.view_name) {
            (Some(id), Some(name)) => Some(crate::model::TokenView { id, name }),
            (None, _) => None,
            // The foreign key deletes a view's tokens with it, so this is a broken row.
            (Some(id), None) => {
                return Err(StoreError::corrupt(
                    Entity::ApiToken,
                    &id,
                    "a token's view does not exist",
                ));
            }
        };
        Ok(crate::model::TokenAccess {
            user: self.user.decode()?,
            view,
        })
    }
}

impl TokenRow {
    pub(crate) fn decode(self) -> ApiToken {
        ApiToken {
            id: self.id,
            user_id: OwnerId(self.user_id),
            label: self.label,
            created_at: Timestamp(self.created_at),
            expires_at: self.expires_at.map(Timestamp),
            view_id: self.view_id,
        }
    }
}

/// A fresh token secret.
pub(crate) fn new_token_secret() -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    format!("{TOKEN_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// What is stored for a token secret.
/// It is computed for every request that brings a token, so it is written out without a
/// `format!` per byte (32 allocations a request).
pub(crate) fn token_hash(secret: &str) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let digest = Sha256::digest(secret.as_bytes());
    let mut hex = String::with_capacity(digest.len() * 2);
    for byte in digest {
        hex.push(char::from(DIGITS[usize::from(byte >> 4)]));
        hex.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    hex
}

pub(crate) fn check_name(name: &str) -> Result<(), StoreError> {
    crate::text::refuse_nul("name", name)?;
    if name.trim().is_empty() {
        Err(crate::Invalid::Empty { field: "name" }.into())
    } else {
        Ok(())
    }
}

macro_rules! impl_user_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::OwnerId;
            use $crate::error::{Entity, StoreError};
            use $crate::model::{ApiToken, IssuedToken, Role, Timestamp, TokenAccess, User, new_id};
            use $crate::sql::common::one_row;
            use $crate::sql::users::{
                AccessRow, TokenRow, UserRow, check_name, new_token_secret, token_hash,
            };

            #[async_trait::async_trait]
            impl $crate::store::UserStore for $store {
                async fn create_user(&self, name: &str, role: Role) -> Result<User, StoreError> {
                    check_name(name)?;
                    let row = UserRow {
                        id: new_id(),
                        name: name.to_owned(),
                        role: role.as_str().to_owned(),
                        created_at: Timestamp::now().0,
                        locale: None,
                    };
                    sqlx::query(
                        "INSERT INTO users (id, name, role, created_at) VALUES ($1, $2, $3, $4)",
                    )
                    .bind(&row.id)
                    .bind(&row.name)
                    .bind(&row.role)
                    .bind(row.created_at)
                    .execute(&mut *self.writer().await?)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::User, name))?;
                    row.decode()
                }

                async fn ensure_user(
                    &self,
                    id: &OwnerId,
                    name: &str,
                    role: Role,
                ) -> Result<User, StoreError> {
                    check_name(name)?;
                    sqlx::query(
                        "INSERT INTO users (id, name, role, created_at) VALUES ($1, $2, $3, $4) \
                         ON CONFLICT (id) DO NOTHING",
                    )
                    .bind(&id.0)
                    .bind(name)
                    .bind(role.as_str())
                    .bind(Timestamp::now().0)
                    .execute(&mut *self.writer().await?)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::User, name))?;
                    self.user(id).await
                }

                async fn user(&self, id: &OwnerId) -> Result<User, StoreError> {
                    if let Some(user) = self.cache.user(id) {
                        return Ok(user);
                    }
                    let began = self.cache.begin();
                    let user = sqlx::query_as::<_, UserRow>(
                        "SELECT id, name, role, created_at, locale FROM users WHERE id = $1",
                    )
                    .bind(&id.0)
                    .fetch_optional(&self.pool)
                    .await?
                    .ok_or_else(|| StoreError::not_found(Entity::User, &id.0))?
                    .decode()?;
                    self.cache.keep_user(began, &user);
                    Ok(user)
                }

                async fn users(&self) -> Result<Vec<User>, StoreError> {
                    sqlx::query_as::<_, UserRow>(
                        "SELECT id, name, role, created_at, locale FROM users ORDER BY created_at, id",
                    )
                    .fetch_all(&self.pool)
                    .await?
                    .into_iter()
                    .map(UserRow::decode)
                    .collect()
                }

                async fn delete_user(&self, id: &OwnerId) -> Result<(), StoreError> {
                    let mut tx = self.begin_write().await?;
                    let done = sqlx::query("DELETE FROM users WHERE id = $1")
                        .bind(&id.0)
                        .execute(&mut *tx)
                        .await?;
                    one_row(done.rows_affected(), Entity::User, &id.0)?;
                    // A user made again with the same id imports again.
                    sqlx::query("DELETE FROM meta WHERE key LIKE $1")
                        .bind($crate::sql::servers::import_marker(id, "%"))
                        .execute(&mut *tx)
                        .await?;
                    tx.commit().await?;
                    self.cache.changed();
                    Ok(())
                }

                async fn issue_token_for(
                    &self,
                    user: &OwnerId,
                    label: &str,
                    expires_at: Option<Timestamp>,
                    view_id: Option<&str>,
                ) -> Result<IssuedToken, StoreError> {
                    crate::text::refuse_nul("label", label)?;
                    self.user(user).await?;
                    if let Some(view) = view_id {
                        // Another owner's view is "not found", like one that does not exist.
                        $crate::store::ViewStore::view(self, user, view).await?;
                    }
                    let secret = new_token_secret();
                    let row = TokenRow {
                        id: new_id(),
                        user_id: user.0.clone(),
                        label: label.to_owned(),
                        created_at: Timestamp::now().0,
                        expires_at: expires_at.map(|t| t.0),
                        view_id: view_id.map(str::to_owned),
                    };
                    // A view deleted between the check and here fails the foreign key: the
                    // token is not issued.
                    sqlx::query(
                        "INSERT INTO api_tokens (id, user_id, label, token_hash, created_at, \
                         expires_at, view_id) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    )
                    .bind(&row.id)
                    .bind(&row.user_id)
                    .bind(&row.label)
                    .bind(token_hash(&secret))
                    .bind(row.created_at)
                    .bind(row.expires_at)
                    .bind(&row.view_id)
                    .execute(&mut *self.writer().await?)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::ApiToken, label))?;
                    Ok(IssuedToken {
                        token: row.decode(),
                        secret,
                    })
                }

                async fn tokens(&self, user: &OwnerId) -> Result<Vec<ApiToken>, StoreError> {
                    Ok(sqlx::query_as::<_, TokenRow>(
                        "SELECT id, user_id, label, created_at, expires_at, view_id FROM api_tokens \
                         WHERE user_id = $1 ORDER BY created_at, id",
                    )
                    .bind(&user.0)
                    .fetch_all(&self.pool)
                    .await?
                    .into_iter()
                    .map(TokenRow::decode)
                    .collect())
                }

                async fn revoke_token(
                    &self,
                    user: &OwnerId,
                    token_id: &str,
                ) -> Result<(), StoreError> {
                    let done = sqlx::query("DELETE FROM api_tokens WHERE user_id = $1 AND id = $2")
                        .bind(&user.0)
                        .bind(token_id)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    self.cache.changed();
                    one_row(done.rows_affected(), Entity::ApiToken, token_id)
                }

                async fn set_user_locale(
                    &self,
                    id: &OwnerId,
                    locale: Option<switchboard_core::Locale>,
                ) -> Result<User, StoreError> {
                    let done = sqlx::query("UPDATE users SET locale = $1 WHERE id = $2")
                        .bind(locale.map(|l| l.as_str()))
                        .bind(&id.0)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    self.cache.changed();
                    one_row(done.rows_affected(), Entity::User, &id.0)?;
                    self.user(id).await
                }

                async fn token_access(
                    &self,
                    secret: &str,
                ) -> Result<Option<TokenAccess>, StoreError> {
                    let hash = token_hash(secret);
                    if let Some(access) = self.cache.token(&hash) {
                        return Ok(Some(access));
                    }
                    let began = self.cache.begin();
                    let row = sqlx::query_as::<_, AccessRow>(
                        "SELECT u.id, u.name, u.role, u.created_at, u.locale, \
                         t.view_id, v.name AS view_name, t.expires_at FROM users u \
                         JOIN api_tokens t ON t.user_id = u.id \
                         LEFT JOIN mcp_views v ON v.id = t.view_id AND v.user_id = u.id \
                         WHERE t.token_hash = $1 \
                         AND (t.expires_at IS NULL OR t.expires_at > $2)",
                    )
                    .bind(&hash)
                    .bind(Timestamp::now().0)
                    .fetch_optional(&self.pool)
                    .await?;
                    let Some(row) = row else { return Ok(None) };
                    let expires_at = row.expires_at.map(Timestamp);
                    let access = row.decode()?;
                    self.cache.keep_token(began, hash, &access, expires_at);
                    Ok(Some(access))
                }
            }
        };
    };
}
pub(crate) use impl_user_store;

#[cfg(test)]
mod tests {
    use super::token_hash;

    #[test]
    fn a_token_is_stored_as_its_sha256_in_lowercase_hex() {
        // Stored hashes of tokens made before must still match.
        assert_eq!(
            token_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
