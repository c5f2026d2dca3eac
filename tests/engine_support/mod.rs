//! Shared helpers of the engine tests: compile a kernel file of `tests/kernels/` with NVRTC,
//! parse it, run it on the emulator, and read results back.
//!
//! NVRTC is required: without it every test using it fails with the message a learner would get
//! (where gpuzzle looked and how to install it), never skips.
#![allow(dead_code)]

pub mod golden;

use gpuzzle::compile::{CompileRequest, PtxCompiler};
use gpuzzle::emu::result::{DiagKind, Diagnostic, RunResult};
use gpuzzle::emu::value::{Buffer, ElemType, KernelArg, Scalar};
use gpuzzle::emu::{self, EmuError, EmuOptions, LaunchConfig};
use gpuzzle::ptx::Module;
use std::path::PathBuf;
use std::sync::OnceLock;

/// One process-wide compiler with its PTX cache under the target directory (never ~/.cache).
fn compiler() -> &'static PtxCompiler {
    static C: OnceLock<PtxCompiler> = OnceLock::new();
    C.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-ptx-cache");
        PtxCompiler::new(Some(dir))
    })
}

/// A compiled and parsed kernel file.
pub struct Kernels {
    pub module: Module,
    pub ptx: String,
    pub source: String,
    /// The name NVRTC was given (`tests/kernels/atomics.cu`), as diagnostics report it.
    pub file: String,
}

impl Kernels {
    /// Write each diagnostic's help with `teach`, as the judge does, for a launch of
    /// `grid` × `block` with these integer scalars.
    pub fn explain(
        &self,
        r: &mut gpuzzle::emu::result::RunResult,
        grid: [u32; 3],
        block: [u32; 3],
        values: &[(&str, i64)],
    ) {
        let scene = gpuzzle::teach::Scene {
            source: &self.source,
            file_name: &self.file,
            module: Some(&self.module),
            grid,
            block,
            values: values.iter().map(|(n, v)| (n.to_string(), *v)).collect(),
            shapes: Vec::new(),
            cooperative: false,
        };
        gpuzzle::teach::explain(&mut r.diagnostics, &scene);
    }
}

/// Compile `tests/kernels/{name}.cu`.
pub fn load(name: &str) -> Kernels {
    load_with(name, &[])
}

/// Compile `tests/kernels/{name}.cu` with `-D` defines.
pub fn load_with(name: &str, defines: &[(&str, &str)]) -> Kernels {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/kernels")
        .join(format!("{name}.cu"));
    let source = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let file = format!("tests/kernels/{name}.cu");
    compile_source(&file, &source, defines)
}

/// Compile CUDA source text given inline.
pub fn compile_source(file: &str, source: &str, defines: &[(&str, &str)]) -> Kernels {
    let defines: Vec<(String, Option<String>)> = defines
        .iter()
        .map(|(k, v)| (k.to_string(), Some(v.to_string())))
        .collect();
    let req = CompileRequest {
        file_name: file,
        source,
        defines: &defines,
        extra_options: &[],
    };
    let compiled = compiler().compile(&req).unwrap_or_else(|e| {
        panic!("compiling {file} failed (NVRTC is required for this test):\n{e}")
    });
    let module = gpuzzle::ptx::parse(&compiled.ptx)
        .unwrap_or_else(|e| panic!("parsing the PTX of {file}: {e}\n{}", compiled.ptx));
    Kernels {
        module,
        ptx: compiled.ptx.to_string(),
        source: source.to_string(),
        file: file.to_string(),
    }
}

pub fn cfg(grid: [u32; 3], block: [u32; 3]) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        dynamic_shared: 0,
        cooperative: false,
    }
}

pub fn d1(grid: u32, block: u32) -> LaunchConfig {
    cfg([grid, 1, 1], [block, 1, 1])
}

impl Kernels {
    /// Run with default options; an `EmuError` fails the test with its message.
    pub fn run(&self, kernel: &str, cfg: LaunchConfig, args: Vec<KernelArg>) -> RunResult {
        self.run_opts(kernel, cfg, args, &EmuOptions::default())
    }

    pub fn run_opts(
        &self,
        kernel: &str,
        cfg: LaunchConfig,
        args: Vec<KernelArg>,
        opts: &EmuOptions,
    ) -> RunResult {
        self.try_run(kernel, cfg, args, opts)
            .unwrap_or_else(|e| panic!("running `{kernel}` of {}: {e}", self.file))
    }

    pub fn try_run(
        &self,
        kernel: &str,
        cfg: LaunchConfig,
        args: Vec<KernelArg>,
        opts: &EmuOptions,
    ) -> Result<RunResult, EmuError> {
        // Every launch is checked against the recorded outputs (`golden.rs`).
        let key = golden::launch_key(&self.file, &self.ptx, kernel, &cfg, &args, opts);
        let r = emu::run(&self.module, kernel, &cfg, args, opts)?;
        golden::check(&key, &r);
        Ok(r)
    }

    /// Run and require that no diagnostic was reported.
    pub fn run_clean(&self, kernel: &str, cfg: LaunchConfig, args: Vec<KernelArg>) -> RunResult {
        let r = self.run(kernel, cfg, args);
        assert_clean(&r, kernel);
        r
    }

