//! The GPU instrumenter, checked without a GPU: each kernel of tests/kernels/instrument (compiled
//! here with NVRTC, which must be installed) runs once on the plain emulator and once instrumented on the emulator
//! (`gpu::via_emu`); buffers, printf output and per-thread counters must agree, and for the buggy
//! kernels so must the kind and line of the first diagnostic. The same holds for every kernel of the
//! engine's corpus (`tests/kernels/*.cu`, found by listing the folder), launched with arguments
//! made from its signature.

use gpuzzle::emu::result::{Counters, DiagKind, RunResult};
use gpuzzle::emu::value::{Buffer, ElemType, KernelArg, Scalar};
use gpuzzle::emu::{self, EmuOptions, LaunchConfig};
use gpuzzle::gpu::instrument::{instrument, InstrumentOptions, CTL_PARAM};
use gpuzzle::gpu::via_emu::{run_detailed, run_detailed_untimed, EmuRun};
use std::path::Path;

/// PTX of `tests/kernels/instrument/{name}.cu`, compiled with NVRTC.
fn kernel_ptx(name: &str) -> String {
    compile_cu(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/kernels/instrument")
            .join(format!("{name}.cu")),
    )
}

fn compile_cu(p: &Path) -> String {
    let src = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let name = p.file_name().unwrap().to_string_lossy().into_owned();
    let req = gpuzzle::compile::CompileRequest::new(&name, &src);
    gpuzzle::compile::compile(&req)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .ptx
        .to_string()
}

fn cfg(grid: [u32; 3], block: [u32; 3]) -> LaunchConfig {
    LaunchConfig {
        grid,
        block,
        dynamic_shared: 0,
        cooperative: false,
    }
}

fn buf(name: &str, ty: ElemType, values: &[f64]) -> KernelArg {
    KernelArg::Buffer(Buffer::from_values(name, ty, values))
}

fn zeros(name: &str, ty: ElemType, n: usize) -> KernelArg {
    KernelArg::Buffer(Buffer::zeros(name, ty, n))
}

fn int(v: i64) -> KernelArg {
    KernelArg::Scalar(Scalar::from_f64(ElemType::I32, v as f64))
}

fn arange(n: usize) -> Vec<f64> {
    (0..n).map(|i| i as f64).collect()
}

/// Run both ways; the plain run keeps its default checkers (they do not change counts).
fn both(
    name: &str,
    c: LaunchConfig,
    args: Vec<KernelArg>,
    emu_steps: u64,
    budget: u64,
) -> (RunResult, EmuRun) {
    both_of(&kernel_ptx(name), name, c, args, emu_steps, budget)
}

/// `both` for kernel `name` of `ptx`, with the usual limits.
fn both_ptx(ptx: &str, name: &str, c: LaunchConfig, args: Vec<KernelArg>) -> (RunResult, EmuRun) {
    both_of(ptx, name, c, args, 10_000_000, 100_000)
}

fn both_of(
    ptx: &str,
    name: &str,
    c: LaunchConfig,
    args: Vec<KernelArg>,
    emu_steps: u64,
    budget: u64,
) -> (RunResult, EmuRun) {
    let module = gpuzzle::ptx::parse(ptx).unwrap();
    let opts = EmuOptions {
        step_limit: emu_steps,
        ..EmuOptions::default()
    };
    let plain = emu::run(&module, name, &c, args.clone(), &opts).unwrap();
    let inst = run_detailed(ptx, name, &c, args, budget)
        .unwrap_or_else(|e| panic!("{name}: instrumented run failed: {e}"));
    (plain, inst)
}

/// A correct kernel: same everything, and nothing reported by either side.
fn assert_equivalent(name: &str, c: LaunchConfig, args: Vec<KernelArg>) -> EmuRun {
    let (plain, inst) = both(name, c, args, 10_000_000, 100_000);
    assert!(
        plain.diagnostics.is_empty(),
        "{name}: the test kernel itself is wrong: {:?}",
        plain.diagnostics
    );
    assert_eq!(plain.buffers, inst.result.buffers, "{name}: buffers differ");
    assert_eq!(plain.stdout, inst.result.stdout, "{name}: printf differs");
    assert_eq!(
        plain.counters.max_per_thread.memory(),
        inst.result.counters.max_per_thread.memory(),
        "{name}: max per thread differs"
    );
    assert_eq!(
        plain.counters.total.memory(),
        inst.result.counters.total.memory(),
        "{name}: totals differ"
    );
    assert_eq!(
        plain.counters.argmax[..Counters::MEMORY],
        inst.result.counters.argmax[..Counters::MEMORY],
        "{name}: argmax differs"
    );
    assert_eq!(
        plain.counters.memory().blocks,
        inst.result.counters.memory().blocks,
        "{name}: block totals differ"
    );
    assert!(
        inst.result.diagnostics.is_empty(),
        "{name}: {:?}",
        inst.result.diagnostics
    );
    assert!(
        inst.emulator_diagnostics.is_empty(),
        "{name}: the emulator saw {:?}",
        inst.emulator_diagnostics
    );
    inst
}

#[test]
fn map_with_nc_loads_and_a_partial_last_block() {
    let inst = assert_equivalent(
        "map",
        cfg([3, 1, 1], [4, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 10),
            buf("a", ElemType::F32, &arange(10)),
            int(10),
        ],
    );
    assert!(inst.ptx.contains("ld.global.nc.f32"));
    assert_eq!(inst.result.counters.total.global_reads, 10);
}

#[test]
fn map_2d() {
    let inst = assert_equivalent(
        "map2d",
        cfg([2, 2, 1], [3, 3, 1]),
        vec![
            zeros("out", ElemType::F32, 25),
            buf("a", ElemType::F32, &arange(25)),
            int(5),
        ],
    );
    // 36 threads, 25 inside: the per-thread records cover the whole grid.
    assert_eq!(inst.ctl.counters.len(), 36);
    assert_eq!(inst.result.counters.total.global_writes, 25);
}

#[test]
fn shared_memory_reduction_with_barriers_and_a_loop() {
    let inst = assert_equivalent(
        "reduce_shared",
        cfg([2, 1, 1], [64, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 2),
            buf("a", ElemType::F32, &arange(100)),
            int(100),
        ],
    );
    let out = inst.result.buffers[0].values();
    assert_eq!(
        out,
        vec![(0..64).sum::<i32>() as f64, (64..100).sum::<i32>() as f64]
    );
    assert!(inst.result.counters.max_per_thread.shared_reads > 1);
    // log2(64) = 6 taken backward branches... or 5: the loop is rotated; at least some were metered.
    assert!(
        inst.ctl.steps.iter().all(|&s| s >= 5),
        "{:?}",
        inst.ctl.steps
    );
}

