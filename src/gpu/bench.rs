//! `gpuzzle bench`: the figures, for either backend.
//!
//! On a GPU a bench is a timing: CUDA events around repeated launches give achieved bandwidth and
//! FLOP/s against the device's peak (a roofline point) and against the reference solution. On the
//! emulator nothing is timed; the figures are counts from `RunResult::perf` and the counters:
//! bytes moved in 32-byte sectors, how well warp accesses coalesce, shared-memory bank conflicts,
//! and an operational intensity computed from those counts.
//!
//! The bytes a bench *must* move (`compulsory_bytes`) are every input buffer read once and every
//! output buffer written once; achieved GB/s is that divided by the time (effective bandwidth).
//! FLOPs come from the puzzle's `[bench] flops = "expr"`; neither executor counts them.

use crate::emu::result::{CounterSummary, Diagnostic, RunResult};
use crate::emu::value::Buffer;
use crate::emu::LaunchConfig;
use serde::{Deserialize, Serialize};

/// What the device says about itself, for peak figures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeviceSpecs {
    pub name: String,
    pub compute_capability: (i32, i32),
    pub driver_version: (i32, i32),
    pub sm_count: u64,
    pub sm_clock_khz: Option<u64>,
    pub memory_clock_khz: Option<u64>,
    pub memory_bus_bits: Option<u64>,
    pub fp32_lanes_per_sm: u32,
}

impl DeviceSpecs {
    /// Peak DRAM bandwidth in bytes/s: memory clock × 2 (double data rate) × bus width.
    pub fn peak_bytes_per_s(&self) -> Option<f64> {
        Some(2.0 * self.memory_clock_khz? as f64 * 1e3 * self.memory_bus_bits? as f64 / 8.0)
    }

    /// Peak FP32 FLOP/s, an estimate: SMs × clock × FP32 lanes per SM × 2 (a fused multiply-add
    /// is two operations). Boost clocks and tensor cores are not counted.
    pub fn peak_flops(&self) -> Option<f64> {
        if self.sm_count == 0 {
            return None;
        }
        Some(
            self.sm_count as f64
                * self.sm_clock_khz? as f64
                * 1e3
                * self.fp32_lanes_per_sm as f64
                * 2.0,
        )
    }
}

/// The work a bench launch must do, whatever the kernel.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BenchWork {
    /// Every input buffer read once plus every output buffer written once, in bytes.
    pub compulsory_bytes: u64,
    /// From `[bench] flops`, when the puzzle states it.
    pub flops: Option<f64>,
    pub flops_expr: Option<String>,
}

/// Counts from one emulator run of the bench launch.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EmuFigures {
    pub counters: CounterSummary,
    /// Warp-level global memory instructions.
    pub global_warp_accesses: u64,
    /// 32-byte sectors those touched, and the bytes that is.
    pub global_sectors: u64,
    pub bytes_moved: u64,
    /// Sectors per warp-level access, and what a fully coalesced access of the kernel's element
    /// size by a full warp (or the whole block, when smaller) would touch.
    pub sectors_per_access: Option<f64>,
    pub ideal_sectors_per_access: f64,
    /// bytes_moved / compulsory bytes (1.0: every byte once).
    pub traffic_ratio: Option<f64>,
    pub shared_warp_accesses: u64,
    /// Average and worst bank-conflict degree (1 = conflict-free).
    pub bank_ways_avg: Option<f64>,
    pub bank_ways_max: u32,
    /// Thread-instructions executed.
    pub instructions: u64,
    /// Declared FLOPs per byte moved (the counts-based operational intensity).
    pub flops_per_byte_moved: Option<f64>,
    /// Thread-instructions per byte moved (not FLOPs: every instruction counts).
    pub instructions_per_byte_moved: Option<f64>,
}

fn ratio(a: f64, b: f64) -> Option<f64> {
    (b > 0.0).then(|| a / b)
}

