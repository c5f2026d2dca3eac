//! puzzle (under construction)
