//! Teaching on top of the verdict: what gpuzzle tells a learner beyond pass or fail.
//!
//! - `hints`: the `[[mistake]]` hints of a puzzle that answer what a failed run saw.

pub mod hints;
