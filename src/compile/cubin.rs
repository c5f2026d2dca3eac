//! CUBINs: assembled once per PTX text, target and assembler, kept beside the PTX cache
//! (`<cache>/cubin/<key>.cubin`), and read back only after their ELF header says they are CUDA
//! code for the architecture asked for.
//!
//! The key is a SHA-256 of the PTX, the target (`sm_90`) and the assembler's full version and
//! file size, so a newer ptxas, or a ptxas swapped in place, assembles afresh. Entries are
//! written to a temporary file and renamed; an entry that cannot be read, or whose header is
//! not a CUBIN for its target, is a miss, never an error: assembling again is always correct.

use super::assembler::Assembler;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Bump when the meaning of a key changes.
const FORMAT: &str = "gpuzzle-cubin-v1";

/// The ELF machine number of CUDA code (`EM_CUDA`).
const EM_CUDA: u16 = 190;

/// What a CUBIN's ELF header says about it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CubinHeader {
    /// The SM it runs on: 80, 86, 90 ...
    pub sm: u32,
    /// Built for the architecture-specific feature set (`sm_90a`), which runs on that SM only.
    pub accelerated: bool,
    /// The CUDA ELF ABI version (7 up to CUDA 12; 8 from CUDA 13, which moved the SM field).
    pub abi_version: u8,
}

impl CubinHeader {
    /// `sm_90`, `sm_90a`.
    pub fn target(&self) -> String {
        format!("sm_{}{}", self.sm, if self.accelerated { "a" } else { "" })
    }
}

/// Reads the header of a CUBIN: a 64-bit little-endian ELF for `EM_CUDA`. `Err` says what is
/// not as expected.
pub fn cubin_header(bytes: &[u8]) -> Result<CubinHeader, String> {
    if bytes.len() < 64 {
        return Err(format!(
            "{} bytes, too short for an ELF header",
            bytes.len()
        ));
    }
    if &bytes[..4] != b"\x7fELF" {
        return Err("no ELF magic".to_string());
    }
    if bytes[4] != 2 || bytes[5] != 1 {
        return Err("not a 64-bit little-endian ELF".to_string());
    }
    let machine = u16::from_le_bytes([bytes[18], bytes[19]]);
    if machine != EM_CUDA {
        return Err(format!("ELF machine {machine}, not CUDA ({EM_CUDA})"));
    }
    let abi_version = bytes[8];
    let flags = u32::from_le_bytes([bytes[48], bytes[49], bytes[50], bytes[51]]);
    // ABI 7: the SM in bits 0-7, `a` as 0x800. ABI 8 (CUDA 13): the SM in bits 8-15, `a` as 0x8.
    let (sm, accelerated) = match abi_version {
        0..=7 => (flags & 0xff, flags & 0x800 != 0),
        _ => ((flags >> 8) & 0xff, flags & 0x8 != 0),
    };
    if sm == 0 {
        return Err(format!("no SM in its flags ({flags:#x})"));
    }
    Ok(CubinHeader {
        sm,
        accelerated,
        abi_version,
    })
}

/// An assembled module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cubin {
    pub bytes: Vec<u8>,
    pub header: CubinHeader,
    /// Read from the cache rather than assembled now.
    pub cached: bool,
}

/// The CUBIN cache in `dir` (normally [`cubin_cache_dir`]).
#[derive(Debug, Clone)]
pub struct CubinCache {
    dir: PathBuf,
}

/// `<PTX cache>/cubin`.
pub fn cubin_cache_dir() -> PathBuf {
    super::cache_dir().join("cubin")
}

impl CubinCache {
    pub fn new(dir: PathBuf) -> CubinCache {
        CubinCache { dir }
    }