#[test]
fn device_function_with_generic_pointers_to_global_and_shared() {
    let inst = assert_equivalent(
        "device_func",
        cfg([2, 1, 1], [32, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 40),
            buf("a", ElemType::F32, &arange(40)),
            int(40),
            int(3),
        ],
    );
    // The generic loads in window_sum counted 3 shared and 3 global reads per thread.
    let c = &inst.result.counters;
    assert_eq!(c.max_per_thread.shared_reads, 3);
    assert!(c.max_per_thread.global_reads >= 4);
    // The loop inside the .func was metered too.
    assert!(inst.ctl.steps.iter().any(|&s| s >= 4));
}

#[test]
fn float4_vector_accesses_count_per_element() {
    let inst = assert_equivalent(
        "float4_scale",
        cfg([2, 1, 1], [4, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 20),
            buf("a", ElemType::F32, &arange(20)),
            int(5),
        ],
    );
    assert_eq!(inst.result.counters.max_per_thread.global_reads, 4);
    assert_eq!(inst.result.counters.max_per_thread.global_writes, 4);
}

#[test]
fn atomics_on_global_and_shared() {
    let a: Vec<f64> = (0..50).map(|i| ((i * 7) % 13) as f64).collect();
    let inst = assert_equivalent(
        "atomics",
        cfg([2, 1, 1], [32, 1, 1]),
        vec![
            zeros("hist", ElemType::I32, 8),
            zeros("extra", ElemType::I32, 2),
            buf("a", ElemType::I32, &a),
            int(50),
        ],
    );
    assert_eq!(inst.result.buffers[0].values().iter().sum::<f64>(), 50.0);
    assert_eq!(inst.result.buffers[1].values()[0], 12.0);
    // Atomics are counted as such too (and still as a read and a write): one shared atomic
    // per element, two global ones per element, and one per bin and block for the flush.
    let c = &inst.result.counters;
    assert_eq!((c.total.shared_atomics, c.total.global_atomics), (50, 116));
    assert_eq!(
        (
            c.max_per_thread.shared_atomics,
            c.max_per_thread.global_atomics
        ),
        (1, 3)
    );
    // The shared reads: each atomic, then the flush reads its 8 bins in each block.
    assert_eq!(c.total.shared_reads, 50 + 16);
    // Per block: block 0 has 32 elements (64 + 8 global atomics), block 1 the other 18.
    let b = c.blocks.expect("two blocks");
    assert_eq!((b.most.global_atomics, b.most_at[4]), (72, [0, 0, 0]));
    assert_eq!((b.least.shared_atomics, b.least_at[5]), (18, [1, 0, 0]));
}

#[test]
fn device_variable_through_a_pointer_and_printf() {
    let inst = assert_equivalent(
        "device_var",
        cfg([1, 1, 1], [8, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 8),
            buf("a", ElemType::F32, &arange(8)),
            int(8),
        ],
    );
    assert_eq!(inst.result.stdout, "first weight 1.000000\n");
    assert!(inst.ctl.table.len() >= 3, "weights, $str, out, a");
}

#[test]
fn wmma_fragments_are_counted_per_lane_through_global_and_shared_memory() {
    let k = 32;
    let a: Vec<f64> = (0..16 * k).map(|i| ((i * 7) % 9) as f64 - 4.0).collect();
    let b: Vec<f64> = (0..k * 16).map(|i| ((i * 5) % 7) as f64 - 3.0).collect();
    let inst = assert_equivalent(
        "wmma",
        cfg([1, 1, 1], [32, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 256),
            buf("a", ElemType::F16, &a),
            buf("b", ElemType::F16, &b),
            int(k as i64),
        ],
    );
    assert!(inst.ptx.contains("wmma.load.a.sync"), "{}", inst.ptx);
    // Each lane: 8 elements of a per step from global (2 steps) and 16 of b from global, 8 of
    // b per step and 8 of the product in shared memory.
    let max = inst.result.counters.max_per_thread;
    assert_eq!(max.global_reads, 16 + 16, "{max:?}");
    assert_eq!(max.shared_reads, 16 + 8, "{max:?}");
    let out = inst.result.buffers[0].values();
    for r in 0..16 {
        for c in 0..16 {
            let want: f64 = (0..k).map(|x| a[r * k + x] * b[x * 16 + c]).sum();
            assert_eq!(out[r * 16 + c], want, "out[{r}][{c}]");
        }
    }
}

#[test]
fn a_wmma_load_past_its_buffer_is_skipped_by_the_warp_and_reported_like_the_emulator() {
    let (plain, inst) = both(
        "wmma_oob",
        cfg([1, 1, 1], [32, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 256),
            buf("a", ElemType::F16, &arange(256)),
        ],
        10_000_000,
        100_000,
    );
    assert!(
        inst.emulator_diagnostics.is_empty(),
        "an illegal access got through: {:?}",
        inst.emulator_diagnostics
    );
    let (p, g) = (&plain.diagnostics[0], &inst.result.diagnostics[0]);
    assert_eq!(p.kind, DiagKind::OutOfBounds);
    assert_eq!(
        (g.kind, g.line, g.file.clone()),
        (p.kind, p.line, p.file.clone())
    );
    assert_eq!((g.block, g.thread), (p.block, p.thread));
    // The legal elements are counted alike on both sides.
    assert_eq!(
        plain.counters.total.memory(),
        inst.result.counters.total.memory()
    );
}

