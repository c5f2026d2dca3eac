//! gpu (under construction)
