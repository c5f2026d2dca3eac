//! The instrumenter on every puzzle: each reference solution (and each untouched starter) runs on
//! the plain emulator and, instrumented, on the emulator with its checkers off; buffers and
//! per-thread counters must be the same. Needs NVRTC.

use gpuzzle::compile::{self, CompileRequest};
use gpuzzle::emu::{self, EmuOptions, LaunchConfig};
use gpuzzle::gpu::via_emu::run_instrumented_on_emulator;
use gpuzzle::puzzle::{store_buffers, Puzzle, Workspace};
use std::path::Path;

/// With `defines`: the test's (`Puzzle::defines_for`), as the judge compiles it.
fn compile_file(
    ws: &Workspace,
    p: &Puzzle,
    solutions: bool,
    defines: &[(String, Option<String>)],
) -> String {
    let path = ws.kernel_path(p, solutions);
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.display().to_string();
    let req = CompileRequest {
        file_name: &name,
        source: &src,
        defines,
        extra_options: &[],
    };
    compile::compile(&req)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .ptx
        .to_string()
}

fn check_equivalence(solutions: bool) {
    let ws = Workspace::at_root(Path::new(env!("CARGO_MANIFEST_DIR")));
    let puzzles = ws.load_puzzles().expect("the pack loads");
    let mut runs = 0;
    for p in &puzzles {
        for (i, t) in p.tests.iter().enumerate() {
            let ptx = compile_file(&ws, p, solutions, &p.defines_for(t));
            let module = gpuzzle::ptx::parse(&ptx).unwrap();
            for seed in [None, Some(7 + i as u64)] {
                // Each launch of the test (one, or several sharing buffers) on both paths, each
                // path carrying its own buffers from launch to launch.
                let mut plain_bufs = t.initial_buffers(seed);
                let mut inst_bufs = plain_bufs.clone();
                for (li, step) in p.steps(t).iter().enumerate() {
                    let cfg = LaunchConfig {
                        grid: step.grid,
                        block: step.block,
                        dynamic_shared: step.shared_bytes,
                        cooperative: p.cooperative,
                    };
                    let what = format!(
                        "puzzle {} test `{}` seed {seed:?} launch {li} ({})",
                        p.slug, t.name, step.kernel
                    );
                    let plain = emu::run(
                        &module,
                        step.kernel,
                        &cfg,
                        step.kernel_args(&plain_bufs).unwrap(),
                        &EmuOptions {
                            step_limit: 1 << 32,
                            ..EmuOptions::default()
                        },
                    )
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                    let inst = run_instrumented_on_emulator(
                        &ptx,
                        step.kernel,
                        &cfg,
                        step.kernel_args(&inst_bufs).unwrap(),
                        1 << 32,
                    )
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                    let kinds = |r: &gpuzzle::emu::result::RunResult| {
                        r.diagnostics
                            .iter()
                            .filter(|d| matches!(d.kind.as_str(), "out-of-bounds" | "step-limit"))
                            .map(|d| (d.kind, d.line))
                            .next()
                    };
                    assert_eq!(
                        kinds(&plain),
                        kinds(&inst),
                        "{what}: first out-of-bounds/step-limit diagnostic"
                    );
                    if kinds(&plain).is_some() {
                        // After an illegal access the two legitimately part: the instrumented
                        // kernel skips it (so the GPU context survives) where the emulator
                        // reads its red zone. The fault itself must agree, checked above.
                        break;
                    }
                    assert_eq!(plain.buffers, inst.buffers, "{what}: buffers");
                    assert_eq!(
                        plain.counters.max_per_thread.memory(),
                        inst.counters.max_per_thread.memory(),
                        "{what}: max per thread"
                    );
                    assert_eq!(
                        plain.counters.total.memory(),
                        inst.counters.total.memory(),
                        "{what}: totals"
                    );
                    store_buffers(&mut plain_bufs, plain.buffers);
                    store_buffers(&mut inst_bufs, inst.buffers);
                    runs += 1;
                }
            }
        }
    }
    assert!(runs >= 2 * 14, "only {runs} runs");
}

#[test]
fn instrumented_solutions_match_the_emulator() {
    check_equivalence(true);
}

#[test]
fn instrumented_starters_match_the_emulator() {
    check_equivalence(false);
}
