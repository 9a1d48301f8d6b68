//! Asking the downstream person, by elicitation, before a tool that is not auto-approved runs.