#[test]
fn out_of_bounds_write_is_skipped_and_reported_like_the_emulator() {
    let (plain, inst) = both(
        "oob",
        cfg([1, 1, 1], [10, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 8),
            buf("a", ElemType::F32, &arange(8)),
            int(8),
        ],
        10_000_000,
        100_000,
    );
    assert_eq!(plain.buffers, inst.result.buffers);
    assert_eq!(
        plain.counters.total.memory(),
        inst.result.counters.total.memory()
    );
    assert_eq!(
        plain.counters.max_per_thread.memory(),
        inst.result.counters.max_per_thread.memory()
    );
    assert!(
        inst.emulator_diagnostics.is_empty(),
        "an illegal access got through: {:?}",
        inst.emulator_diagnostics
    );
    let (p, g) = (&plain.diagnostics[0], &inst.result.diagnostics[0]);
    assert_eq!(p.kind, DiagKind::OutOfBounds);
    assert_eq!(
        (g.kind, g.line, g.file.clone()),
        (p.kind, p.line, p.file.clone())
    );
    assert_eq!((g.block, g.thread), (p.block, p.thread));
    // Same words, up to the closing "(n other threads did the same)" / "(n more faults ...)".
    let head = |m: &str| m.rsplit_once(" (").map(|(h, _)| h.to_string()).unwrap();
    assert_eq!(head(&g.message), head(&p.message));
    assert!(g.message.ends_with("(3 more faults after this one)"));
    // Threads 8 and 9 each read and wrote out of bounds.
    assert_eq!(inst.ctl.fault_count, 4);
}

#[test]
fn endless_loop_hits_the_step_limit_on_the_same_line() {
    let (plain, inst) = both(
        "infinite_loop",
        cfg([1, 1, 1], [4, 1, 1]),
        vec![
            zeros("out", ElemType::I32, 4),
            zeros("a", ElemType::F32, 4),
            int(4),
        ],
        200_000,
        1_000,
    );
    let p = &plain.diagnostics[0];
    let g = &inst.result.diagnostics[0];
    assert_eq!(p.kind, DiagKind::StepLimit);
    assert_eq!(
        (g.kind, g.line, g.file.clone()),
        (p.kind, p.line, p.file.clone())
    );
    assert_eq!(inst.result.diagnostics.len(), 1);
    // Every thread stopped at or just past its budget.
    assert!(
        inst.ctl.steps.iter().all(|&s| s <= 1_001),
        "{:?}",
        inst.ctl.steps
    );
}

/// Every module we have (the corpus and the parser's probe set) instruments, for every kernel,
/// into PTX that gpuzzle's parser accepts, with the control parameter last.
#[test]
fn every_instrumented_module_still_parses() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    // The probe set, NVRTC 12.9's PTX of the corpus (the fuzzer's seeds) and NVRTC 13's PTX too.
    let dirs = [
        "tests/kernels/instrument",
        "tests/ptx",
        "tests/ptx/nvrtc13",
        "tests/ptx/instrument",
        "tests/kernels/ptx",
    ];
    for dir in dirs {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let text = match p.extension().and_then(|x| x.to_str()) {
                Some("ptx") => std::fs::read_to_string(&p).unwrap(),
                Some("cu") => compile_cu(&p),
                _ => continue,
            };
            let module = gpuzzle::ptx::parse(&text).unwrap();
            for k in module.entries() {
                let out = instrument(&text, &k.name, &InstrumentOptions::default())
                    .unwrap_or_else(|e| panic!("{}: {}: {e}", p.display(), k.name));
                let m = gpuzzle::ptx::parse(&out.ptx)
                    .unwrap_or_else(|e| panic!("{}: {}: {e}\n{}", p.display(), k.name, out.ptx));
                for orig in module.entries() {
                    let (_, f) = m.find_entry(&orig.name).unwrap();
                    assert_eq!(f.params.len(), orig.params.len() + 1);
                    assert_eq!(f.params.last().unwrap().name, CTL_PARAM);
                    // The `.loc` lines survive: the same source lines appear.
                    let lines = |f: &gpuzzle::ptx::ir::Function| {
                        let mut v: Vec<u32> = f.body.iter().map(|i| i.line).collect();
                        v.sort_unstable();
                        v.dedup();
                        v
                    };
                    let (_, before) = module.find_entry(&orig.name).unwrap();
                    let want = lines(before);
                    assert!(lines(f)
                        .iter()
                        .all(|l| *l == 0 || want.contains(l) || f.line == *l));
                    assert!(want.iter().all(|l| lines(f).contains(l)));
                }
                n += 1;
            }
        }
    }
    assert!(n >= 100, "only {n} kernels found");
}

/// An instruction gpuzzle does not support (an async copy written as inline assembly) is a
/// fault only where a thread reaches it, as on the emulator: not
/// reached, the instrumented run gives the plain emulator's buffers and counters; reached, both
/// fail with the same message.
#[test]
fn unsupported_instructions_fail_only_where_the_emulator_fails() {
    let cases = [
        (
            kernel_ptx("bulk_copy"),
            "bulk_copy",
            vec![
                zeros("out", ElemType::F32, 8),
                buf("a", ElemType::F32, &arange(8)),
            ],
            "the instruction `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes` (from bulk_copy.cu:10)",
        ),
    ];
    for (ptx, name, buffers, message) in cases {
        let module = gpuzzle::ptx::parse(&ptx).unwrap();
        let c = cfg([1, 1, 1], [8, 1, 1]);
        for size in [8, 6] {
            let mut args = buffers.clone();
            args.push(int(size));
            let plain = emu::run(&module, name, &c, args.clone(), &EmuOptions::default());
            let inst = run_detailed_untimed(&ptx, name, &c, args, 1_000);
            match (plain, inst) {
                (Ok(p), Ok(i)) if size == 8 => {
                    assert!(p.diagnostics.is_empty(), "{name}: {:?}", p.diagnostics);
                    assert_eq!(i.result.buffers, p.buffers, "{name}");
                    assert_eq!(i.result.counters.memory(), p.counters.memory(), "{name}");
                    assert!(i.result.diagnostics.is_empty(), "{name}");
                }
                (Err(p), Err(i)) if size == 6 => {
                    assert!(p.to_string().starts_with(message), "{name}: {p}");
                    assert_eq!(i.to_string(), p.to_string(), "{name}");
                }
                (p, i) => panic!("{name} with size {size}: plain {p:?}, instrumented {i:?}"),
            }
        }
    }
}

