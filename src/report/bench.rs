//! `gpuzzle bench`: the figures as a table beside the reference solution's, or as JSON.

use super::layout;
use crate::emu::result::Diagnostic;
use crate::gpu::bench::{BenchOutcome, EmuSide, GpuSide, Measured};
use colored::Colorize;
use serde_json::{json, Value};

/// Said on every emulator bench, in text and JSON.
pub const EMULATOR_NOTE: &str = "emulator: these are counts, not a timing";

/// The JSON scripts read: the outcome's fields (`backend`, `work`, `kernel`, `reference`, ...),
/// plus `timing` (false on the emulator) and `note`.
pub fn json(o: &BenchOutcome) -> Value {
    let mut v = serde_json::to_value(o).unwrap_or_else(|e| json!({"error": e.to_string()}));
    let (timing, note) = match o.measured {
        Measured::Emulator { .. } => (false, EMULATOR_NOTE.to_string()),
        Measured::Gpu { .. } => (
            true,
            "GPU: median of CUDA-event timings; bandwidth counts the bytes that must move; peaks are estimates from clocks and bus width".to_string(),
        ),
    };
    if let Value::Object(m) = &mut v {
        m.insert("timing".into(), json!(timing));
        m.insert("note".into(), json!(note));
    }
    v
}

/// A number with an SI prefix: `1.23 M`, `512`, `4.0 G`.
fn si(v: f64) -> String {
    let a = v.abs();
    let (d, p) = if a >= 1e12 {
        (1e12, " T")
    } else if a >= 1e9 {
        (1e9, " G")
    } else if a >= 1e6 {
        (1e6, " M")
    } else if a >= 1e4 {
        (1e3, " k")
    } else {
        (1.0, " ")
    };
    let x = v / d;
    let s = if d == 1.0 && x.fract() == 0.0 {
        format!("{x}")
    } else if x.abs() >= 100.0 {
        format!("{x:.0}")
    } else if x.abs() >= 10.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    format!("{s}{p}").trim_end().to_string()
}

/// `v` with an SI-prefixed unit: `8.39 MB`, `512 B`.
fn unit(v: f64, u: &str) -> String {
    let s = si(v);
    if s.ends_with(|c: char| c.is_ascii_alphabetic()) {
        format!("{s}{u}")
    } else {
        format!("{s} {u}")
    }
}

