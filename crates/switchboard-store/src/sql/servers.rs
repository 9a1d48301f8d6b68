//! `mcp_servers`: seed 001's table plus seed 002's auth fields, secrets sealed.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Duration;

use switchboard_core::{Auth, OwnerId, ServerId, ServerSpec, TasksPolicy, TransportKind};

use super::common::{from_json, to_json};
use crate::error::{Entity, StoreError};
use crate::invalid::Invalid;
use crate::model::{StoredServer, Timestamp};
use crate::secret::Cipher;

const HEADERS: &str = "mcp_servers.headers";
const ENV: &str = "mcp_servers.env";
const AUTH_SECRET: &str = "mcp_servers.auth_secret";
const BASE_URL: &str = "mcp_servers.base_url";

pub(crate) const COLUMNS: &str = "id, name, type, is_active, base_url, headers, timeout_ms, \
     command, args, env, secret_env, cwd, auth_type, auth_header, auth_secret, disabled_tools, \
     auto_approve_tools, created_at, updated_at, node, oauth_config, roots, sampling, tasks";

/// One `mcp_servers` row as stored: header values, secret env values, the auth secret and a
/// URL that carries credentials sealed.
#[derive(Debug, sqlx::FromRow)]
pub(crate) struct ServerRow {
    pub id: String,
    pub name: String,
    #[sqlx(rename = "type")]
    pub kind: String,
    pub is_active: bool,
    pub base_url: Option<String>,
    pub headers: String,
    pub timeout_ms: Option<i64>,
    pub command: Option<String>,
    pub args: String,
    pub env: String,
    pub secret_env: String,
    pub cwd: Option<String>,
    pub auth_type: String,
    pub auth_header: Option<String>,
    pub auth_secret: Option<String>,
    pub disabled_tools: String,
    pub auto_approve_tools: String,
    pub created_at: i64,
    pub updated_at: i64,
    pub node: Option<String>,
    /// OAuth sign-in (`Auth::OAuth`): `{clientId?, scopes}`, the client secret sealed in
    /// `auth_secret`; `auth_type` is then `none` (see migration 0011 for why).
    pub oauth_config: Option<String>,
    /// `ServerSpec::roots` as JSON; NULL when there are none.
    pub roots: Option<String>,
    /// `ServerSpec::sampling` as JSON; NULL when absent.
    pub sampling: Option<String>,
    /// `ServerSpec::tasks` (`auto`, `always`, `never`); NULL when absent.
    pub tasks: Option<String>,
}

/// The public part of `Auth::OAuth`, kept in `oauth_config`.
#[derive(serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct OAuthConfig {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    client_id: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
}