/// A jump table's indirect branch (`brx.idx` through `.branchtargets`) runs, plain and
/// instrumented alike: threads at or past `size` take it, odd ones to the store of 9.
#[test]
fn a_jump_table_runs_as_on_the_emulator() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let ptx =
        std::fs::read_to_string(root.join("tests/ptx/instrument/brx_jump_table.ptx")).unwrap();
    let module = gpuzzle::ptx::parse(&ptx).unwrap();
    let c = cfg([1, 1, 1], [8, 1, 1]);
    for (size, want) in [(8, [7.0; 8]), (5, [7., 7., 7., 7., 7., 9., 7., 9.])] {
        let args = vec![zeros("out", ElemType::U32, 8), int(size)];
        let p = emu::run(
            &module,
            "jump_table",
            &c,
            args.clone(),
            &EmuOptions::default(),
        )
        .unwrap_or_else(|e| panic!("size {size}: {e}"));
        let i = run_detailed_untimed(&ptx, "jump_table", &c, args, 1_000)
            .unwrap_or_else(|e| panic!("size {size}: {e}"));
        assert!(p.diagnostics.is_empty(), "{:?}", p.diagnostics);
        assert_eq!(p.buffers[0].values(), want, "size {size}");
        assert_eq!(i.result.buffers, p.buffers, "size {size}");
        assert_eq!(
            i.result.counters.memory(),
            p.counters.memory(),
            "size {size}"
        );
        assert!(i.result.diagnostics.is_empty(), "size {size}");
    }
}

/// A `trap` and a failed `assert()` would abort the kernel on a GPU and lose the context; the
/// instrumented kernel records them instead, the trapping thread stops and the asserting one
/// goes on, as on the emulator: the same buffers, and the same diagnostic word for word.
#[test]
fn trap_and_a_failed_assert_are_reported_like_the_emulator() {
    let ptx = compile_cu(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/bugs.cu"));
    let out = instrument(&ptx, "trap_kernel", &InstrumentOptions::default()).unwrap();
    // Neither instruction is left to run on a GPU (comments say what was there).
    let code: String = out
        .ptx
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    assert!(!code.contains("trap;"));
    assert!(!code.contains("call.uni \n\t__assertfail") && !code.contains("__assertfail,"));
    assert_eq!(out.sites.traps, 2, "one trap, one assert in the module");
    let c = cfg([1, 1, 1], [8, 1, 1]);
    let cases = [
        ("trap_kernel", vec![zeros("out", ElemType::I32, 8)]),
        ("failing_assert", vec![buf("v", ElemType::I32, &arange(8))]),
    ];
    for (name, args) in cases {
        let (plain, inst) = both_ptx(&ptx, name, c, args);
        assert_eq!(inst.result.buffers, plain.buffers, "{name}");
        assert_eq!(
            inst.result.counters.memory(),
            plain.counters.memory(),
            "{name}"
        );
        let (p, g) = (&plain.diagnostics[0], &inst.result.diagnostics[0]);
        assert_eq!(p.kind, DiagKind::Assert, "{name}");
        assert_eq!(
            (g.kind, g.line, &g.file, g.thread, &g.message, &g.help),
            (p.kind, p.line, &p.file, p.thread, &p.message, &p.help),
            "{name}"
        );
        assert_eq!(inst.result.diagnostics.len(), 1, "{name}");
    }
}

/// A budget too small for the loop inside the device function: the thread exits from inside the
/// `.func`, the others stop at their next backward branch, and nothing illegal runs meanwhile.
#[test]
fn step_limit_inside_a_device_function() {
    let ptx = kernel_ptx("device_func");
    let inst = run_detailed(
        &ptx,
        "device_func",
        &cfg([2, 1, 1], [32, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 40),
            buf("a", ElemType::F32, &arange(40)),
            int(40),
            int(3),
        ],
        1,
    )
    .unwrap();
    let d = &inst.result.diagnostics;
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].kind, DiagKind::StepLimit);
    // `for (int k = 0; k < n; k++)` in window_sum.
    assert_eq!(d[0].line, Some(6));
    assert_eq!(
        d[0].file.as_deref().map(|f| f.ends_with("device_func.cu")),
        Some(true)
    );
    assert!(
        inst.ctl.steps.iter().all(|&s| s <= 2),
        "{:?}",
        inst.ctl.steps
    );
    assert!(inst
        .emulator_diagnostics
        .iter()
        .all(|d| d.kind != DiagKind::OutOfBounds));
    // Nobody got as far as writing out.
    assert_eq!(inst.result.counters.total.global_writes, 0);
}

#[test]
fn dynamic_and_static_shared_memory() {
    let c = LaunchConfig {
        grid: [2, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 32 * 4,
        cooperative: false,
    };
    let inst = assert_equivalent(
        "dyn_shared",
        c,
        vec![
            zeros("out", ElemType::F32, 50),
            buf("a", ElemType::F32, &arange(50)),
            int(50),
        ],
    );
    assert_eq!(inst.ctl.shared_table.len(), 2, "buf and count");
    assert!(inst.ctl.shared_table.iter().any(|&(_, len)| len == 128));
    assert_eq!(inst.result.buffers[0].values()[0], 31.0 + 32.0);
}

/// `cp.async` (4 bytes, and 16 with a source size that zero-fills the tail): one global read
/// and one shared write per copy on both executors, the same buffers; a source past the end
/// is skipped and reported alike.
#[test]
fn async_copies_count_and_check_like_the_emulator() {
    let c = cfg([1, 1, 1], [8, 1, 1]);
    let args = |size: i64, reach: i64| {
        vec![
            zeros("out", ElemType::F32, 8),
            buf("a", ElemType::F32, &arange(30)),
            int(size),
            int(reach),
        ]
    };
    let inst = assert_equivalent("async_copy", c, args(30, 0));
    let out = inst.result.buffers[0].values();
    // tile reversed, doubled, plus wide[4i + 1] (zero past the 30 floats copied).
    let want: Vec<f64> = (0..8)
        .map(|i| {
            2.0 * (7 - i) as f64
                + if 4 * i + 1 < 30 {
                    (4 * i + 1) as f64
                } else {
                    0.0
                }
        })
        .collect();
    assert_eq!(out, want);
    // A 4-byte copy and a 16-byte one: 1 + 4 words each way.
    assert_eq!(inst.result.counters.max_per_thread.global_reads, 5);
    assert_eq!(inst.result.counters.max_per_thread.shared_writes, 5);
    assert_same_first_fault("async_copy", c, args(30, 25), DiagKind::OutOfBounds);
}

/// Both runs report the same first fault (kind, line, block, thread, words) and agree on buffers
/// and counters; nothing illegal reaches the emulator's own checks.
fn assert_same_first_fault(name: &str, c: LaunchConfig, args: Vec<KernelArg>, kind: DiagKind) {
    let (plain, inst) = both(name, c, args, 10_000_000, 100_000);
    assert_eq!(plain.buffers, inst.result.buffers, "{name}");
    assert_eq!(
        plain.counters.total.memory(),
        inst.result.counters.total.memory(),
        "{name}"
    );
    assert_eq!(
        plain.counters.max_per_thread.memory(),
        inst.result.counters.max_per_thread.memory(),
        "{name}"
    );
    assert!(
        inst.emulator_diagnostics
            .iter()
            .all(|d| d.kind != DiagKind::OutOfBounds),
        "{name}: an illegal access got through: {:?}",
        inst.emulator_diagnostics
    );
    let (p, g) = (&plain.diagnostics[0], &inst.result.diagnostics[0]);
    assert_eq!(p.kind, kind, "{name}: {:?}", plain.diagnostics);
    assert_eq!(
        (g.kind, g.line, g.block, g.thread),
        (p.kind, p.line, p.block, p.thread)
    );
    // The same words, up to the closing "(n other threads ...)" / "(n more faults ...)".
    let head = |m: &str| {
        m.rsplit_once(" (")
            .map(|(h, _)| h.to_string())
            .unwrap_or(m.into())
    };
    assert_eq!(head(&g.message), head(&p.message), "{name}");
}

#[test]
fn shared_overrun_is_skipped_and_reported_like_the_emulator() {
    assert_same_first_fault(
        "shared_oob",
        cfg([1, 1, 1], [8, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 8),
            buf("a", ElemType::F32, &arange(8)),
            int(8),
        ],
        DiagKind::OutOfBounds,
    );
}

#[test]
fn dynamic_shared_smaller_than_the_block_is_caught() {
    let c = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        dynamic_shared: 16 * 4,
        cooperative: false,
    };
    assert_same_first_fault(
        "dyn_shared",
        c,
        vec![
            zeros("out", ElemType::F32, 32),
            buf("a", ElemType::F32, &arange(32)),
            int(32),
        ],
        DiagKind::OutOfBounds,
    );
}

