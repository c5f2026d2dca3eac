//! The tensor-core family's semantics, apart from the scheduler: fragment layouts
//! (`layout.rs`), `mma.sync` (`mma.rs`) and the 8x8 matrix moves `ldmatrix`/`stmatrix`/
//! `movmatrix` (`matrix.rs`). These are pure functions of the warp's registers and memory rows;
//! `block/tensor.rs` runs them as warp collectives (every lane of the warp must arrive, as
//! `.aligned` requires), reading and writing shared memory through the ordinary checked,
//! counted accesses.

pub mod layout;
pub mod matrix;
pub mod mma;