impl ServerRow {
    pub(crate) fn encode(
        spec: &ServerSpec,
        cipher: &Cipher,
        created_at: Timestamp,
        updated_at: Timestamp,
    ) -> Result<Self, StoreError> {
        let headers = spec
            .headers
            .iter()
            .map(|(k, v)| Ok((k.clone(), cipher.seal(HEADERS, v)?)))
            .collect::<Result<BTreeMap<_, _>, StoreError>>()?;
        let env = spec
            .env
            .iter()
            .map(|(k, v)| {
                let value = if spec.secret_env.contains(k) {
                    cipher.seal(ENV, v)?
                } else {
                    v.clone()
                };
                Ok((k.clone(), value))
            })
            .collect::<Result<BTreeMap<_, _>, StoreError>>()?;
        let mut oauth_config = None;
        let (auth_type, auth_header, auth_secret) = match &spec.auth {
            Auth::None => ("none", None, None),
            Auth::OAuth {
                client_id,
                client_secret,
                scopes,
            } => {
                oauth_config = Some(to_json(&OAuthConfig {
                    client_id: client_id.clone(),
                    scopes: scopes.clone(),
                })?);
                let secret = client_secret
                    .as_deref()
                    .map(|secret| cipher.seal(AUTH_SECRET, secret))
                    .transpose()?;
                ("none", None, secret)
            }
            Auth::ApiKey { header, key } => (
                "api_key",
                Some(header.clone()),
                Some(cipher.seal(AUTH_SECRET, key)?),
            ),
            Auth::Bearer { token } => ("bearer", None, Some(cipher.seal(AUTH_SECRET, token)?)),
            _ => {
                return Err(Invalid::AuthKind.into());
            }
        };
        let cwd = match &spec.cwd {
            Some(path) => Some(path.to_str().ok_or(Invalid::CwdNotUtf8)?.to_owned()),
            None => None,
        };
        let timeout_ms = spec
            .timeout
            .map(|t| i64::try_from(t.as_millis()))
            .transpose()
            .map_err(|_| Invalid::TooLong { field: "timeout" })?;
        Ok(Self {
            id: spec.id.0.clone(),
            name: spec.name.clone(),
            kind: spec.transport.as_str().to_owned(),
            is_active: spec.enabled,
            base_url: spec
                .url
                .as_deref()
                .map(|url| cipher.seal_url(BASE_URL, url))
                .transpose()?,
            headers: to_json(&headers)?,
            timeout_ms,
            command: spec.command.clone(),
            args: to_json(&spec.args)?,
            env: to_json(&env)?,
            secret_env: to_json(&spec.secret_env)?,
            cwd,
            auth_type: auth_type.to_owned(),
            auth_header,
            auth_secret,
            disabled_tools: to_json(&spec.disabled_tools)?,
            auto_approve_tools: to_json(&spec.auto_approved_tools)?,
            created_at: created_at.0,
            updated_at: updated_at.0,
            node: spec.node.clone(),
            oauth_config,
            roots: if spec.roots.is_empty() {
                None
            } else {
                Some(to_json(&spec.roots)?)
            },
            sampling: spec.sampling.as_ref().map(to_json).transpose()?,
            tasks: spec.tasks.map(|tasks| tasks.as_str().to_owned()),
        })
    }