#[test]
fn shared_array_declared_in_a_device_function() {
    let inst = assert_equivalent(
        "func_shared",
        cfg([2, 1, 1], [32, 1, 1]),
        vec![
            zeros("out", ElemType::F32, 64),
            buf("a", ElemType::F32, &arange(64)),
            int(64),
        ],
    );
    assert_eq!(inst.result.buffers[0].values()[0], 31.0);
    assert_eq!(inst.result.counters.max_per_thread.shared_reads, 1);
    // The .func filled its own slot.
    assert_eq!(
        inst.ctl.shared_table,
        vec![(inst.ctl.shared_table[0].0, 128)]
    );
}

// ------------------------------------------------------------------ the whole engine corpus

mod engine_support;

use gpuzzle::emu::value::ElemType as Ty;
use gpuzzle::ptx::ir::{Param, Ty as PtxTy};

/// The engine's corpus files: every `tests/kernels/*.cu` (found, not listed, so a new family is
/// covered the day it is added).
fn corpus_files() -> Vec<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension().and_then(|x| x.to_str()) == Some("cu"))
                .then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    names.sort();
    names
}

/// The kernels written as tutorials write them (`tests/kernels/tutorial/`: cooperative groups,
/// host headers, own headers found with `-I`), compiled as `exec -I` compiles them.
fn tutorial_kernels() -> Vec<engine_support::Kernels> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/tutorial");
    let includes = [
        format!("-I{}", dir.display()),
        format!("-I{}", dir.join("include").display()),
    ];
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().and_then(|x| x.to_str()) == Some("cu"))
        .collect();
    paths.sort();
    // A file NVRTC refuses (`int_pow.cu` shows a compile error on purpose) runs nowhere.
    paths
        .iter()
        .filter_map(|p| {
            let source = std::fs::read_to_string(p).unwrap();
            let file = format!(
                "tests/kernels/tutorial/{}",
                p.file_name().unwrap().to_string_lossy()
            );
            let req = gpuzzle::compile::CompileRequest {
                file_name: &file,
                source: &source,
                defines: &[],
                extra_options: &includes,
            };
            let ptx = match gpuzzle::compile::compile(&req) {
                Ok(c) => c.ptx.to_string(),
                Err(gpuzzle::compile::CompileError::Compilation { .. }) => return None,
                Err(e) => panic!("{file}: {e}"),
            };
            Some(engine_support::Kernels {
                module: gpuzzle::ptx::parse(&ptx).unwrap_or_else(|e| panic!("{file}: {e}")),
                ptx,
                source,
                file,
            })
        })
        .collect()
}

/// Arguments for any kernel, made from its PTX signature: a pointer gets a buffer of small
/// integers (valid indices, harmless as floats), an integer a count, a float a plain value, a
/// struct a byte pattern. What matters is that both runs get the same inputs, whatever they mean.
fn args_for(params: &[Param]) -> Vec<KernelArg> {
    params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let name = format!("p{i}");
            if p.size > 8 || (p.ty == PtxTy::B8 && p.size > 1) {
                let bytes: Vec<u8> = (0..p.size).map(|b| (b * 13 % 7) as u8).collect();
                return KernelArg::Struct {
                    bytes,
                    fields: vec![],
                };
            }
            match p.ty {
                _ if p.is_array => small_ints(&name),
                PtxTy::U64 | PtxTy::B64 | PtxTy::S64 => small_ints(&name),
                PtxTy::F32 => KernelArg::Scalar(Scalar::from_f64(Ty::F32, 1.5)),
                PtxTy::F64 => KernelArg::Scalar(Scalar::from_f64(Ty::F64, 0.25)),
                PtxTy::U8 | PtxTy::S8 | PtxTy::B8 => {
                    KernelArg::Scalar(Scalar::from_f64(Ty::I8, 3.0))
                }
                PtxTy::U16 | PtxTy::S16 | PtxTy::B16 => {
                    KernelArg::Scalar(Scalar::from_f64(Ty::I16, 3.0))
                }
                _ => KernelArg::Scalar(Scalar::from_f64(Ty::I32, 100.0)),
            }
        })
        .collect()
}

fn small_ints(name: &str) -> KernelArg {
    let v: Vec<f64> = (0..1024).map(|i| ((i * 7) % 29) as f64).collect();
    buf(name, Ty::I32, &v)
}

