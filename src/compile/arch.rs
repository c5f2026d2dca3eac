//! The compile target: which GPU architecture NVRTC compiles for (`--arch sm_90`, `arch =
//! "sm_90"` in a puzzle file). sm_80 is the default: what the emulator models (an A100), and
//! what every GPU gpuzzle's GPU backend supports can load. A newer target unlocks what its
//! hardware has (sm_90: thread-block clusters, distributed shared memory, `elect.sync`,
//! `atomicAdd` on `float2`/`float4`); the emulator runs all of them alike.
//!
//! On a GPU with no `--arch` given, the backend compiles for the device's own compute
//! capability (one of these, or the nearest below it), see `for_device`.

use std::fmt;

/// A target gpuzzle compiles for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Arch {
    /// Ampere (A100): the default.
    #[default]
    Sm80,
    /// Ampere (RTX 30xx).
    Sm86,
    /// Ada (RTX 40xx, L4, L40).
    Sm89,
    /// Hopper (H100, H200): clusters, distributed shared memory, TMA, wgmma.
    Sm90,
}

/// What `--arch` accepts, for messages.
pub const ARCH_NAMES: &str = "sm_80, sm_86, sm_89 or sm_90";

impl Arch {
    pub const ALL: [Arch; 4] = [Arch::Sm80, Arch::Sm86, Arch::Sm89, Arch::Sm90];

    /// `sm_90`, also `sm90`, `90`, `compute_90` and `9.0`.
    pub fn parse(s: &str) -> Option<Arch> {
        let t = s.trim().to_ascii_lowercase();
        let digits = t
            .strip_prefix("sm_")
            .or_else(|| t.strip_prefix("compute_"))
            .or_else(|| t.strip_prefix("sm"))
            .unwrap_or(&t)
            .replace('.', "");
        Arch::ALL
            .into_iter()
            .find(|a| a.number().to_string() == digits)
    }

    /// 80, 86, 89, 90.
    pub fn number(self) -> u32 {
        match self {
            Arch::Sm80 => 80,
            Arch::Sm86 => 86,
            Arch::Sm89 => 89,
            Arch::Sm90 => 90,
        }
    }

    /// NVRTC's `--gpu-architecture` value: `compute_90` (PTX for that virtual architecture).
    pub fn nvrtc_option(self) -> String {
        format!("--gpu-architecture=compute_{}", self.number())
    }

    /// The target for a device of compute capability `(major, minor)`: its own where gpuzzle
    /// knows it, else the newest one below it (sm_80 for anything older, which then cannot
    /// load the PTX and says so).
    pub fn for_device(cc: (i32, i32)) -> Arch {
        let n = (cc.0.max(0) * 10 + cc.1.max(0)) as u32;
        Arch::ALL
            .into_iter()
            .rev()
            .find(|a| a.number() <= n)
            .unwrap_or_default()
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.number())
    }
}

/// `--arch` on the command line.
pub fn parse_arch_arg(s: &str) -> Result<Arch, String> {
    Arch::parse(s)
        .ok_or_else(|| format!("`{s}` is not a target gpuzzle compiles for: give {ARCH_NAMES}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_spellings_people_use() {
        assert_eq!(Arch::parse("sm_90"), Some(Arch::Sm90));
        assert_eq!(Arch::parse("compute_86"), Some(Arch::Sm86));
        assert_eq!(Arch::parse("89"), Some(Arch::Sm89));
        assert_eq!(Arch::parse("8.0"), Some(Arch::Sm80));
        assert_eq!(Arch::parse("sm_75"), None);
        assert_eq!(Arch::parse("sm_100"), None);
        assert_eq!(Arch::default().to_string(), "sm_80");
        assert_eq!(Arch::Sm90.nvrtc_option(), "--gpu-architecture=compute_90");
    }

    #[test]
    fn the_target_is_among_the_options_so_in_the_cache_key() {
        let extra = [Arch::Sm90.nvrtc_option()];
        let mut req = crate::compile::CompileRequest::new("k.cu", "");
        req.extra_options = &extra;
        let with = crate::compile::options_for(&req).unwrap_or_default();
        assert!(with.contains(&"--gpu-architecture=compute_90".to_string()));
        assert!(!with.iter().any(|o| o.ends_with("compute_80")), "{with:?}");
        let default = crate::compile::options_for(&crate::compile::CompileRequest::new("k.cu", ""))
            .unwrap_or_default();
        assert!(default.contains(&"--gpu-architecture=compute_80".to_string()));
    }

    #[test]
    fn a_device_gets_its_own_target_or_the_newest_below() {
        assert_eq!(Arch::for_device((9, 0)), Arch::Sm90);
        assert_eq!(Arch::for_device((8, 7)), Arch::Sm86);
        assert_eq!(Arch::for_device((12, 0)), Arch::Sm90);
        assert_eq!(Arch::for_device((7, 5)), Arch::Sm80);
    }
}