    /// The spec with its secrets in clear.
    pub(crate) fn decode(&self, cipher: &Cipher) -> Result<ServerSpec, StoreError> {
        let corrupt = |reason: &str| StoreError::corrupt(Entity::Server, &self.id, reason);
        let transport = match self.kind.as_str() {
            "stdio" => TransportKind::Stdio,
            "streamable_http" => TransportKind::StreamableHttp,
            "sse" => TransportKind::Sse,
            other => return Err(corrupt(&format!("unknown type {other:?}"))),
        };
        let sealed_headers: BTreeMap<String, String> =
            from_json(Entity::Server, &self.id, "headers", &self.headers)?;
        let headers = sealed_headers
            .into_iter()
            .map(|(k, v)| Ok((k, cipher.open(HEADERS, &v)?)))
            .collect::<Result<_, StoreError>>()?;
        let secret_env: BTreeSet<String> =
            from_json(Entity::Server, &self.id, "secret_env", &self.secret_env)?;
        let stored_env: BTreeMap<String, String> =
            from_json(Entity::Server, &self.id, "env", &self.env)?;
        let env = stored_env
            .into_iter()
            .map(|(k, v)| {
                let value = if secret_env.contains(&k) {
                    cipher.open(ENV, &v)?
                } else {
                    v
                };
                Ok((k, value))
            })
            .collect::<Result<_, StoreError>>()?;
        let secret = || -> Result<String, StoreError> {
            let sealed = self
                .auth_secret
                .as_deref()
                .ok_or_else(|| corrupt("auth_secret is missing"))?;
            Ok(cipher.open(AUTH_SECRET, sealed)?)
        };
        let auth = match (self.auth_type.as_str(), &self.oauth_config) {
            ("none", Some(config)) => {
                let config: OAuthConfig =
                    from_json(Entity::Server, &self.id, "oauth_config", config)?;
                let client_secret = match &self.auth_secret {
                    Some(sealed) => Some(cipher.open(AUTH_SECRET, sealed)?),
                    None => None,
                };
                Auth::OAuth {
                    client_id: config.client_id,
                    client_secret,
                    scopes: config.scopes,
                }
            }
            (_, Some(_)) => return Err(corrupt("oauth_config beside another auth_type")),
            ("none", None) => Auth::None,
            ("api_key", None) => Auth::ApiKey {
                header: self
                    .auth_header
                    .clone()
                    .ok_or_else(|| corrupt("auth_header is missing"))?,
                key: secret()?,
            },
            ("bearer", None) => Auth::Bearer { token: secret()? },
            (other, None) => return Err(corrupt(&format!("unknown auth_type {other:?}"))),
        };
        let timeout = match self.timeout_ms {
            Some(ms) => Some(Duration::from_millis(
                u64::try_from(ms).map_err(|_| corrupt("negative timeout_ms"))?,
            )),
            None => None,
        };
        Ok(ServerSpec {
            id: ServerId(self.id.clone()),
            name: self.name.clone(),
            transport,
            url: self
                .base_url
                .as_deref()
                .map(|url| cipher.open_url(BASE_URL, url))
                .transpose()?,
            command: self.command.clone(),
            args: from_json(Entity::Server, &self.id, "args", &self.args)?,
            env,
            secret_env,
            cwd: self.cwd.as_ref().map(PathBuf::from),
            headers,
            auth,
            timeout,
            enabled: self.is_active,
            disabled_tools: from_json(
                Entity::Server,
                &self.id,
                "disabled_tools",
                &self.disabled_tools,
            )?,
            auto_approved_tools: from_json(
                Entity::Server,
                &self.id,
                "auto_approve_tools",
                &self.auto_approve_tools,
            )?,
            node: self.node.clone(),
            roots: match &self.roots {
                Some(roots) => from_json(Entity::Server, &self.id, "roots", roots)?,
                None => Vec::new(),
            },
            sampling: match &self.sampling {
                Some(sampling) => Some(from_json(Entity::Server, &self.id, "sampling", sampling)?),
                None => None,
            },
            tasks: match &self.tasks {
                Some(tasks) => Some(TasksPolicy::parse(tasks).ok_or_else(|| {
                    corrupt(&format!("tasks is `{tasks}`, not auto, always or never"))
                })?),
                None => None,
            },
        })
    }

    /// The display form: decoded, then masked.
    pub(crate) fn stored(&self, cipher: &Cipher) -> Result<StoredServer, StoreError> {
        Ok(StoredServer {
            spec: self.decode(cipher)?.masked(),
            created_at: Timestamp(self.created_at),
            updated_at: Timestamp(self.updated_at),
        })
    }
}

/// Meta key that records a finished one-time import.
pub(crate) fn import_marker(owner: &OwnerId, marker: &str) -> String {
    format!("import:{owner}:{marker}")
}