/// The kinds of fault the instrumentation reports (the rest are emulator checkers).
fn gpu_visible(k: DiagKind) -> bool {
    matches!(
        k,
        DiagKind::OutOfBounds | DiagKind::Misaligned | DiagKind::StepLimit | DiagKind::Assert
    )
}

/// Every kernel of every corpus file (and of the tutorial-style files), in a 1D and a 3D launch: the instrumenter must accept it,
/// and the instrumented run on the emulator must give the plain emulator's buffers, printf output,
/// counters and first GPU-visible fault.
#[test]
fn every_kernel_of_the_engine_corpus_runs_the_same_instrumented() {
    let launches = [
        LaunchConfig {
            grid: [3, 1, 1],
            block: [64, 1, 1],
            dynamic_shared: 1024,
            cooperative: false,
        },
        LaunchConfig {
            grid: [2, 1, 2],
            block: [16, 2, 2],
            dynamic_shared: 1024,
            cooperative: false,
        },
    ];
    let corpus = corpus_files().into_iter().map(|f| engine_support::load(&f));
    let modules: Vec<engine_support::Kernels> = corpus.chain(tutorial_kernels()).collect();
    let jobs: Vec<(&engine_support::Kernels, &str, &LaunchConfig)> = modules
        .iter()
        .flat_map(|k| {
            let launches = &launches;
            k.module
                .entries()
                .flat_map(move |e| launches.iter().map(move |c| (k, e.name.as_str(), c)))
        })
        .collect();
    // Shared out over the cores: each run is independent and the corpus is large.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let failures = std::sync::Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(&(k, name, c)) = jobs.get(i) else {
                    break;
                };
                if let Err(e) = compare(k, name, c) {
                    let (_, f) = k.module.function(name).unwrap();
                    let what = format!(
                        "{}: {} {:?}x{:?}",
                        k.file,
                        f.display_name(),
                        c.grid,
                        c.block
                    );
                    failures.lock().unwrap().push(format!("{what}: {e}"));
                }
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let ran = jobs.len() - failures.len();
    assert!(
        failures.is_empty(),
        "{} of {} runs differ:\n{}",
        failures.len(),
        ran + failures.len(),
        failures.join("\n")
    );
    assert!(ran >= 180, "only {ran} runs");
}

fn compare(k: &engine_support::Kernels, name: &str, c: &LaunchConfig) -> Result<(), String> {
    let (_, f) = k.module.function(name).unwrap();
    let args = args_for(&f.params);
    // Dynamic shared memory only for a module that declares some: the emulator lets an overrun
    // of a static array land in it, where the instrumentation (like a GPU) has no such variable.
    let mut c = *c;
    if !k.module.shared.iter().any(|(v, _)| v.dynamic) {
        c.dynamic_shared = 0;
    }
    let c = &c;
    // The plain run gets ten times the instructions the loop budget stands for: a spin-wait
    // (threads polling a flag another thread sets) costs the emulator a quantum of instructions
    // per waiting thread and turn, but the instrumented run only one step per poll.
    let opts = EmuOptions {
        step_limit: 20_000_000,
        ..EmuOptions::default()
    };
    let plain = emu::run(&k.module, name, c, args.clone(), &opts);
    let budget = gpuzzle::gpu::plan::per_thread_budget(2_000_000, c.total_threads());
    let inst = run_detailed_untimed(&k.ptx, name, c, args, budget);
    // A launch the emulator refuses (too much shared memory) is refused the same way.
    let (plain, inst) = match (plain, inst) {
        (Ok(p), Ok(i)) => (p, i),
        (Err(p), Err(i)) if p.to_string() == i.to_string() => return Ok(()),
        (p, i) => return Err(format!("plain {:?} vs instrumented {:?}", p.err(), i.err())),
    };
    let g = &inst.result;
    let plain_first = plain.diagnostics.iter().find(|d| gpu_visible(d.kind));
    let inst_first = g.diagnostics.iter().find(|d| gpu_visible(d.kind));
    match (plain_first, inst_first) {
        (None, None) => {}
        // Where the step limit stops a kernel depends on how it is counted: the emulator stops the
        // whole launch after so many instructions, the instrumentation each thread after so many
        // loop iterations. So the kind must agree, and nothing after it can be compared.
        (Some(p), Some(q)) if p.kind == DiagKind::StepLimit && q.kind == p.kind => return Ok(()),
        (Some(p), Some(q)) => {
            if (p.kind, p.line) != (q.kind, q.line) {
                return Err(format!(
                    "first fault {:?} line {:?} vs {:?} line {:?}: {} / {}",
                    p.kind, p.line, q.kind, q.line, p.message, q.message
                ));
            }
        }
        (p, q) => return Err(format!("first fault {p:?} vs {q:?}")),
    }
    if let Some(d) = inst
        .emulator_diagnostics
        .iter()
        .find(|d| d.kind == DiagKind::OutOfBounds)
    {
        return Err(format!("an illegal access got through: {}", d.message));
    }
    // The emulator lays out the shared variables of every kernel of the module in one window, so
    // an overrun of one kernel's array can land in another kernel's array and pass as legal
    // there, where a GPU (and so the instrumentation) has only the launched kernel's variables.
    // Both report the same first overrun; what the kernel does after it is not compared.
    if plain_first.is_some_and(|p| p.kind == DiagKind::OutOfBounds && p.message.contains("shared"))
    {
        return Ok(());
    }
    // A race makes the result depend on the schedule (a spin-wait polls as often as the other
    // thread takes to set the flag), and instrumented code interleaves differently: such a run
    // agrees up to its first fault only.
    if plain
        .diagnostics
        .iter()
        .any(|d| matches!(d.kind, DiagKind::SharedRace | DiagKind::GlobalRace))
        && plain.counters.memory() != g.counters.memory()
    {
        return Ok(());
    }
    if plain.buffers != g.buffers {
        return Err("buffers differ".into());
    }
    if plain.stdout != g.stdout {
        return Err(format!(
            "printf differs: {:?} vs {:?}",
            plain.stdout, g.stdout
        ));
    }
    if plain.counters.total.memory() != g.counters.total.memory()
        || plain.counters.max_per_thread.memory() != g.counters.max_per_thread.memory()
    {
        return Err(format!(
            "counters differ: {:?} vs {:?}",
            plain.counters, g.counters
        ));
    }
    Ok(())
}