impl EmuFigures {
    /// `elem_bytes` is the kernel's (largest) buffer element size.
    pub fn new(r: &RunResult, work: &BenchWork, cfg: &LaunchConfig, elem_bytes: u64) -> Self {
        let p = &r.perf;
        let bytes_moved = p.global_sectors * 32;
        let lanes = cfg.block.iter().map(|&d| d as u64).product::<u64>().min(32);
        EmuFigures {
            counters: r.counters.clone(),
            global_warp_accesses: p.global_warp_accesses,
            global_sectors: p.global_sectors,
            bytes_moved,
            sectors_per_access: ratio(p.global_sectors as f64, p.global_warp_accesses as f64),
            ideal_sectors_per_access: (lanes * elem_bytes).div_ceil(32).max(1) as f64,
            traffic_ratio: ratio(bytes_moved as f64, work.compulsory_bytes as f64),
            shared_warp_accesses: p.shared_warp_accesses,
            bank_ways_avg: ratio(p.shared_bank_ways as f64, p.shared_warp_accesses as f64),
            bank_ways_max: p.max_bank_ways,
            instructions: r.instructions,
            flops_per_byte_moved: work.flops.and_then(|f| ratio(f, bytes_moved as f64)),
            instructions_per_byte_moved: ratio(r.instructions as f64, bytes_moved as f64),
        }
    }
}

/// Timing of one kernel on the GPU.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GpuFigures {
    pub reps: usize,
    pub median_ms: f64,
    pub min_ms: f64,
    /// Compulsory bytes per median time, in GB/s (10^9 bytes).
    pub gbps: f64,
    pub gflops: Option<f64>,
    /// Fractions (0..1) of the device's peaks.
    pub fraction_of_peak_bandwidth: Option<f64>,
    pub fraction_of_peak_flops: Option<f64>,
}

impl GpuFigures {
    /// `None` when there are no times.
    pub fn new(times_ms: &[f64], work: &BenchWork, specs: &DeviceSpecs) -> Option<Self> {
        let mut t: Vec<f64> = times_ms.iter().copied().filter(|x| x.is_finite()).collect();
        if t.is_empty() {
            return None;
        }
        t.sort_by(f64::total_cmp);
        let median = if t.len() % 2 == 1 {
            t[t.len() / 2]
        } else {
            (t[t.len() / 2 - 1] + t[t.len() / 2]) / 2.0
        };
        let secs = (median / 1e3).max(1e-9);
        let gbps = work.compulsory_bytes as f64 / secs / 1e9;
        let gflops = work.flops.map(|f| f / secs / 1e9);
        Some(GpuFigures {
            reps: t.len(),
            median_ms: median,
            min_ms: t[0],
            gbps,
            gflops,
            fraction_of_peak_bandwidth: specs.peak_bytes_per_s().map(|p| gbps * 1e9 / p),
            fraction_of_peak_flops: gflops.zip(specs.peak_flops()).map(|(g, p)| g * 1e9 / p),
        })
    }
}

/// Where the kernel sits on the device's roofline.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Roofline {
    /// FLOPs per compulsory byte.
    pub intensity: f64,
    /// min(peak FLOP/s, intensity × peak bandwidth), in GFLOP/s.
    pub attainable_gflops: f64,
    /// "memory" below the ridge point, "compute" above.
    pub bound: &'static str,
}

impl Roofline {
    pub fn new(work: &BenchWork, specs: &DeviceSpecs) -> Option<Roofline> {
        let intensity = ratio(work.flops?, work.compulsory_bytes as f64)?;
        let bw = specs.peak_bytes_per_s()?;
        let fl = specs.peak_flops()?;
        let memory = intensity * bw;
        Some(Roofline {
            intensity,
            attainable_gflops: memory.min(fl) / 1e9,
            bound: if memory < fl { "memory" } else { "compute" },
        })
    }
}

