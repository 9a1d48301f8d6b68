//! `switchboard users list | add | remove | token | tokens | revoke`: the users of the HTTP
//! API and their API tokens, straight on the store.
//!
//! Commands name a user by name or, failing that, by id. A token's secret is printed once,
//! when it is issued; the store keeps only its hash, so listings never show it. Unlike the
//! server commands these do not create the `local` user: the users listed are exactly those
//! in the store (and `serve` only makes its first `admin` on a store with no users at all).

use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Subcommand, ValueEnum};
use serde_json::{Value, json};
use switchboard_store::prelude::*;
use switchboard_store::{IssuedToken, Role, StoreError, Timestamp, User};

use super::{CliError, Context};
use crate::output;

/// The label of the token `users add` issues.
const FIRST_TOKEN_LABEL: &str = "created with the user";

#[derive(Debug, Subcommand)]
pub enum UsersCommand {
    /// List the users.
    List,
    /// Add a user and print a first API token for them.
    Add {
        /// A unique name for the user.
        name: String,
        /// What the user may do: admins manage users and may configure stdio servers.
        #[arg(long, value_enum, default_value_t = RoleArg::Member)]
        role: RoleArg,
        /// Do not issue an API token (issue one later with `switchboard users token`).
        #[arg(long)]
        no_token: bool,
    },
    /// Remove a user and everything they own (servers, conversations, tokens...).
    Remove {
        /// The user's name (or id).
        user: String,
    },
    /// Issue another API token for a user; its secret is shown once.
    Token {
        /// The user's name (or id).
        user: String,
        /// What the token is for, shown in `switchboard users tokens`.
        #[arg(long, value_name = "L", default_value = "issued on the command line")]
        label: String,
        /// Refuse the token after this long (`30d`, `12h`, `90min`); by default it lasts until
        /// revoked. Event streams opened with it end when it expires.
        #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
        expires_in: Option<std::time::Duration>,
        /// Limit the token to the user's MCP gateway view NAME: it then opens only `/mcp` and
        /// `/mcp/v/NAME` (for an MCP client's configuration file), and goes with the view.
        #[arg(long, value_name = "NAME")]
        view: Option<String>,
    },
    /// List a user's API tokens (never their secrets).
    Tokens {
        /// The user's name (or id).
        user: String,
    },
    /// Revoke one of a user's API tokens.
    Revoke {
        /// The user's name (or id).
        user: String,
        /// The token's id, as `switchboard users tokens` shows it.
        token_id: String,
    },
}

/// `--role` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RoleArg {
    /// Manages users and may configure stdio servers (which run commands on the host).
    Admin,
    /// Uses the API with their own servers, assistants and conversations.
    Member,
}

impl From<RoleArg> for Role {
    fn from(value: RoleArg) -> Self {
        match value {
            RoleArg::Admin => Role::Admin,
            RoleArg::Member => Role::Member,
        }
    }
}

pub async fn run(context: &Context, command: UsersCommand) -> anyhow::Result<ExitCode> {
    let store = switchboard_store::open(&context.store)
        .await
        .context("cannot open the store")?;
    let store = store.as_ref();
    let json = context.json;
    let result = match command {
        UsersCommand::List => list(store, json).await,
        UsersCommand::Add {
            name,
            role,
            no_token,
        } => add(store, json, &name, role.into(), !no_token).await,
        UsersCommand::Remove { user } => remove(store, json, &user).await,
        UsersCommand::Token {
            user,
            label,
            expires_in,
            view,
        } => token(store, json, &user, &label, expires_in, view.as_deref()).await,
        UsersCommand::Tokens { user } => tokens(store, json, &user).await,
        UsersCommand::Revoke { user, token_id } => revoke(store, json, &user, &token_id).await,
    };
    store.close().await;
    result.map(|()| ExitCode::SUCCESS)
}

/// The user called (or with the id) `key`.
async fn find(store: &dyn Store, key: &str) -> Result<User, CliError> {
    let mut users = store.users().await?;
    let index = (users.iter().position(|u| u.name == key))
        .or_else(|| users.iter().position(|u| u.id.0 == key))
        .ok_or_else(|| CliError::UserNotFound(key.to_owned()))?;
    Ok(users.swap_remove(index))
}

async fn list(store: &dyn Store, json: bool) -> anyhow::Result<()> {
    let users = store.users().await?;
    if json {
        output::print_json(&users);
    } else if users.is_empty() {
        outln!("no users (add one with `switchboard users add`)");
    } else {
        let rows: Vec<Vec<String>> = users
            .iter()
            .map(|u| {
                let role = u.role.as_str().to_owned();
                vec![u.id.0.clone(), u.name.clone(), role, when(u.created_at)]
            })
            .collect();
        out!(
            "{}",
            output::table(&["ID", "NAME", "ROLE", "CREATED"], &rows)
        );
    }
    Ok(())
}

async fn add(
    store: &dyn Store,
    json: bool,
    name: &str,
    role: Role,
    with_token: bool,
) -> anyhow::Result<()> {
    let user = store
        .create_user(name, role)
        .await
        .map_err(|error| match error {
            StoreError::Conflict { .. } => CliError::Taken {
                source: error,
                hint: "choose another name",
            },
            other => CliError::Store(other),
        })?;
    let issued = if with_token {
        Some(store.issue_token(&user.id, FIRST_TOKEN_LABEL).await?)
    } else {
        None
    };
    if json {
        let token = issued.as_ref().map(token_json);
        output::print_json(&json!({ "user": user, "token": token }));
    } else {
        let role = user.role.as_str();
        outln!("added user `{}` ({role}) with id {}", user.name, user.id.0);
        match &issued {
            Some(issued) => print_secret(&user, issued),
            None => outln!(
                "no API token yet; issue one with `switchboard users token {}`",
                user.name
            ),
        }
    }
    Ok(())
}

