//! One puzzle test: make inputs, run the spec, run the learner's kernel, compare, apply budgets.

pub mod outcome;
