//! The integration tests of `switchboard`, one binary: each module is one behaviour (one test
//! binary per crate links the workspace once rather than once per file).

mod common;

mod cli_chat;
mod cli_config;
mod cli_demo;
mod cli_identity;
mod cli_login;
mod cli_schema;
mod cli_serve;
mod cli_server_json;
mod cli_servers;
mod cli_store;
mod cli_tool_nodes;
mod cli_users;
mod error_words;
mod faults;
mod gateway_http;
mod gateway_interop;
mod gateway_matrix;
mod gateway_relayed_fields;
mod gateway_search;
mod gateway_stdio;
mod gateway_tasks;
mod load;
mod nodes;
mod nodes_chat;
mod nodes_gateway;
mod nodes_lifecycle;
mod nodes_replicas;
mod nodes_security;
mod oauth_replicas;
mod security_cli;
mod security_content_secrets;
mod security_errors;
mod security_launch;
mod security_limits;
mod security_origin;
mod security_secrets;
mod security_ssrf;
mod stdio_guard;
mod web_ui;
