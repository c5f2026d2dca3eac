//! The spec's run for one test, through the spec-result cache (`compile::SpecCache`).
//!
//! A spec's outputs are a pure function of its PTX, entry, launch, step limit, arguments (each
//! scalar's type and bits; each buffer's name, type and bytes, outputs' initial bytes
//! included) and the module variables it is given: all of these are the key. The judge keeps
//! only the outputs' bytes of a spec run (no printf, counters or steps), so that is all an
//! entry holds; only a run without any diagnostic is stored, so a broken spec is reported as
//! freshly as ever.

use crate::compile::{SpecCache, SpecKey, SpecKeyBuilder};
use crate::emu::result::RunResult;
use crate::emu::value::{Buffer, KernelArg, Scalar};
use crate::emu::{self, EmuError, EmuOptions, LaunchConfig};
use crate::ptx::Module;

/// A compiled spec: its parsed module, and its PTX (for the cache key).
pub(super) struct CompiledSpec {
    pub module: Module,
    pub ptx: std::sync::Arc<str>,
}

/// What a spec run gives the judge: its outputs only (other buffers dropped: peak memory),
/// or the run's result with its diagnostics for the judge to report as a broken spec.
pub(super) enum SpecRun {
    Clean(RunResult),
    Diagnosed(RunResult),
}

/// Runs `spec` (one thread) with `args`, or reads its outputs from `cache` (`None`: off).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_spec(
    spec: &CompiledSpec,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    symbols: &[Buffer],
    outputs: &[&str],
    opts: &EmuOptions,
    cache: Option<&SpecCache>,
) -> Result<SpecRun, EmuError> {
    let key = cache.map(|_| key_of(&spec.ptx, kernel, cfg, &args, symbols, opts.step_limit));
    if let (Some(cache), Some(key)) = (cache, &key) {
        if let Some(found) = from_cache(cache, key, &args, outputs) {
            return Ok(SpecRun::Clean(found));
        }
    }
    let (mut result, _) = emu::run_with_symbols(&spec.module, kernel, cfg, args, symbols, opts)?;
    if !result.diagnostics.is_empty() {
        return Ok(SpecRun::Diagnosed(result));
    }
    result
        .buffers
        .retain(|b| outputs.contains(&b.name.as_str()));
    if let (Some(cache), Some(key)) = (cache, &key) {
        let kept: Vec<(&str, &[u8])> = result
            .buffers
            .iter()
            .map(|b| (b.name.as_str(), b.data.as_slice()))
            .collect();
        cache.store(key, &kept);
    }
    Ok(SpecRun::Clean(result))
}

fn key_of(
    ptx: &str,
    kernel: &str,
    cfg: &LaunchConfig,
    args: &[KernelArg],
    symbols: &[Buffer],
    step_limit: u64,
) -> SpecKey {
    let mut k = SpecKeyBuilder::new();
    k.field(ptx.as_bytes()).field(kernel.as_bytes());
    for d in cfg.grid.iter().chain(&cfg.block) {
        k.field(&d.to_le_bytes());
    }
    k.field(&(cfg.dynamic_shared as u64).to_le_bytes())
        .field(&[cfg.cooperative as u8])
        .field(&step_limit.to_le_bytes());
    let scalar = |k: &mut SpecKeyBuilder, s: &Scalar| {
        k.field(format!("{:?}", s.ty).as_bytes())
            .field(&s.bits.to_le_bytes());
    };
    k.field(&(args.len() as u64).to_le_bytes());
    for a in args {
        match a {
            KernelArg::Scalar(s) => {
                k.field(b"scalar");
                scalar(&mut k, s);
            }
            KernelArg::Buffer(b) => {
                k.field(b"buffer");
                buffer(&mut k, b);
            }
            KernelArg::Struct { bytes, fields } => {
                k.field(b"struct").field(bytes);
                k.field(&(fields.len() as u64).to_le_bytes());
                for f in fields {
                    scalar(&mut k, f);
                }
            }
        }
    }
    k.field(&(symbols.len() as u64).to_le_bytes());
    for s in symbols {
        buffer(&mut k, s);
    }
    k.finish()
}