async fn remove(store: &dyn Store, json: bool, key: &str) -> anyhow::Result<()> {
    let user = find(store, key).await?;
    store.delete_user(&user.id).await?;
    if json {
        output::print_json(&json!({ "removed": user.name, "id": user.id }));
    } else {
        outln!("removed user `{}` and everything they owned", user.name);
    }
    Ok(())
}

async fn token(
    store: &dyn Store,
    json: bool,
    key: &str,
    label: &str,
    expires_in: Option<std::time::Duration>,
    view: Option<&str>,
) -> anyhow::Result<()> {
    let user = find(store, key).await?;
    let view_id = match view {
        Some(name) => Some(store.view_by_name(&user.id, name).await?.id),
        None => None,
    };
    let expires_at = match expires_in {
        Some(after) => {
            let ms = i64::try_from(after.as_millis())
                .ok()
                .and_then(|ms| Timestamp::now().0.checked_add(ms))
                .ok_or_else(|| anyhow::anyhow!("--expires-in is too long"))?;
            Some(Timestamp(ms))
        }
        None => None,
    };
    let issued = store
        .issue_token_for(&user.id, label, expires_at, view_id.as_deref())
        .await?;
    if json {
        output::print_json(&json!({ "user": user.name, "token": token_json(&issued) }));
    } else {
        outln!("issued token {} for `{}`", issued.token.id, user.name);
        if let Some(name) = view {
            outln!("it opens only the MCP view `{name}` (/mcp and /mcp/v/{name})");
        }
        if let Some(at) = issued.token.expires_at {
            outln!("it expires at {} UTC", when(at));
        }
        print_secret(&user, &issued);
    }
    Ok(())
}

async fn tokens(store: &dyn Store, json: bool, key: &str) -> anyhow::Result<()> {
    let user = find(store, key).await?;
    let tokens = store.tokens(&user.id).await?;
    if json {
        output::print_json(&tokens);
    } else if tokens.is_empty() {
        outln!(
            "no API tokens for `{0}` (issue one with `switchboard users token {0}`)",
            user.name
        );
    } else {
        let rows: Vec<Vec<String>> = tokens
            .iter()
            .map(|t| {
                let expires = t.expires_at.map_or_else(|| "never".to_owned(), when);
                vec![t.id.clone(), t.label.clone(), when(t.created_at), expires]
            })
            .collect();
        out!(
            "{}",
            output::table(&["ID", "LABEL", "CREATED", "EXPIRES"], &rows)
        );
    }
    Ok(())
}

async fn revoke(store: &dyn Store, json: bool, key: &str, token_id: &str) -> anyhow::Result<()> {
    let user = find(store, key).await?;
    store.revoke_token(&user.id, token_id).await?;
    if json {
        output::print_json(&json!({ "revoked": token_id, "user": user.name }));
    } else {
        outln!("revoked token {token_id} of `{}`", user.name);
    }
    Ok(())
}

/// A token just issued, as `--json` prints it: the listed fields and, this once, the secret.
fn token_json(issued: &IssuedToken) -> Value {
    let token = &issued.token;
    json!({
        "id": token.id,
        "userId": token.user_id,
        "label": token.label,
        "createdAt": token.created_at,
        "expiresAt": token.expires_at,
        "viewId": token.view_id,
        "secret": issued.secret,
    })
}

fn print_secret(user: &User, issued: &IssuedToken) {
    outln!(
        "API token for {} (shown once, keep it): {}",
        user.name,
        issued.secret
    );
}

/// A stored time as `YYYY-MM-DD HH:MM:SS` in UTC.
fn when(at: Timestamp) -> String {
    crate::demo::clock::rfc3339_utc(at.0.div_euclid(1000))
        .replace('T', " ")
        .trim_end_matches('Z')
        .to_owned()
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    fn parse(argv: &[&str]) -> UsersCommand {
        let cli = Cli::try_parse_from(["switchboard", "users"].iter().chain(argv))
            .unwrap_or_else(|e| panic!("{e}"));
        match cli.command {
            Command::Users(command) => command,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn add_makes_members_with_a_token_by_default() {
        let UsersCommand::Add { role, no_token, .. } = parse(&["add", "alice"]) else {
            panic!("not add");
        };
        assert_eq!((role, no_token), (RoleArg::Member, false));
        let UsersCommand::Add { role, no_token, .. } =
            parse(&["add", "root", "--role", "admin", "--no-token"])
        else {
            panic!("not add");
        };
        assert_eq!((role, no_token), (RoleArg::Admin, true));
        assert!(
            Cli::try_parse_from(["switchboard", "users", "add", "x", "--role", "god"]).is_err()
        );
    }

    #[test]
    fn times_are_shown_in_utc() {
        assert_eq!(when(Timestamp(0)), "1970-01-01 00:00:00");
        assert_eq!(when(Timestamp(951_782_400_999)), "2000-02-29 00:00:00");
        assert_eq!(when(Timestamp(1_735_689_599_000)), "2024-12-31 23:59:59");
        assert_eq!(when(Timestamp(-1)), "1969-12-31 23:59:59");
    }
}
