//! What an access to memory does (`Kind`: read, write or atomic update), as the checkers of
//! shared and global memory and the launch's watch record it. A leaf, so that the checkers'
//! state (`shadow.rs`, `race.rs`, `context.rs`) need not import the memory path (`access.rs`).

use super::facts::Access as FAccess;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Read,
    Write,
    Atomic,
}

impl Kind {
    /// As the facts say it.
    pub(super) fn access(self) -> FAccess {
        match self {
            Kind::Read => FAccess::Read,
            Kind::Write => FAccess::Write,
            Kind::Atomic => FAccess::Atomic,
        }
    }

    pub(super) fn verb(self) -> &'static str {
        match self {
            Kind::Read => "read",
            Kind::Write => "wrote",
            Kind::Atomic => "atomically updated",
        }
    }
}
