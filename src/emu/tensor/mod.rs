//! Tensor-core instructions, one file per family, apart from the scheduler: fragment layouts
//! (`layout.rs`), `mma.sync` (`mma.rs`) and the 8x8 matrix moves `ldmatrix`/`stmatrix`/
//! `movmatrix` (`matrix.rs`) are pure functions of the warp's registers and memory rows, which
//! `block/tensor.rs` runs as warp collectives (every lane of the warp must arrive, as
//! `.aligned` requires), reading and writing shared memory through the ordinary checked,
//! counted accesses; `wmma.rs` runs the WMMA load, store and multiply-accumulate of `mma.h`
//! as warp-wide operations. `mma_fused.rs` runs `mma.rs`'s commonest form straight from and into
//! a lockstep run's register file with fused multiply-adds, the same bits.

pub mod layout;
pub mod matrix;
pub mod mma;
pub mod mma_fused;
pub mod wmma;
