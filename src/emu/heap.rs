//! The device heap behind `malloc` and `free` (`new` and `delete` compile to them): one region
//! of global memory per launch, [`HEAP_SIZE`] bytes as CUDA's default `cudaLimitMallocHeapSize`.
//! `malloc` past it returns NULL, as on a GPU. Freed memory is not handed out again within the
//! launch: reusing it would make two threads' unrelated writes look like a race.

use std::collections::HashMap;
use std::sync::Mutex;

/// Bytes of the device heap (CUDA's default heap size, 8 MiB).
pub const HEAP_SIZE: u64 = 8 << 20;

/// What messages call the heap's memory.
pub const HEAP_NAME: &str = "malloc'd memory (the device heap)";

/// Every allocation starts on this boundary (as CUDA's `malloc` aligns).
const ALIGN: u64 = 16;

/// Why `free` was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum FreeError {
    #[error("its address was never returned by malloc or new")]
    NotAllocated,
    #[error("it was already freed")]
    Twice,
}

pub struct Heap {
    base: u64,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    /// Bytes handed out so far, from `base`.
    used: u64,
    /// Allocations by address: still live or freed.
    blocks: HashMap<u64, bool>,
}

impl Heap {
    /// A heap of [`HEAP_SIZE`] bytes starting at global address `base`.
    pub fn new(base: u64) -> Heap {
        Heap {
            base,
            state: Mutex::new(State::default()),
        }
    }

    /// An allocation of `size` bytes, or 0 (NULL) when the heap has no room left.
    pub fn malloc(&self, size: u64) -> u64 {
        let Ok(mut s) = self.state.lock() else {
            return 0;
        };
        let len = size.max(1).div_ceil(ALIGN).saturating_mul(ALIGN);
        if len > HEAP_SIZE - s.used {
            return 0;
        }
        let addr = self.base + s.used;
        s.used += len;
        s.blocks.insert(addr, true);
        addr
    }

    /// Give back an allocation; freeing NULL does nothing.
    pub fn free(&self, addr: u64) -> Result<(), FreeError> {
        if addr == 0 {
            return Ok(());
        }
        let Ok(mut s) = self.state.lock() else {
            return Ok(());
        };
        match s.blocks.get_mut(&addr) {
            None => Err(FreeError::NotAllocated),
            Some(live) if !*live => Err(FreeError::Twice),
            Some(live) => {
                *live = false;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allocations_are_aligned_apart_and_end_in_null() {
        let h = Heap::new(0x1000);
        let a = h.malloc(3);
        let b = h.malloc(40);
        assert_eq!((a, b), (0x1000, 0x1010));
        assert_eq!(h.malloc(HEAP_SIZE), 0);
        let c = h.malloc(16);
        assert_eq!(c, 0x1040);
        assert_eq!(h.malloc(u64::MAX), 0);
    }

    #[test]
    fn free_checks_its_address() {
        let h = Heap::new(0x1000);
        let a = h.malloc(8);
        assert_eq!(h.free(0), Ok(()));
        assert_eq!(h.free(a + 4), Err(FreeError::NotAllocated));
        assert_eq!(h.free(a), Ok(()));
        assert_eq!(h.free(a), Err(FreeError::Twice));
    }
}
