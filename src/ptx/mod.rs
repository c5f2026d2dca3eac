//! ptx (under construction)