/// Three significant digits or so, no prefix: `419`, `3352`, `12.5`, `0.42`.
fn num(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

fn opt(v: Option<f64>, f: impl Fn(f64) -> String) -> String {
    v.map_or_else(|| "-".to_string(), f)
}

fn pct(v: f64) -> String {
    if v >= 0.1 {
        format!("{:.0}%", v * 100.0)
    } else {
        format!("{:.1}%", v * 100.0)
    }
}

/// One row: label, then the kernel's and (when there is one) the reference's value.
fn row(label: &str, mine: String, reference: Option<String>) -> String {
    match reference {
        Some(r) => format!("  {label:<38}{mine:>16}{r:>16}"),
        None => format!("  {label:<38}{mine:>16}"),
    }
}

fn header(o: &BenchOutcome) -> Vec<String> {
    let title = format!("Puzzle {} · {} · bench \"{}\"", o.id, o.title, o.bench)
        .bold()
        .to_string();
    let mut lines = vec![layout::spread(&title, &o.file.dimmed().to_string())];
    lines.push(format!(
        "  launch: grid {} × block {} ({} threads)",
        layout::dims(o.grid),
        layout::dims(o.block),
        o.threads
    ));
    lines.push(format!(
        "  work: {} must move (every input read once, every output written once)",
        unit(o.work.compulsory_bytes as f64, "B")
    ));
    lines.push(match (&o.work.flops, &o.work.flops_expr) {
        (Some(f), Some(e)) => format!("        {} ({e})", unit(*f, "FLOP")),
        (Some(f), None) => format!("        {}", unit(*f, "FLOP")),
        _ => "        FLOPs: not stated by the puzzle".to_string(),
    });
    lines
}

fn diagnostics(ds: &[Diagnostic], id: u32) -> Vec<String> {
    if ds.is_empty() {
        return vec![];
    }
    let mut l: Vec<String> = ds
        .iter()
        .map(|d| {
            let at = match (&d.file, d.line) {
                (Some(f), Some(n)) => format!(" {f}:{n}"),
                (None, Some(n)) => format!(" line {n}"),
                _ => String::new(),
            };
            format!(
                "  {}{at}: {}",
                format!("error[{}]", d.kind.as_str()).red().bold(),
                d.message
            )
        })
        .collect();
    l.push(format!(
        "  The bench launch has errors; `gpuzzle run {id}` explains them."
    ));
    l
}

fn emu_table(k: &EmuSide, r: Option<&EmuSide>) -> Vec<String> {
    let mut lines = vec![row(
        "",
        "your kernel".to_string(),
        r.map(|_| "reference".to_string()),
    )];
    let both = |label: &str, f: &dyn Fn(&EmuSide) -> String| row(label, f(k), r.map(f));
    for (i, name) in super::counters::LABELS.iter().enumerate() {
        lines.push(both(&format!("{name} per thread (max)"), &|s: &EmuSide| {
            s.figures.counters.max_per_thread.get(i).to_string()
        }));
    }
    for (i, name) in super::counters::LABELS.iter().enumerate() {
        lines.push(both(&format!("{name} (total)"), &|s: &EmuSide| {
            si(s.figures.counters.total.get(i) as f64)
        }));
    }
    lines.push(both("bytes moved (32-byte sectors × 32)", &|s| {
        unit(s.figures.bytes_moved as f64, "B")
    }));
    lines.push(both("moved / must move", &|s| {
        opt(s.figures.traffic_ratio, |v| format!("{v:.2}×"))
    }));
    lines.push(both("sectors per warp global access", &|s| {
        opt(s.figures.sectors_per_access, |v| {
            format!("{v:.2} (ideal {})", s.figures.ideal_sectors_per_access)
        })
    }));
    lines.push(both("shared bank conflicts (avg, max ways)", &|s| {
        opt(s.figures.bank_ways_avg, |v| {
            format!("{v:.2}, {}", s.figures.bank_ways_max)
        })
    }));
    lines.push(both("thread-instructions", &|s| {
        si(s.figures.instructions as f64)
    }));
    lines.push(both("FLOP per byte moved", &|s| {
        opt(s.figures.flops_per_byte_moved, |v| format!("{v:.3}"))
    }));
    lines.push(both("thread-instructions per byte moved", &|s| {
        opt(s.figures.instructions_per_byte_moved, |v| format!("{v:.2}"))
    }));
    lines
}

fn gpu_table(k: &GpuSide, r: Option<&GpuSide>) -> Vec<String> {
    let mut lines = vec![row(
        "",
        "your kernel".to_string(),
        r.map(|_| "reference".to_string()),
    )];
    let both = |label: &str, f: &dyn Fn(&GpuSide) -> String| row(label, f(k), r.map(f));
    let reps = k.timing.as_ref().map_or(0, |t| t.reps);
    lines.push(both(&format!("time, median of {reps}"), &|s| {
        opt(s.timing.as_ref().map(|t| t.median_ms), |v| {
            format!("{v:.4} ms")
        })
    }));
    lines.push(both("time, best", &|s| {
        opt(s.timing.as_ref().map(|t| t.min_ms), |v| {
            format!("{v:.4} ms")
        })
    }));
    lines.push(both("bandwidth (bytes that must move)", &|s| {
        opt(s.timing.as_ref().map(|t| t.gbps), |v| {
            format!("{} GB/s", num(v))
        })
    }));
    lines.push(both("  of peak", &|s| {
        opt(
            s.timing.as_ref().and_then(|t| t.fraction_of_peak_bandwidth),
            pct,
        )
    }));
    lines.push(both("compute", &|s| {
        opt(s.timing.as_ref().and_then(|t| t.gflops), |v| {
            format!("{} GFLOP/s", num(v))
        })
    }));
    lines.push(both("  of peak", &|s| {
        opt(
            s.timing.as_ref().and_then(|t| t.fraction_of_peak_flops),
            pct,
        )
    }));
    lines
}

/// The bench for a person.
pub fn text(o: &BenchOutcome) -> String {
    let mut sections = vec![header(o).join("\n")];
    match &o.measured {
        Measured::Emulator { kernel, reference } => {
            sections.push(format!(
                "  {}",
                format!("{EMULATOR_NOTE}: run on a GPU (--backend gpu) for GB/s and GFLOP/s")
                    .yellow()
            ));
            let d = diagnostics(&kernel.diagnostics, o.id);
            if !d.is_empty() {
                sections.push(d.join("\n"));
            }
            sections.push(emu_table(kernel, reference.as_ref()).join("\n"));
            sections.push(
                [
                    "  sectors: 32-byte pieces of memory a warp's global access touches (uncached);",
                    "  FLOP per byte moved uses the puzzle's stated FLOPs; thread-instructions per",
                    "  byte counts every instruction of every thread, arithmetic or not.",
                ]
                .join("\n")
                .dimmed()
                .to_string(),
            );
        }
        Measured::Gpu {
            device,
            peak_gbps,
            peak_gflops,
            roofline,
            kernel,
            reference,
        } => {
            sections.push(format!(
                "  GPU: {} (compute capability {}.{}, CUDA driver {}.{})\n  peak: {} GB/s, {} GFLOP/s FP32 (estimates from the clocks, bus width and SM count)",
                device.name,
                device.compute_capability.0,
                device.compute_capability.1,
                device.driver_version.0,
                device.driver_version.1,
                opt(*peak_gbps, num),
                opt(*peak_gflops, num),
            ));
            let d = diagnostics(&kernel.diagnostics, o.id);
            if !d.is_empty() {
                sections.push(d.join("\n"));
            }
            if kernel.timing.is_none() && kernel.diagnostics.is_empty() {
                sections.push("  Your kernel could not be timed.".to_string());
            }
            sections.push(gpu_table(kernel, reference.as_ref()).join("\n"));
            if let Some(rf) = roofline {
                let reach = kernel
                    .timing
                    .as_ref()
                    .and_then(|t| t.gflops)
                    .map(|g| format!("; yours reaches {}", pct(g / rf.attainable_gflops)))
                    .unwrap_or_default();
                sections.push(format!(
                    "  roofline: {:.3} FLOP per byte that must move: {}-bound,\n  at most {} GFLOP/s{reach}",
                    rf.intensity,
                    rf.bound,
                    num(rf.attainable_gflops)
                ));
            }
            let mine = kernel.timing.as_ref().map(|t| t.median_ms);
            let theirs = reference
                .as_ref()
                .and_then(|r| r.timing.as_ref())
                .map(|t| t.median_ms);
            if let (Some(m), Some(t)) = (mine, theirs) {
                let line = if m <= t {
                    format!("  {:.2}× the reference's speed", t / m.max(1e-12))
                } else {
                    format!("  {:.2}× slower than the reference", m / t.max(1e-12))
                };
                sections.push(line);
            }
        }
    }
    let mut tail = Vec::new();
    match o.mismatches_vs_reference {
        Some(0) => tail.push(
            "  output matches the reference solution's"
                .green()
                .to_string(),
        ),
        Some(n) => tail.push(
            format!(
                "  {} from the reference solution's: `gpuzzle run {}` shows where",
                layout::count(n, "output element differs", "output elements differ"),
                o.id
            )
            .red()
            .to_string(),
        ),
        None => {}
    }
    if let Some(n) = &o.reference_note {
        tail.push(format!("  {}", n.dimmed()));
    }
    if !tail.is_empty() {
        sections.push(tail.join("\n"));
    }
    sections.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::result::{CounterSummary, Counters, RunResult};
    use crate::emu::LaunchConfig;
    use crate::gpu::bench::{BenchWork, DeviceSpecs, EmuFigures, GpuFigures, Roofline};

    fn work() -> BenchWork {
        BenchWork {
            compulsory_bytes: 8 << 20,
            flops: Some((1u64 << 20) as f64),
            flops_expr: Some("size".into()),
        }
    }

    fn emu_outcome() -> BenchOutcome {
        let cfg = LaunchConfig {
            grid: [4096, 1, 1],
            block: [256, 1, 1],
            dynamic_shared: 0,
            cooperative: false,
        };
        let r = RunResult {
            counters: CounterSummary {
                max_per_thread: Counters {
                    global_reads: 1,
                    global_writes: 1,
                    ..Counters::default()
                },
                ..CounterSummary::default()
            },
            perf: crate::emu::result::PerfStats {
                global_warp_accesses: 65536,
                global_sectors: 262144,
                ..Default::default()
            },
            instructions: 12 << 20,
            ..RunResult::default()
        };
        let side = EmuSide {
            figures: EmuFigures::new(&r, &work(), &cfg, 4),
            diagnostics: vec![],
        };
        BenchOutcome {
            id: 6,
            slug: "blocks".into(),
            title: "Blocks".into(),
            bench: "1M elements".into(),
            file: "puzzles/06_blocks.cu".into(),
            grid: cfg.grid,
            block: cfg.block,
            threads: 1 << 20,
            work: work(),
            measured: Measured::Emulator {
                kernel: side.clone(),
                reference: Some(side),
            },
            mismatches_vs_reference: Some(0),
            reference_note: None,
        }
    }

    #[test]
    fn emulator_text_says_it_is_not_a_timing_and_compares_with_the_reference() {
        colored::control::set_override(false);
        let t = text(&emu_outcome());
        println!("{t}");
        assert!(t.contains(EMULATOR_NOTE));
        assert!(t.contains("your kernel       reference"));
        assert!(t.contains("sectors per warp global access"));
        assert!(t.contains("4.00 (ideal 4)"));
        assert!(t.contains("8.39 MB must move"));
        assert!(t.contains("1.05 MFLOP (size)"));
        assert!(t.contains("output matches the reference"));
        assert!(!t.contains("time, median"));
    }

    #[test]
    fn emulator_json_has_timing_false_and_the_note() {
        let v = json(&emu_outcome());
        assert_eq!(v["backend"], "emulator");
        assert_eq!(v["timing"], false);
        assert_eq!(v["note"], EMULATOR_NOTE);
        assert_eq!(v["kernel"]["figures"]["bytes_moved"], 262144 * 32);
        assert_eq!(v["kernel"]["figures"]["sectors_per_access"], 4.0);
        assert_eq!(v["work"]["compulsory_bytes"], 8 << 20);
        assert_eq!(v["mismatches_vs_reference"], 0);
    }

    #[test]
    fn gpu_text_shows_bandwidth_peaks_roofline_and_the_comparison() {
        colored::control::set_override(false);
        let specs = DeviceSpecs {
            name: "NVIDIA H100".into(),
            compute_capability: (9, 0),
            driver_version: (12, 9),
            sm_count: 132,
            sm_clock_khz: Some(1_980_000),
            memory_clock_khz: Some(2_619_000),
            memory_bus_bits: Some(5120),
            fp32_lanes_per_sm: 128,
        };
        let mine = GpuSide {
            timing: GpuFigures::new(&[0.02; 5], &work(), &specs),
            diagnostics: vec![],
        };
        let theirs = GpuSide {
            timing: GpuFigures::new(&[0.01; 5], &work(), &specs),
            diagnostics: vec![],
        };
        let mut o = emu_outcome();
        o.measured = Measured::Gpu {
            peak_gbps: specs.peak_bytes_per_s().map(|b| b / 1e9),
            peak_gflops: specs.peak_flops().map(|f| f / 1e9),
            roofline: Roofline::new(&work(), &specs),
            device: specs,
            kernel: mine,
            reference: Some(theirs),
        };
        let t = text(&o);
        println!("{t}");
        assert!(t.contains("GPU: NVIDIA H100 (compute capability 9.0, CUDA driver 12.9)"));
        assert!(t.contains("time, median of 5"));
        assert!(t.contains("0.0200 ms"));
        assert!(t.contains("419 GB/s"), "{t}");
        assert!(t.contains("memory-bound"));
        assert!(t.contains("2.00× slower than the reference"));
        assert!(!t.contains(EMULATOR_NOTE));
        let v = json(&o);
        assert_eq!(v["backend"], "gpu");
        assert_eq!(v["timing"], true);
        assert_eq!(v["kernel"]["timing"]["reps"], 5);
    }

    #[test]
    fn si_prefixes() {
        assert_eq!(si(512.0), "512");
        assert_eq!(si(8388608.0), "8.39 M");
        assert_eq!(si(1.5e9), "1.50 G");
        assert_eq!(si(419.4), "419");
        assert_eq!(si(12345.0), "12.3 k");
        assert_eq!(unit(512.0, "B"), "512 B");
        assert_eq!(unit(8388608.0, "B"), "8.39 MB");
        assert_eq!(num(3352.3), "3352");
    }
}