    /// The 1-based line of the source holding `// @marker` (so tests name lines by meaning).
    pub fn line_of(&self, marker: &str) -> u32 {
        let tag = format!("// @{marker}");
        let hits: Vec<usize> = self
            .source
            .lines()
            .enumerate()
            .filter(|(_, l)| {
                l.find(&tag).is_some_and(|i| {
                    !l[i + tag.len()..]
                        .chars()
                        .next()
                        .is_some_and(|c| c.is_alphanumeric() || c == '-' || c == '_')
                })
            })
            .map(|(i, _)| i + 1)
            .collect();
        assert_eq!(
            hits.len(),
            1,
            "marker @{marker} must occur once in {}",
            self.file
        );
        hits[0] as u32
    }
}

pub fn assert_clean(r: &RunResult, what: &str) {
    assert!(
        r.diagnostics.is_empty(),
        "{what}: unexpected diagnostics:\n{}",
        describe(&r.diagnostics)
    );
}

pub fn describe(ds: &[Diagnostic]) -> String {
    ds.iter()
        .map(|d| {
            format!(
                "  {} line {:?} block {:?} thread {:?}: {}",
                d.kind.as_str(),
                d.line,
                d.block,
                d.thread,
                d.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The one diagnostic of `kind` (fails if there is not exactly one of that kind).
pub fn only(r: &RunResult, kind: DiagKind) -> &Diagnostic {
    let of: Vec<&Diagnostic> = r.diagnostics.iter().filter(|d| d.kind == kind).collect();
    assert_eq!(
        of.len(),
        1,
        "expected one {} diagnostic, got:\n{}",
        kind.as_str(),
        describe(&r.diagnostics)
    );
    of[0]
}

// ---- arguments ----

pub fn f32s(name: &str, v: &[f32]) -> KernelArg {
    let mut data = Vec::new();
    for x in v {
        data.extend_from_slice(&x.to_le_bytes());
    }
    KernelArg::Buffer(Buffer {
        name: name.into(),
        ty: ElemType::F32,
        data,
    })
}

pub fn f64s(name: &str, v: &[f64]) -> KernelArg {
    let mut data = Vec::new();
    for x in v {
        data.extend_from_slice(&x.to_le_bytes());
    }
    KernelArg::Buffer(Buffer {
        name: name.into(),
        ty: ElemType::F64,
        data,
    })
}

pub fn i32s(name: &str, v: &[i32]) -> KernelArg {
    let mut data = Vec::new();
    for x in v {
        data.extend_from_slice(&x.to_le_bytes());
    }
    KernelArg::Buffer(Buffer {
        name: name.into(),
        ty: ElemType::I32,
        data,
    })
}

pub fn u32s(name: &str, v: &[u32]) -> KernelArg {
    let mut data = Vec::new();
    for x in v {
        data.extend_from_slice(&x.to_le_bytes());
    }
    KernelArg::Buffer(Buffer {
        name: name.into(),
        ty: ElemType::U32,
        data,
    })
}

pub fn u64s(name: &str, v: &[u64]) -> KernelArg {
    let mut data = Vec::new();
    for x in v {
        data.extend_from_slice(&x.to_le_bytes());
    }
    KernelArg::Buffer(Buffer {
        name: name.into(),
        ty: ElemType::U64,
        data,
    })
}

pub fn zeros(name: &str, ty: ElemType, len: usize) -> KernelArg {
    KernelArg::Buffer(Buffer::zeros(name, ty, len))
}

pub fn int(v: i32) -> KernelArg {
    KernelArg::Scalar(Scalar {
        ty: ElemType::I32,
        bits: v as u32 as u64,
    })
}

pub fn uint(v: u32) -> KernelArg {
    KernelArg::Scalar(Scalar {
        ty: ElemType::U32,
        bits: v as u64,
    })
}

pub fn float(v: f32) -> KernelArg {
    KernelArg::Scalar(Scalar {
        ty: ElemType::F32,
        bits: v.to_bits() as u64,
    })
}

pub fn double(v: f64) -> KernelArg {
    KernelArg::Scalar(Scalar {
        ty: ElemType::F64,
        bits: v.to_bits(),
    })
}

pub fn long(v: i64) -> KernelArg {
    KernelArg::Scalar(Scalar {
        ty: ElemType::I64,
        bits: v as u64,
    })
}

// ---- results ----

fn buffer<'r>(r: &'r RunResult, name: &str) -> &'r Buffer {
    r.buffers
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no buffer `{name}` in the result"))
}

pub fn get_f32(r: &RunResult, name: &str) -> Vec<f32> {
    buffer(r, name)
        .data
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn get_f64(r: &RunResult, name: &str) -> Vec<f64> {
    buffer(r, name)
        .data
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

pub fn get_i32(r: &RunResult, name: &str) -> Vec<i32> {
    buffer(r, name)
        .data
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn get_u32(r: &RunResult, name: &str) -> Vec<u32> {
    buffer(r, name)
        .data
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn get_u64(r: &RunResult, name: &str) -> Vec<u64> {
    buffer(r, name)
        .data
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Deterministic pseudo-random values (splitmix64), floats in [-1, 1).
pub fn rand_f32(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| ((splitmix(&mut s) >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0)
        .collect()
}

pub fn rand_i32(n: usize, seed: u64, lo: i32, hi: i32) -> Vec<i32> {
    let mut s = seed;
    let span = (hi as i64 - lo as i64) as u64;
    (0..n)
        .map(|_| (lo as i64 + (splitmix(&mut s) % span) as i64) as i32)
        .collect()
}

pub fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Relative-or-absolute closeness for math-library results.
pub fn assert_close(got: &[f32], want: &[f32], rel: f32, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_nan() {
            g.is_nan()
        } else if w.is_infinite() {
            g == w
        } else {
            (g - w).abs() <= rel * w.abs().max(1.0)
        };
        assert!(ok, "{what}[{i}]: got {g}, want {w}");
    }
}