/// Output elements of `got` that differ from `want` beyond `tolerance`, over the named buffers
/// (a missing buffer or a length difference counts every element).
pub fn count_mismatches(
    outputs: &[&str],
    got: &[Buffer],
    want: &[Buffer],
    tolerance: &crate::puzzle::Tolerance,
) -> usize {
    let find = |bs: &[Buffer], name: &str| {
        bs.iter()
            .find(|b| b.name == name)
            .map(Buffer::values)
            .unwrap_or_default()
    };
    outputs
        .iter()
        .map(|name| {
            let (g, w) = (find(got, name), find(want, name));
            let differ = g
                .iter()
                .zip(&w)
                .filter(|(g, w)| !tolerance.accepts(**w, **g))
                .count();
            differ + g.len().abs_diff(w.len())
        })
        .sum()
}

/// One kernel's side of an emulator bench.
#[derive(Clone, Debug, Serialize)]
pub struct EmuSide {
    pub figures: EmuFigures,
    pub diagnostics: Vec<Diagnostic>,
}

/// One kernel's side of a GPU bench: its timing (absent when the instrumented check found an
/// error, or when it could not be timed) and the check's diagnostics.
#[derive(Clone, Debug, Serialize)]
pub struct GpuSide {
    pub timing: Option<GpuFigures>,
    pub diagnostics: Vec<Diagnostic>,
}

/// What was measured, by which backend.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "backend", rename_all = "lowercase")]
#[allow(clippy::large_enum_variant)] // one per bench
pub enum Measured {
    Emulator {
        kernel: EmuSide,
        reference: Option<EmuSide>,
    },
    Gpu {
        device: DeviceSpecs,
        peak_gbps: Option<f64>,
        peak_gflops: Option<f64>,
        roofline: Option<Roofline>,
        kernel: GpuSide,
        reference: Option<GpuSide>,
    },
}

/// Everything `gpuzzle bench` shows.
#[derive(Clone, Debug, Serialize)]
pub struct BenchOutcome {
    pub id: u32,
    pub slug: String,
    pub title: String,
    /// The `[bench]` table's name.
    pub bench: String,
    /// The kernel file benched.
    pub file: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub threads: u64,
    pub work: BenchWork,
    #[serde(flatten)]
    pub measured: Measured,
    /// Output elements that differ from the reference solution's (None: no reference run).
    pub mismatches_vs_reference: Option<usize>,
    /// Why the reference solution was not measured, when it was not.
    pub reference_note: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::result::PerfStats;

    /// An H100 SXM as its driver reports it.
    fn h100() -> DeviceSpecs {
        DeviceSpecs {
            name: "NVIDIA H100 80GB HBM3".into(),
            compute_capability: (9, 0),
            driver_version: (12, 9),
            sm_count: 132,
            sm_clock_khz: Some(1_980_000),
            memory_clock_khz: Some(2_619_000),
            memory_bus_bits: Some(5120),
            fp32_lanes_per_sm: 128,
        }
    }

    #[test]
    fn peaks_match_the_data_sheet() {
        let s = h100();
        let bw = s.peak_bytes_per_s().unwrap() / 1e12;
        assert!((bw - 3.35).abs() < 0.01, "{bw} TB/s");
        let fl = s.peak_flops().unwrap() / 1e12;
        assert!((fl - 66.9).abs() < 0.1, "{fl} TFLOP/s");
        let unknown = DeviceSpecs {
            memory_clock_khz: None,
            sm_clock_khz: None,
            ..s
        };
        assert_eq!(unknown.peak_bytes_per_s(), None);
        assert_eq!(unknown.peak_flops(), None);
    }

    fn work(flops: Option<f64>) -> BenchWork {
        BenchWork {
            compulsory_bytes: 8 << 20,
            flops,
            flops_expr: None,
        }
    }

