//! A launch's buffers placed as far apart in the GPU's virtual address space as the emulator
//! places them (`emu::BUFFER_STRIDE`, 128 GiB), so a wild index lands in no buffer on a GPU
//! either, and the instrumentation (which allows an access only inside one buffer) reports it
//! against nothing rather than letting it write another buffer.
//!
//! Device memory is real, so the gaps are not memory: one address range is reserved
//! (`cuMemAddressReserve`, which costs no memory) and each buffer's pages alone are backed and
//! mapped into it (`cuMemCreate` + `cuMemMap`), rounded up to the allocation granularity
//! (2 MiB on current GPUs). Addresses between buffers stay unmapped; nothing touches them, since
//! the instrumentation skips every access outside a buffer before it is made.
//!
//! Not every driver or device has virtual memory management (or lets a process reserve this
//! much address space); `driver::Launchable` then falls back to one arena with 16 MiB red
//! zones (`driver::arena_layout`), where an index past 16 MiB can still reach the next buffer.
//!
//! The layout is a pure function, unit tested here; the driver calls run only on a GPU
//! (`tests/gpu_backend.rs`, and the GPU kit's wild-write probe).

use super::driver::DriverFailure;
use super::probe::describe;
use crate::emu::BUFFER_STRIDE as STRIDE;
use cudarc::driver::{result, sys};

/// Where each buffer starts in the reserved range, how many bytes are backed for it, and the
/// range's size: buffer `i` at `(i + 1) * STRIDE` (so an underrun of the first buffer finds
/// no buffer either), each backed by its length rounded up to `granularity` (at least one page).
/// `None` when a buffer is as long as the stride (it would reach the next one).
pub fn spread_layout(lens: &[u64], granularity: u64) -> Option<(Vec<u64>, Vec<u64>, u64)> {
    let granularity = granularity.max(1);
    let mut offsets = Vec::with_capacity(lens.len());
    let mut backed = Vec::with_capacity(lens.len());
    for (i, &len) in lens.iter().enumerate() {
        let size = len.max(1).div_ceil(granularity) * granularity;
        if size >= STRIDE {
            return None;
        }
        offsets.push((i as u64 + 1) * STRIDE);
        backed.push(size);
    }
    Some((offsets, backed, (lens.len() as u64 + 1) * STRIDE))
}

/// One backed piece of the range: its address, size and physical allocation.
struct Piece {
    ptr: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    mapped: bool,
}

/// The reserved range and the buffers mapped into it; unmapped, released and freed on drop.
pub struct Spread {
    base: sys::CUdeviceptr,
    reserved: usize,
    pieces: Vec<Piece>,
}

fn check(call: &str, r: sys::CUresult) -> Result<(), DriverFailure> {
    r.result()
        .map_err(|e| DriverFailure(format!("{call}: {}", describe(e))))
}

fn location(device: sys::CUdevice) -> sys::CUmemLocation {
    sys::CUmemLocation {
        type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
        id: device,
    }
}

fn properties(device: sys::CUdevice) -> sys::CUmemAllocationProp {
    // SAFETY: a plain C struct of integers and one pointer, for which all-zero is the
    // documented default; the fields that matter are set below.
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location = location(device);
    prop
}

impl Spread {
    /// Reserve the range and back one zeroed piece per buffer of `lens` bytes.
    pub fn new(device: sys::CUdevice, lens: &[u64]) -> Result<Spread, DriverFailure> {
        let prop = properties(device);
        let mut granularity = 0usize;
        // SAFETY: writes one size_t; `prop` is a valid description.
        check("cuMemGetAllocationGranularity", unsafe {
            sys::cuMemGetAllocationGranularity(
                &mut granularity,
                &prop,
                sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
            )
        })?;
        let (offsets, backed, total) =
            spread_layout(lens, granularity as u64).ok_or_else(|| {
                DriverFailure("a buffer is too large to be placed apart from the others".into())
            })?;
        let reserved = usize::try_from(total)
            .map_err(|_| DriverFailure(format!("{total} bytes of address space do not fit")))?;
        let mut base: sys::CUdeviceptr = 0;
        // SAFETY: writes one pointer; reserves address space only.
        check("cuMemAddressReserve", unsafe {
            sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0)
        })?;
        let mut spread = Spread {
            base,
            reserved,
            pieces: Vec::with_capacity(lens.len()),
        };
        let access = sys::CUmemAccessDesc {
            location: location(device),
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        for (&off, &size) in offsets.iter().zip(&backed) {
            let size = size as usize;
            let mut handle: sys::CUmemGenericAllocationHandle = 0;
            // SAFETY: writes one handle; released in Drop (the piece is pushed right after).
            check("cuMemCreate", unsafe {
                sys::cuMemCreate(&mut handle, size, &prop, 0)
            })?;
            let ptr = base + off;
            spread.pieces.push(Piece {
                ptr,
                size,
                handle,
                mapped: false,
            });
            // SAFETY: `ptr..ptr + size` lies inside the reservation (spread_layout) and
            // `handle` holds `size` bytes.
            check("cuMemMap", unsafe {
                sys::cuMemMap(ptr, size, 0, handle, 0)
            })?;
            if let Some(p) = spread.pieces.last_mut() {
                p.mapped = true;
            }
            // SAFETY: the range just mapped; one access descriptor.
            check("cuMemSetAccess", unsafe {
                sys::cuMemSetAccess(ptr, size, &access, 1)
            })?;
            // SAFETY: the whole mapped piece.
            unsafe { result::memset_d8_sync(ptr, 0, size) }
                .map_err(|e| DriverFailure(format!("cuMemsetD8: {}", describe(e))))?;
        }
        Ok(spread)
    }

    /// The start of each buffer, in the order of `new`'s `lens`.
    pub fn addresses(&self) -> Vec<u64> {
        self.pieces.iter().map(|p| p.ptr).collect()
    }
}

impl Drop for Spread {
    fn drop(&mut self) {
        for p in &self.pieces {
            // SAFETY: each piece was mapped (if `mapped`) and created by `new`, and is undone
            // once, here.
            unsafe {
                if p.mapped {
                    let _ = sys::cuMemUnmap(p.ptr, p.size);
                }
                let _ = sys::cuMemRelease(p.handle);
            }
        }
        // SAFETY: reserved by `new`, freed once.
        let _ = unsafe { sys::cuMemAddressFree(self.base, self.reserved) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_sit_a_stride_apart_with_nothing_below_the_first() {
        let (off, backed, total) = spread_layout(&[16, 3 << 20, 0], 2 << 20).unwrap();
        assert_eq!(off, vec![STRIDE, 2 * STRIDE, 3 * STRIDE]);
        assert_eq!(backed, vec![2 << 20, 4 << 20, 2 << 20]);
        assert_eq!(total, 4 * STRIDE);
        // Past the end of one buffer by less than the stride is never another buffer.
        for (i, (&o, &b)) in off.iter().zip(&backed).enumerate() {
            assert!(o + b <= (i as u64 + 2) * STRIDE);
        }
    }

    #[test]
    fn a_buffer_as_long_as_the_stride_is_not_placed() {
        assert_eq!(spread_layout(&[8, STRIDE], 1 << 21), None);
        assert_eq!(spread_layout(&[], 1 << 21), Some((vec![], vec![], STRIDE)));
    }
}
