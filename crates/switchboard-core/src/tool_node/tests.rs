//! Unit tests of the tool-node model.
