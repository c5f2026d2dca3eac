//! gpu (under construction)

pub mod probe;
