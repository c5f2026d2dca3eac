//! A thread's local memory (its local arrays and call frames), allocated lazily: a page is
//! made on its first write, and a read of a page never written gives zeros. A kernel that
//! declares `float big[100000]` thus costs only the pages it touches, per thread, instead of
//! 400 KB per thread up front (a block of 1024 threads would take 400 MB before running).

/// Bytes per page. Small enough that a sparse array stays small, large enough that a dense
/// one has few pages to look up.
const PAGE: usize = 4096;

/// Local memory of `len` bytes, zero until written.
#[derive(Default)]
pub(super) struct LocalMem {
    len: usize,
    pages: Vec<Option<Box<[u8; PAGE]>>>,
}

impl LocalMem {
    /// `len` bytes of zeros (no page made yet).
    pub(super) fn zeroed(len: usize) -> LocalMem {
        let mut m = LocalMem::default();
        m.resize(len);
        m
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Drop every byte (and page).
    pub(super) fn clear(&mut self) {
        self.len = 0;
        self.pages.clear();
    }

    /// Grow with zeros or shrink to `len` bytes.
    pub(super) fn resize(&mut self, len: usize) {
        if len < self.len {
            self.truncate(len);
            return;
        }
        self.len = len;
        self.pages.resize_with(len.div_ceil(PAGE), || None);
    }

    /// Keep the first `len` bytes; the bytes past it read as zeros if the memory grows again.
    pub(super) fn truncate(&mut self, len: usize) {
        if len >= self.len {
            return;
        }
        self.len = len;
        self.pages.truncate(len.div_ceil(PAGE));
        let last = self.pages.len().saturating_sub(1);
        if let Some(Some(page)) = self.pages.last_mut() {
            page[len - last * PAGE..].fill(0);
        }
    }

    /// The `size` bytes (at most 8) at `off`, little-endian; `None` past the end.
    pub(super) fn read(&self, off: usize, size: usize) -> Option<u64> {
        let end = off.checked_add(size)?;
        if end > self.len || size > 8 {
            return None;
        }
        let mut bytes = [0u8; 8];
        let (page, at) = (off / PAGE, off % PAGE);
        if at + size <= PAGE {
            // Within one page (every aligned access): one lookup.
            if let Some(Some(p)) = self.pages.get(page) {
                bytes[..size].copy_from_slice(&p[at..at + size]);
            }
            return Some(u64::from_le_bytes(bytes));
        }
        for (i, b) in bytes[..size].iter_mut().enumerate() {
            let at = off + i;
            if let Some(Some(page)) = self.pages.get(at / PAGE) {
                *b = page[at % PAGE];
            }
        }
        Some(u64::from_le_bytes(bytes))
    }

    /// Write the low `size` bytes (at most 8) of `v` at `off`, making pages as needed; false
    /// (and nothing written) past the end.
    pub(super) fn write(&mut self, off: usize, size: usize, v: u64) -> bool {
        let Some(end) = off.checked_add(size) else {
            return false;
        };
        if end > self.len || size > 8 {
            return false;
        }
        let bytes = v.to_le_bytes();
        let (page, at) = (off / PAGE, off % PAGE);
        if at + size <= PAGE {
            // Within one page (every aligned access): one lookup.
            return match self.pages.get_mut(page) {
                Some(slot) => {
                    slot.get_or_insert_with(|| Box::new([0; PAGE]))[at..at + size]
                        .copy_from_slice(&bytes[..size]);
                    true
                }
                None => false,
            };
        }
        for (i, b) in bytes[..size].iter().enumerate() {
            let at = off + i;
            let Some(slot) = self.pages.get_mut(at / PAGE) else {
                return false;
            };
            slot.get_or_insert_with(|| Box::new([0; PAGE]))[at % PAGE] = *b;
        }
        true
    }

    /// Pages made so far (for tests of the laziness).
    #[cfg(test)]
    fn pages_made(&self) -> usize {
        self.pages.iter().filter(|p| p.is_some()).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_are_made_only_where_written() {
        let mut m = LocalMem::zeroed(400_000);
        assert_eq!(m.pages_made(), 0);
        assert_eq!(m.read(123_456, 4), Some(0));
        assert!(m.write(200_000, 4, 0xdead_beef));
        assert_eq!(m.pages_made(), 1);
        assert_eq!(m.read(200_000, 4), Some(0xdead_beef));
        assert_eq!(m.read(200_002, 2), Some(0xdead));
        // Across a page boundary.
        assert!(m.write(PAGE - 2, 4, 0x0102_0304));
        assert_eq!(m.read(PAGE - 2, 4), Some(0x0102_0304));
        assert_eq!(m.pages_made(), 3);
        assert_eq!(m.read(399_998, 4), None);
        assert!(!m.write(399_998, 4, 1));
    }

    #[test]
    fn shrinking_and_growing_again_gives_zeros() {
        let mut m = LocalMem::zeroed(100);
        assert!(m.write(40, 8, u64::MAX));
        m.truncate(44);
        assert_eq!(m.len(), 44);
        m.resize(100);
        assert_eq!(m.read(40, 8), Some(0xffff_ffff));
        m.clear();
        m.resize(100);
        assert_eq!(m.read(40, 8), Some(0));
    }
}