fn buffer(k: &mut SpecKeyBuilder, b: &Buffer) {
    k.field(b.name.as_bytes())
        .field(format!("{:?}", b.ty).as_bytes())
        .field(&b.data);
}

/// The cached outputs as the run would have left them: each output argument's name and type
/// with the stored bytes, which must be exactly as long as the argument (else a miss).
fn from_cache(
    cache: &SpecCache,
    key: &SpecKey,
    args: &[KernelArg],
    outputs: &[&str],
) -> Option<RunResult> {
    let stored = cache.load(key)?;
    let mut buffers = Vec::new();
    for a in args {
        let KernelArg::Buffer(b) = a else { continue };
        if !outputs.contains(&b.name.as_str()) {
            continue;
        }
        let (_, data) = stored.iter().find(|(n, _)| *n == b.name)?;
        if data.len() != b.data.len() {
            return None;
        }
        buffers.push(Buffer {
            name: b.name.clone(),
            ty: b.ty,
            data: data.clone(),
        });
    }
    (buffers.len() == stored.len()).then(|| RunResult {
        buffers,
        ..RunResult::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::value::ElemType;

    fn launch() -> LaunchConfig {
        LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        }
    }

    fn args(a: &[f64], n: f64) -> Vec<KernelArg> {
        vec![
            KernelArg::Buffer(Buffer::from_values(
                "out",
                ElemType::F32,
                &vec![0.0; a.len()],
            )),
            KernelArg::Buffer(Buffer::from_values("a", ElemType::F32, a)),
            KernelArg::Scalar(Scalar::from_f64(ElemType::I32, n)),
        ]
    }

    #[test]
    fn a_changed_input_size_scalar_output_or_launch_is_another_key() {
        let key = |ptx: &str, cfg: &LaunchConfig, args: &[KernelArg], symbols: &[Buffer]| {
            key_of(ptx, "spec", cfg, args, symbols, 1000)
        };
        let base = key("ptx", &launch(), &args(&[1.0, 2.0], 2.0), &[]);
        assert_eq!(base, key("ptx", &launch(), &args(&[1.0, 2.0], 2.0), &[]));
        let mut initial_out = args(&[1.0, 2.0], 2.0);
        if let KernelArg::Buffer(b) = &mut initial_out[0] {
            b.data[0] ^= 1;
        }
        let mut bigger = launch();
        bigger.block[0] = 2;
        let table = Buffer::from_values("table", ElemType::I32, &[1.0]);
        for other in [
            key("ptx2", &launch(), &args(&[1.0, 2.0], 2.0), &[]),
            key("ptx", &launch(), &args(&[1.0, 2.5], 2.0), &[]),
            key("ptx", &launch(), &args(&[1.0, 2.0, 3.0], 2.0), &[]),
            key("ptx", &launch(), &args(&[1.0, 2.0], 3.0), &[]),
            key("ptx", &launch(), &initial_out, &[]),
            key("ptx", &bigger, &args(&[1.0, 2.0], 2.0), &[]),
            key("ptx", &launch(), &args(&[1.0, 2.0], 2.0), &[table]),
        ] {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn a_hit_rebuilds_the_outputs_and_a_length_mismatch_misses() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = SpecCache::new(dir.path().to_path_buf());
        let a = args(&[1.0, 2.0], 2.0);
        let key = key_of("ptx", "spec", &launch(), &a, &[], 1000);
        let out = Buffer::from_values("out", ElemType::F32, &[3.0, 4.0]);
        cache.store(&key, &[("out", &out.data)]);
        let hit = from_cache(&cache, &key, &a, &["out"]).unwrap_or_else(|| panic!("a miss"));
        assert_eq!(hit.buffers.len(), 1);
        assert_eq!(hit.buffers[0].values(), vec![3.0, 4.0]);
        assert_eq!(hit.buffers[0].ty, ElemType::F32);
        assert!(hit.diagnostics.is_empty());
        // Stored bytes of another length than the output argument: not trusted.
        cache.store(&key, &[("out", &out.data[..4])]);
        assert!(from_cache(&cache, &key, &a, &["out"]).is_none());
        // An output the entry lacks: a miss.
        cache.store(&key, &[("other", &out.data)]);
        assert!(from_cache(&cache, &key, &a, &["out"]).is_none());
    }
}