/// PTX from NVRTC 13 (`tests/ptx/nvrtc13/`, `.version 9.5`, with `inlined_at` locations and a
/// debug section in `corpus_atomics`): every kernel instruments and runs the same.
#[test]
fn nvrtc_13_ptx_runs_the_same_instrumented() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ptx/nvrtc13");
    let launch = LaunchConfig {
        grid: [2, 1, 1],
        block: [64, 1, 1],
        dynamic_shared: 1024,
        cooperative: false,
    };
    let mut failures = Vec::new();
    let mut ran = 0;
    for e in std::fs::read_dir(&dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("ptx") {
            continue;
        }
        let ptx = std::fs::read_to_string(&p).unwrap();
        let module = gpuzzle::ptx::parse(&ptx).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        let k = engine_support::Kernels {
            module,
            ptx,
            source: String::new(),
            file: p.display().to_string(),
        };
        for entry in k.module.entries() {
            match compare(&k, &entry.name, &launch) {
                Ok(()) => ran += 1,
                Err(e) => failures.push(format!("{}: {}: {e}", p.display(), entry.name)),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 15, "only {ran} kernels");
}

/// ldmatrix (x4 and x2) and mma.sync: each address-giving lane's 16-byte rows counted as four
/// shared reads, as the emulator counts them.
#[test]
fn ldmatrix_rows_are_checked_and_counted_like_the_emulator() {
    let (m, n, k) = (40usize, 20usize, 100usize);
    let vals = |len: usize, s: usize| -> Vec<f64> {
        (0..len).map(|i| ((i * 7 + s) % 9) as f64 - 4.0).collect()
    };
    let inst = assert_equivalent(
        "ldmatrix_mma",
        cfg([3, 3, 1], [32, 1, 1]),
        vec![
            zeros("c", ElemType::F32, m * n),
            buf("a", ElemType::F16, &vals(m * k, 1)),
            buf("w", ElemType::F16, &vals(n * k, 2)),
            int(m as i64),
            int(n as i64),
            int(k as i64),
        ],
    );
    assert_eq!(inst.result.counters.max_per_thread.shared_reads, 64);
}

/// ldmatrix, movmatrix and stmatrix: stmatrix's rows checked and counted as writes.
#[test]
fn stmatrix_rows_are_checked_and_counted_like_the_emulator() {
    let inst = assert_equivalent(
        "matrix_moves",
        cfg([1, 1, 1], [32, 1, 1]),
        vec![
            zeros("t1", ElemType::U16, 64),
            zeros("t2", ElemType::U16, 64),
            zeros("t3", ElemType::U16, 64),
            buf("m", ElemType::U16, &arange(64)),
        ],
    );
    // Lanes 0-7 write one 16-byte row each (4 writes) besides their 2 halves of the copy-in.
    assert_eq!(inst.result.counters.max_per_thread.shared_writes, 6);
}

#[test]
fn ldmatrix_out_of_bounds_is_skipped_and_reported_like_the_emulator() {
    assert_same_first_fault(
        "ldmatrix_oob",
        cfg([1, 1, 1], [32, 1, 1]),
        vec![
            zeros("out", ElemType::U32, 32),
            buf("a", ElemType::U16, &arange(64)),
        ],
        DiagKind::OutOfBounds,
    );
}

/// mbarrier operations (`cuda::barrier`): the 8-byte barrier object is checked on both
/// executors and counted on neither. A barrier initialised past the array, or inside it at an
/// offset that is not a multiple of 8, is skipped and reported at the same line, block and
/// thread, in the same words.
#[test]
fn mbarrier_objects_are_checked_like_the_emulator() {
    let c = cfg([1, 1, 1], [8, 1, 1]);
    let args = |extra: i64| vec![zeros("out", ElemType::F32, 8), int(extra)];
    let inst = assert_equivalent("mbarrier", c, args(-1));
    assert!(inst.ptx.contains("call (gz_ret), __gpuzzle_shared_check"));
    assert_eq!(
        inst.result.buffers[0].values(),
        (0..8).map(|i| 2.0 * i as f64).collect::<Vec<_>>()
    );
    assert_eq!(inst.result.counters.max_per_thread.shared_reads, 0);
    for (extra, kind) in [(16, DiagKind::OutOfBounds), (4, DiagKind::Misaligned)] {
        let (plain, inst) = both("mbarrier", c, args(extra), 10_000_000, 100_000);
        assert!(
            inst.emulator_diagnostics.iter().all(|d| d.kind != kind),
            "{extra}: an illegal mbarrier got through: {:?}",
            inst.emulator_diagnostics
        );
        assert_eq!(plain.buffers, inst.result.buffers, "{extra}");
        assert_eq!(
            plain.counters.total.memory(),
            inst.result.counters.total.memory(),
            "{extra}"
        );
        let (p, g) = (&plain.diagnostics[0], &inst.result.diagnostics[0]);
        assert_eq!(p.kind, kind, "{extra}: {:?}", plain.diagnostics);
        assert_eq!(
            (g.kind, g.line, g.block, g.thread),
            (p.kind, p.line, p.block, p.thread),
            "{extra}: {}",
            g.message
        );
        assert_eq!(p.thread, [2, 0, 0]);
        // Named as the GPU names a shared access: the barrier array and the element.
        // The same words on both: the barrier array and the element.
        assert_eq!(g.message, p.message);
        let want = if kind == DiagKind::OutOfBounds {
            "thread 2 of block 0 used an mbarrier at shared bars[2] (line 11), but bars has 2 elements"
        } else {
            "thread 2 of block 0 used an mbarrier at shared bars[0] (line 11), 4 bytes past an 8-byte boundary: an mbarrier must be aligned to 8 bytes"
        };
        assert!(p.message.starts_with(want), "{}", p.message);
    }
}

/// WMMA's alignment rules: a tile pointer not 32-byte aligned (a load's, a store's) or a
/// leading dimension not a multiple of 16 bytes is reported by both executors at the same
/// line, block and thread, in the same words (the pointer's value aside), and the
/// instruction is skipped on both.
#[test]
fn wmma_alignment_is_checked_like_the_emulator() {
    let c = cfg([1, 1, 1], [32, 1, 1]);
    let a: Vec<f64> = (0..300).map(|i| ((i * 7) % 9) as f64 - 4.0).collect();
    let args = |shift: i64, ldm: i64, oshift: i64| {
        vec![
            zeros("out", ElemType::F32, 264),
            buf("a", ElemType::F16, &a),
            int(shift),
            int(ldm),
            int(oshift),
        ]
    };
    let inst = assert_equivalent("wmma_align", c, args(0, 16, 0));
    assert!(inst.ptx.contains("call __gpuzzle_fault_with"));
    let cases = [
        ((4, 16, 0), "load_matrix_sync with a global pointer ("),
        (
            (0, 12, 0),
            "load_matrix_sync with a leading dimension of 12 elements (24 bytes); WMMA needs a multiple of 16 bytes (8 elements of this type)",
        ),
        ((0, 16, 4), "store_matrix_sync with a global pointer ("),
    ];
    for ((shift, ldm, oshift), words) in cases {
        let (plain, inst) = both(
            "wmma_align",
            c,
            args(shift, ldm, oshift),
            10_000_000,
            100_000,
        );
        let case = format!("shift {shift}, ldm {ldm}, oshift {oshift}");
        assert!(
            inst.emulator_diagnostics.is_empty(),
            "{case}: the instrumented run reached the emulator's checks: {:?}",
            inst.emulator_diagnostics
        );
        assert_eq!(plain.buffers, inst.result.buffers, "{case}");
        assert_eq!(
            plain.counters.total.memory(),
            inst.result.counters.total.memory(),
            "{case}"
        );
        let (p, g) = (&plain.diagnostics[0], &inst.result.diagnostics[0]);
        assert_eq!(
            p.kind,
            DiagKind::Misaligned,
            "{case}: {:?}",
            plain.diagnostics
        );
        assert_eq!(
            (g.kind, g.line, g.block, g.thread),
            (p.kind, p.line, p.block, p.thread),
            "{case}: {}",
            g.message
        );
        // Up to the pointer's value, and without the closing "(n other threads ...)" /
        // "(n more faults ...)".
        let head = |m: &str| {
            let m = m.split(" (0x").next().unwrap_or("");
            match m.rsplit_once(" (") {
                Some((h, tail))
                    if tail.contains(" other thread") || tail.contains(" more fault") =>
                {
                    h.to_string()
                }
                _ => m.to_string(),
            }
        };
        assert_eq!(head(&g.message), head(&p.message), "{case}");
        assert!(
            g.message
                .starts_with(&format!("thread 0 of block 0 called wmma::{words}")),
            "{case}: {}",
            g.message
        );
        assert_eq!(g.facts, p.facts, "{case}");
    }
}

/// sm_90's vector atomics (`atomicAdd(float2*)`, `atomicAdd(float4*)`): one atomic per
/// element on both executors, as a float4 load is four reads; the same sums and old values.
#[test]
fn vector_atomics_count_one_per_element_like_the_emulator() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/kernels/grid/vector_atomics.cu");
    let src = std::fs::read_to_string(&p).unwrap();
    let arch = [gpuzzle::compile::Arch::Sm90.nvrtc_option()];
    let mut req = gpuzzle::compile::CompileRequest::new("vector_atomics.cu", &src);
    req.extra_options = &arch;
    let ptx = gpuzzle::compile::compile(&req).unwrap().ptx.to_string();
    let n = 40;
    let x: Vec<f64> = (0..n).map(|i| (i % 5) as f64 - 1.5).collect();
    let args = vec![
        zeros("acc2", ElemType::F32, 2),
        zeros("acc4", ElemType::F32, 4),
        zeros("first", ElemType::F32, 4),
        buf("x", ElemType::F32, &x),
        int(n as i64),
    ];
    let (plain, inst) = both_ptx(&ptx, "vector_atomics", cfg([2, 1, 1], [32, 1, 1]), args);
    assert!(plain.diagnostics.is_empty(), "{:?}", plain.diagnostics);
    assert!(
        inst.result.diagnostics.is_empty(),
        "{:?}",
        inst.result.diagnostics
    );
    assert!(
        inst.emulator_diagnostics.is_empty(),
        "{:?}",
        inst.emulator_diagnostics
    );
    assert_eq!(plain.buffers, inst.result.buffers);
    assert_eq!(
        plain.counters.total.memory(),
        inst.result.counters.total.memory()
    );
    assert_eq!(
        plain.counters.max_per_thread.memory(),
        inst.result.counters.max_per_thread.memory()
    );
    // A thread below n: 2 + 4 element atomics (each a read and a write too), and x[i] read
    // twice (the first atomic might have changed it).
    let max = inst.result.counters.max_per_thread;
    assert_eq!(max.global_atomics, 6, "{max:?}");
    assert_eq!(max.global_reads, 2 + 6, "{max:?}");
    assert_eq!(plain.buffers[1].values()[1], n as f64);
}