    /// The process's cache, beside the PTX cache.
    pub fn default_place() -> CubinCache {
        CubinCache::new(cubin_cache_dir())
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The entry's file name for these inputs.
    pub fn key(ptx: &str, target: &str, assembler: &Assembler) -> String {
        let size = std::fs::metadata(&assembler.path).map_or(0, |m| m.len());
        let mut hasher = Sha256::new();
        for field in [
            FORMAT.as_bytes(),
            ptx.as_bytes(),
            target.as_bytes(),
            assembler.full_version.as_bytes(),
            &size.to_le_bytes(),
        ] {
            hasher.update((field.len() as u64).to_le_bytes());
            hasher.update(field);
        }
        hasher
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// The CUBIN of `ptx` for `target` (`sm_90`, `sm_90a`): from the cache, else assembled by
    /// `assembler` and stored. `Err` is why there is none (ptxas's own message, or a header
    /// that is not the target's).
    pub fn get(&self, ptx: &str, target: &str, assembler: &Assembler) -> Result<Cubin, String> {
        let key = Self::key(ptx, target, assembler);
        let path = self.dir.join(format!("{key}.cubin"));
        if let Ok(bytes) = std::fs::read(&path) {
            if let Ok(header) = cubin_header(&bytes) {
                if header.target() == target {
                    return Ok(Cubin {
                        bytes,
                        header,
                        cached: true,
                    });
                }
            }
        }
        let bytes = assembler.assemble(ptx, target)?;
        let header = cubin_header(&bytes)
            .map_err(|e| format!("{} wrote no CUBIN: {e}", assembler.name()))?;
        if header.target() != target {
            return Err(format!(
                "{} wrote a CUBIN for {}, not {target}",
                assembler.name(),
                header.target()
            ));
        }
        self.store(&key, &bytes);
        Ok(Cubin {
            bytes,
            header,
            cached: false,
        })
    }

    /// Best effort: a cache that cannot be written only means assembling again.
    fn store(&self, key: &str, bytes: &[u8]) {
        if std::fs::create_dir_all(&self.dir).is_err() {
            return;
        }
        let temp = self.dir.join(format!(".{key}.{}.tmp", std::process::id()));
        let written = std::fs::write(&temp, bytes)
            .and_then(|()| std::fs::rename(&temp, self.dir.join(format!("{key}.cubin"))));
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 64-byte ELF header as ptxas writes one, with `flags` and `abi`.
    fn header(abi: u8, flags: u32) -> Vec<u8> {
        let mut b = vec![0u8; 64];
        b[..4].copy_from_slice(b"\x7fELF");
        b[4] = 2;
        b[5] = 1;
        b[7] = 51;
        b[8] = abi;
        b[18..20].copy_from_slice(&EM_CUDA.to_le_bytes());
        b[48..52].copy_from_slice(&flags.to_le_bytes());
        b
    }

    #[test]
    fn the_sm_is_read_from_both_abi_versions() {
        // What ptxas 12.9 writes for sm_80, sm_90 and sm_90a.
        let h = cubin_header(&header(7, 0x500550)).unwrap();
        assert_eq!(
            (h.sm, h.accelerated, h.target()),
            (80, false, "sm_80".into())
        );
        let h = cubin_header(&header(7, 0x50055a)).unwrap();
        assert_eq!(h.target(), "sm_90");
        let h = cubin_header(&header(7, 0x500d5a)).unwrap();
        assert_eq!(h.target(), "sm_90a");
        // CUDA 13's layout: the SM one byte up.
        let h = cubin_header(&header(8, 0x5a00)).unwrap();
        assert_eq!(h.target(), "sm_90");
    }

    #[test]
    fn what_is_not_a_cubin_says_why() {
        assert!(cubin_header(b"\x7fELF").unwrap_err().contains("too short"));
        let mut b = header(7, 0x50);
        b[0] = 0;
        assert!(cubin_header(&b).unwrap_err().contains("magic"));
        let mut b = header(7, 0x50);
        b[18] = 62; // x86-64
        assert!(cubin_header(&b).unwrap_err().contains("not CUDA"));
        assert!(cubin_header(&header(7, 0)).unwrap_err().contains("no SM"));
    }

    #[test]
    fn the_key_follows_ptx_target_and_assembler_version() {
        let a = Assembler {
            path: PathBuf::from("/nonexistent/ptxas"),
            found_by: "test".into(),
            version: (12, 9),
            full_version: "12.9.86".into(),
        };
        let k = CubinCache::key("ptx", "sm_90", &a);
        assert_eq!(k.len(), 64);
        assert_eq!(k, CubinCache::key("ptx", "sm_90", &a));
        assert_ne!(k, CubinCache::key("ptx2", "sm_90", &a));
        assert_ne!(k, CubinCache::key("ptx", "sm_80", &a));
        let newer = Assembler {
            full_version: "12.9.87".into(),
            ..a.clone()
        };
        assert_ne!(k, CubinCache::key("ptx", "sm_90", &newer));
    }
}