    #[test]
    fn timing_uses_the_median_and_the_compulsory_bytes() {
        let g = GpuFigures::new(&[0.02, 0.01, 0.5, 0.01], &work(Some(1e6)), &h100()).unwrap();
        assert_eq!(g.reps, 4);
        assert!((g.median_ms - 0.015).abs() < 1e-12);
        assert_eq!(g.min_ms, 0.01);
        let want = (8u64 << 20) as f64 / 0.015e-3 / 1e9;
        assert!((g.gbps - want).abs() < 1e-6, "{}", g.gbps);
        assert!((g.gflops.unwrap() - 1e6 / 0.015e-3 / 1e9).abs() < 1e-6);
        let f = g.fraction_of_peak_bandwidth.unwrap();
        assert!(f > 0.1 && f < 0.2, "{f}");
        assert!(GpuFigures::new(&[], &work(None), &h100()).is_none());
        assert_eq!(
            GpuFigures::new(&[1.0], &work(None), &h100())
                .unwrap()
                .gflops,
            None
        );
    }

    #[test]
    fn the_roofline_ridge_separates_memory_from_compute_bound() {
        let s = h100();
        // A map: 1 FLOP per 8 bytes.
        let r = Roofline::new(&work(Some((1u64 << 20) as f64)), &s).unwrap();
        assert_eq!(r.bound, "memory");
        assert!((r.intensity - 0.125).abs() < 1e-12);
        assert!((r.attainable_gflops - 0.125 * s.peak_bytes_per_s().unwrap() / 1e9).abs() < 1e-6);
        // A big matrix product: far past the ridge.
        let r = Roofline::new(&work(Some(1e12)), &s).unwrap();
        assert_eq!(r.bound, "compute");
        assert!((r.attainable_gflops - s.peak_flops().unwrap() / 1e9).abs() < 1e-6);
        assert!(Roofline::new(&work(None), &s).is_none());
    }

    #[test]
    fn mismatches_count_elements_beyond_the_tolerance() {
        use crate::emu::value::ElemType;
        let exact = crate::puzzle::Tolerance::default();
        let a = vec![Buffer::from_values("out", ElemType::F32, &[1.0, 2.0, 3.0])];
        let b = vec![Buffer::from_values("out", ElemType::F32, &[1.0, 2.5, 3.0])];
        assert_eq!(count_mismatches(&["out"], &a, &a, &exact), 0);
        assert_eq!(count_mismatches(&["out"], &a, &b, &exact), 1);
        let loose = crate::puzzle::Tolerance { abs: 0.5, rel: 0.0 };
        assert_eq!(count_mismatches(&["out"], &a, &b, &loose), 0);
        assert_eq!(count_mismatches(&["out"], &a, &[], &exact), 3);
    }

    #[test]
    fn emulator_figures_come_from_the_counts() {
        let r = RunResult {
            perf: PerfStats {
                global_warp_accesses: 10,
                global_sectors: 40,
                shared_warp_accesses: 4,
                shared_bank_ways: 10,
                max_bank_ways: 4,
                ..PerfStats::default()
            },
            instructions: 2560,
            ..RunResult::default()
        };
        let w = BenchWork {
            compulsory_bytes: 640,
            flops: Some(320.0),
            flops_expr: Some("size".into()),
        };
        let cfg = LaunchConfig {
            grid: [4, 1, 1],
            block: [256, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        };
        let f = EmuFigures::new(&r, &w, &cfg, 4);
        assert_eq!(f.bytes_moved, 1280);
        assert_eq!(f.sectors_per_access, Some(4.0));
        assert_eq!(f.ideal_sectors_per_access, 4.0);
        assert_eq!(f.traffic_ratio, Some(2.0));
        assert_eq!(f.bank_ways_avg, Some(2.5));
        assert_eq!(f.bank_ways_max, 4);
        assert_eq!(f.flops_per_byte_moved, Some(0.25));
        assert_eq!(f.instructions_per_byte_moved, Some(2.0));
        // Blocks of 4 threads: a warp holds 4 lanes, 16 bytes, one sector at best.
        let small = LaunchConfig {
            block: [4, 1, 1],
            ..cfg
        };
        assert_eq!(
            EmuFigures::new(&r, &w, &small, 4).ideal_sectors_per_access,
            1.0
        );
        let none = EmuFigures::new(&RunResult::default(), &w, &cfg, 4);
        assert_eq!(none.sectors_per_access, None);
        assert_eq!(none.bank_ways_avg, None);
    }
}
