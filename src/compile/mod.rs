//! compile (under construction)
