//! The store's behaviour, the same on SQLite and on Postgres: every test here runs on a fresh
//! SQLite file, and on a fresh Postgres database when `SWITCHBOARD_TEST_POSTGRES` is set.

// Test code: a failed unwrap is a failed test, which is what it should be.
#![allow(clippy::unwrap_used)]

#[path = "../common/mod.rs"]
mod common;

mod assistants;
mod audit;
mod chat_settings;
mod concurrency;
mod conversations;
mod forks;
mod isolation;
mod leases;
mod nul_text;
mod oauth;
mod providers;
mod quotas;
mod read_cache;
mod search;
mod server_shapes;
mod servers;
mod sessions;
mod tasks;
mod tool_nodes;
mod users;
mod vectors;
mod views;
