//! The integration tests of `switchboard-server`, one binary: each module is one behaviour (one test
//! binary per crate links the workspace once rather than once per file).

mod common;

mod access_log;
mod catalogue_api;
mod chat_api;
mod chat_server_content;
mod chat_settings_api;
mod chat_tasks;
mod chat_tool_nodes;
mod chat_turns;
mod conversation_search_api;
mod crud_api;
mod dead_server;
mod i18n_api;
mod i18n_words;
mod import_api;
mod input_api;
mod isolation;
mod locales;
mod metrics_api;
mod nodes_api;
mod oauth_api;
mod oauth_on_node;
mod openapi;
mod provider_models;
mod security_data;
mod security_errors;
mod security_launch;
mod security_limits;
mod security_origin;
mod security_secrets;
mod security_ssrf;
mod seed_000;
mod seed_001;
mod seed_002;
mod seed_003;
mod seed_servers_shared;
mod server_content_api;
mod server_test_unsaved;
mod servers_api;
mod tasks_api;
mod tool_call_service;
mod tool_nodes_api;
mod views_api;
mod web_assets;