/// The `ServerStore` implementation for one store type (see the module docs of `sql`).
macro_rules! impl_server_store {
    ($store:ty, $db:ty) => {
        const _: () = {
            use switchboard_core::{OwnerId, ServerId, ServerSpec};
            use $crate::error::{Entity, StoreError};
            use $crate::model::{StoredServer, Timestamp};
            use $crate::sql::common::one_row;
            use $crate::sql::servers::{COLUMNS, ServerRow, import_marker};

            impl $store {
                /// Fails with a conflict naming what is taken when `spec`'s id or name is
                /// used by another server of `owner` (`except` is the server being updated).
                async fn check_server_free(
                    conn: &mut <$db as sqlx::Database>::Connection,
                    owner: &OwnerId,
                    spec: &ServerSpec,
                    except: Option<&ServerId>,
                ) -> Result<(), StoreError> {
                    let taken: Vec<(String, String)> = sqlx::query_as(
                        "SELECT id, name FROM mcp_servers WHERE user_id = $1 AND (id = $2 OR name = $3)",
                    )
                    .bind(&owner.0)
                    .bind(&spec.id.0)
                    .bind(&spec.name)
                    .fetch_all(&mut *conn)
                    .await?;
                    for (id, name) in taken {
                        if except.is_some_and(|e| e.0 == id) {
                            continue;
                        }
                        let clash = if name == spec.name { name } else { id };
                        return Err(StoreError::Conflict {
                            entity: Entity::Server,
                            name: clash,
                        });
                    }
                    Ok(())
                }

                /// Binds `$1`..`$25`: the owner, then the row's columns in table order.
                fn bind_server<'q>(
                    query: sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>>,
                    owner: &'q OwnerId,
                    row: &'q ServerRow,
                ) -> sqlx::query::Query<'q, $db, <$db as sqlx::Database>::Arguments<'q>> {
                    query
                        .bind(&owner.0)
                        .bind(&row.id)
                        .bind(&row.name)
                        .bind(&row.kind)
                        .bind(row.is_active)
                        .bind(&row.base_url)
                        .bind(&row.headers)
                        .bind(row.timeout_ms)
                        .bind(&row.command)
                        .bind(&row.args)
                        .bind(&row.env)
                        .bind(&row.secret_env)
                        .bind(&row.cwd)
                        .bind(&row.auth_type)
                        .bind(&row.auth_header)
                        .bind(&row.auth_secret)
                        .bind(&row.disabled_tools)
                        .bind(&row.auto_approve_tools)
                        .bind(row.created_at)
                        .bind(row.updated_at)
                        .bind(&row.node)
                        .bind(&row.oauth_config)
                        .bind(&row.roots)
                        .bind(&row.sampling)
                        .bind(&row.tasks)
                }

                async fn insert_server(
                    conn: &mut <$db as sqlx::Database>::Connection,
                    owner: &OwnerId,
                    row: &ServerRow,
                ) -> Result<(), StoreError> {
                    Self::bind_server(
                        sqlx::query(
                            "INSERT INTO mcp_servers (user_id, id, name, type, is_active, \
                             base_url, headers, timeout_ms, command, args, env, secret_env, cwd, \
                             auth_type, auth_header, auth_secret, disabled_tools, \
                             auto_approve_tools, created_at, updated_at, node, oauth_config, \
                             roots, sampling, tasks) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, \
                             $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, \
                             $23, $24, $25)",
                        ),
                        owner,
                        row,
                    )
                    .execute(&mut *conn)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::Server, &row.name))?;
                    Ok(())
                }

                async fn server_row<'e, E>(
                    executor: E,
                    owner: &OwnerId,
                    id: &ServerId,
                    lock: &str,
                ) -> Result<ServerRow, StoreError>
                where
                    E: sqlx::Executor<'e, Database = $db>,
                {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM mcp_servers WHERE user_id = $1 AND id = $2{lock}"
                    );
                    sqlx::query_as::<_, ServerRow>(&sql)
                        .bind(&owner.0)
                        .bind(&id.0)
                        .fetch_optional(executor)
                        .await?
                        .ok_or_else(|| StoreError::not_found(Entity::Server, &id.0))
                }

                async fn insert_new_server(
                    &self,
                    owner: &OwnerId,
                    spec: &ServerSpec,
                    max: Option<u32>,
                ) -> Result<StoredServer, StoreError> {
                    spec.validate()?;
                    crate::text::refuse_nul("the server", spec)?;
                    if spec.holds_mask() {
                        return Err($crate::Invalid::MaskOnCreate {
                            entity: Entity::Server,
                        }
                        .into());
                    }
                    let now = Timestamp::now();
                    let row = ServerRow::encode(spec, &self.cipher, now, now)?;
                    let mut tx = self.begin_write().await?;
                    Self::check_quota(&mut tx, owner, Entity::Server, max).await?;
                    Self::check_server_free(&mut tx, owner, spec, None).await?;
                    Self::insert_server(&mut tx, owner, &row).await?;
                    tx.commit().await?;
                    self.cache.changed();
                    row.stored(&self.cipher)
                }

                async fn server_rows(&self, owner: &OwnerId) -> Result<Vec<ServerRow>, StoreError> {
                    let sql = format!(
                        "SELECT {COLUMNS} FROM mcp_servers WHERE user_id = $1 ORDER BY created_at, name"
                    );
                    Ok(sqlx::query_as::<_, ServerRow>(&sql)
                        .bind(&owner.0)
                        .fetch_all(&self.pool)
                        .await?)
                }
            }

            #[async_trait::async_trait]
            impl $crate::store::ServerStore for $store {
                async fn create_server(
                    &self,
                    owner: &OwnerId,
                    spec: &ServerSpec,
                ) -> Result<StoredServer, StoreError> {
                    self.insert_new_server(owner, spec, None).await
                }

                async fn create_server_within(
                    &self,
                    owner: &OwnerId,
                    spec: &ServerSpec,
                    max: u32,
                ) -> Result<StoredServer, StoreError> {
                    self.insert_new_server(owner, spec, Some(max)).await
                }

                async fn server(
                    &self,
                    owner: &OwnerId,
                    id: &ServerId,
                ) -> Result<StoredServer, StoreError> {
                    Self::server_row(&self.pool, owner, id, "")
                        .await?
                        .stored(&self.cipher)
                }

                async fn servers(&self, owner: &OwnerId) -> Result<Vec<StoredServer>, StoreError> {
                    self.server_rows(owner)
                        .await?
                        .iter()
                        .map(|row| row.stored(&self.cipher))
                        .collect()
                }

                async fn connection_spec(
                    &self,
                    owner: &OwnerId,
                    id: &ServerId,
                ) -> Result<ServerSpec, StoreError> {
                    if let Some(spec) = self.cache.spec(owner, id) {
                        return Ok(spec);
                    }
                    let began = self.cache.begin();
                    let spec = Self::server_row(&self.pool, owner, id, "")
                        .await?
                        .decode(&self.cipher)?;
                    self.cache.keep_spec(began, owner, &spec);
                    Ok(spec)
                }

                async fn connection_specs(
                    &self,
                    owner: &OwnerId,
                ) -> Result<Vec<ServerSpec>, StoreError> {
                    if let Some(specs) = self.cache.spec_list(owner) {
                        return Ok(specs);
                    }
                    let began = self.cache.begin();
                    let specs = self
                        .server_rows(owner)
                        .await?
                        .iter()
                        .map(|row| row.decode(&self.cipher))
                        .collect::<Result<Vec<_>, _>>()?;
                    self.cache.keep_spec_list(began, owner, &specs);
                    Ok(specs)
                }

                async fn update_server(
                    &self,
                    owner: &OwnerId,
                    id: &ServerId,
                    spec: &ServerSpec,
                ) -> Result<StoredServer, StoreError> {
                    self.edit_server(owner, id, &|old: &ServerSpec| {
                        // A masked URL sent back is the stored one (restored before comparing).
                        let mut restored = spec.clone();
                        restored.keep_masked_secrets(old);
                        if spec.holds_mask()
                            && (restored.url != old.url || spec.transport != old.transport)
                        {
                            // Keeping a secret for a new destination would send it there.
                            return Err($crate::Invalid::MaskForNewDestination {
                                entity: Entity::Server,
                                field: "URL",
                            }
                            .into());
                        }
                        Ok(restored)
                    })
                    .await
                }

                async fn edit_server(
                    &self,
                    owner: &OwnerId,
                    id: &ServerId,
                    edit: $crate::store::ServerEdit<'_>,
                ) -> Result<StoredServer, StoreError> {
                    let mut tx = self.begin_write().await?;
                    let old = Self::server_row(&mut *tx, owner, id, Self::LOCK).await?;
                    let spec = edit(&old.decode(&self.cipher)?)?;
                    crate::text::refuse_nul("the server", &spec)?;
                    if spec.id != *id {
                        return Err($crate::Invalid::IdChanged {
                            entity: Entity::Server,
                        }
                        .into());
                    }
                    spec.validate()?;
                    Self::check_server_free(&mut tx, owner, &spec, Some(id)).await?;
                    let row = ServerRow::encode(
                        &spec,
                        &self.cipher,
                        Timestamp(old.created_at),
                        Timestamp::now(),
                    )?;
                    // The same parameters as the insert, so one binding serves both.
                    let done = Self::bind_server(
                        sqlx::query(
                            "UPDATE mcp_servers SET name = $3, type = $4, is_active = $5, \
                             base_url = $6, headers = $7, timeout_ms = $8, command = $9, \
                             args = $10, env = $11, secret_env = $12, cwd = $13, \
                             auth_type = $14, auth_header = $15, auth_secret = $16, \
                             disabled_tools = $17, auto_approve_tools = $18, created_at = $19, \
                             updated_at = $20, node = $21, oauth_config = $22, roots = $23, \
                             sampling = $24, tasks = $25 \
                             WHERE user_id = $1 AND id = $2",
                        ),
                        owner,
                        &row,
                    )
                    .execute(&mut *tx)
                    .await
                    .map_err(|e| StoreError::from_write(e, Entity::Server, &row.name))?;
                    one_row(done.rows_affected(), Entity::Server, &id.0)?;
                    tx.commit().await?;
                    self.cache.changed();
                    row.stored(&self.cipher)
                }

                async fn delete_server(
                    &self,
                    owner: &OwnerId,
                    id: &ServerId,
                ) -> Result<(), StoreError> {
                    let done = sqlx::query("DELETE FROM mcp_servers WHERE user_id = $1 AND id = $2")
                        .bind(&owner.0)
                        .bind(&id.0)
                        .execute(&mut *self.writer().await?)
                        .await?;
                    self.cache.changed();
                    one_row(done.rows_affected(), Entity::Server, &id.0)
                }

                async fn imported(
                    &self,
                    owner: &OwnerId,
                    marker: &str,
                ) -> Result<bool, StoreError> {
                    let done: Option<(String,)> =
                        sqlx::query_as("SELECT value FROM meta WHERE key = $1")
                            .bind(import_marker(owner, marker))
                            .fetch_optional(&self.pool)
                            .await?;
                    Ok(done.is_some())
                }

                async fn import_servers_once(
                    &self,
                    owner: &OwnerId,
                    marker: &str,
                    specs: &[ServerSpec],
                ) -> Result<Option<usize>, StoreError> {
                    if marker.contains([':', '%', '_']) {
                        return Err($crate::Invalid::ImportMarker.into());
                    }
                    for spec in specs {
                        spec.validate()?;
                        crate::text::refuse_nul("the server", spec)?;
                    }
                    let now = Timestamp::now();
                    let mut tx = self.begin_write().await?;
                    // The marker goes in first: of two processes importing at once, one
                    // inserts it and imports, the other finds it taken and does nothing.
                    let claimed = sqlx::query(
                        "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
                    )
                    .bind(import_marker(owner, marker))
                    .bind(now.0.to_string())
                    .execute(&mut *tx)
                    .await?;
                    if claimed.rows_affected() == 0 {
                        return Ok(None);
                    }
                    let mut added = 0;
                    for (i, spec) in specs.iter().enumerate() {
                        match Self::check_server_free(&mut tx, owner, spec, None).await {
                            Ok(()) => {}
                            Err(StoreError::Conflict { .. }) => continue,
                            Err(e) => return Err(e),
                        }
                        // One millisecond apart, so they list in the order given.
                        let at = Timestamp(now.0 + i64::try_from(i).unwrap_or(i64::MAX));
                        let row = ServerRow::encode(spec, &self.cipher, at, at)?;
                        Self::insert_server(&mut tx, owner, &row).await?;
                        added += 1;
                    }
                    tx.commit().await?;
                    self.cache.changed();
                    Ok(Some(added))
                }
            }
        };
    };
}
pub(crate) use impl_server_store;
