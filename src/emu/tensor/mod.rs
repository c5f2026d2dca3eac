//! Tensor-core instructions, one file per family: `wmma.rs` runs the WMMA load, store and
//! multiply-accumulate of `mma.h` as warp-wide operations.

pub mod wmma;