/// A double free and a free of a pointer moved into its block: the instrumented kernel refuses
/// each at the free's line, in the emulator's words (less the line of the `malloc`, which the
/// GPU does not keep), and skips the free, so the emulator's own heap never sees it.
#[test]
fn double_and_bad_frees_are_refused_like_the_emulator() {
    let ptx = kernel_ptx("heap_double_free");
    let cases = [
        (
            "heap_double_free",
            8,
            "but it was already freed at line 7 (the block of 4 bytes malloc'd",
        ),
        (
            "heap_bad_free",
            16,
            "but its address was never returned by malloc or new: it points into the block of 8 bytes malloc'd",
        ),
    ];
    for (name, line, said) in cases {
        let args = vec![
            zeros("out", ElemType::F32, 1),
            buf("a", ElemType::F32, &arange(1)),
            int(1),
        ];
        let (plain, inst) = both_ptx(&ptx, name, cfg([1, 1, 1], [1, 1, 1]), args);
        assert_eq!(plain.buffers, inst.result.buffers, "{name}");
        let (p, g) = (&plain.diagnostics[0], &inst.result.diagnostics[0]);
        assert_eq!(
            p.kind,
            DiagKind::OutOfBounds,
            "{name}: {:?}",
            plain.diagnostics
        );
        assert_eq!(
            (g.kind, g.line, g.thread),
            (p.kind, p.line, p.thread),
            "{name}"
        );
        assert_eq!(g.line, Some(line), "{name}");
        assert!(p.message.contains(said), "{name}: {}", p.message);
        assert!(g.message.contains(said), "{name}: {}", g.message);
        assert!(
            inst.emulator_diagnostics.is_empty(),
            "{name}: the free was not skipped: {:?}",
            inst.emulator_diagnostics
        );
    }
}
