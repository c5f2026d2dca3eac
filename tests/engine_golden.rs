//! Recorded outputs of every puzzle's reference solution and untouched starter: each launch of
//! each test (fixed and random inputs), with the checkers and perf figures on in one thread, with
//! the checkers alone on in one thread, and with both off on two threads (the parallel-blocks
//! path), must give the buffers, counters, perf
//! figures and diagnostics recorded in `tests/engine_golden/records.tsv`. The corpus kernels of
//! `engine_corpus` and `engine_diagnostics` are checked against the same record by their own
//! harness (`engine_support::Kernels::try_run`). `GPUZZLE_BLESS=1` rewrites the record. Needs
//! NVRTC.

mod engine_support;

use engine_support::golden;
use gpuzzle::compile::{self, CompileRequest};
use gpuzzle::emu::{self, EmuOptions, LaunchConfig};
use gpuzzle::puzzle::{store_buffers, Puzzle, Workspace};
use std::path::Path;

/// With `defines`: the test's (`Puzzle::defines_for`), as the judge compiles it.
fn compile_file(
    ws: &Workspace,
    p: &Puzzle,
    solutions: bool,
    defines: &[(String, Option<String>)],
) -> (String, String) {
    let path = ws.kernel_path(p, solutions);
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(&path)
        .display()
        .to_string();
    let req = CompileRequest {
        file_name: &name,
        source: &src,
        defines,
        extra_options: &[],
    };
    let ptx = compile::compile(&req)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .ptx
        .to_string();
    (name, ptx)
}

/// The three ways a launch is checked: as the judge runs a perf puzzle (checkers and perf on,
/// one thread); as it runs any other (checkers on, nothing measured: warps' loads go through
/// lockstep's whole-warp paths, which measuring turns off); and on the parallel-blocks path
/// with nothing measured.
fn option_sets() -> [EmuOptions; 3] {
    [
        EmuOptions {
            step_limit: 1 << 32,
            checkers: true,
            perf: false,
            jobs: 1,
            deadline: None,
            poisoned: Vec::new(),
        },
        EmuOptions {
            step_limit: 1 << 32,
            checkers: true,
            perf: true,
            jobs: 1,
            deadline: None,
            poisoned: Vec::new(),
        },
        EmuOptions {
            step_limit: 1 << 32,
            checkers: false,
            perf: false,
            jobs: 2,
            deadline: None,
            poisoned: Vec::new(),
        },
    ]
}

fn check_pack(solutions: bool) {
    let ws = Workspace::at_root(Path::new(env!("CARGO_MANIFEST_DIR")));
    let puzzles = ws.load_puzzles().expect("the pack loads");
    let mut launches = 0;
    for p in &puzzles {
        for (i, t) in p.tests.iter().enumerate() {
            let (file, ptx) = compile_file(&ws, p, solutions, &p.defines_for(t));
            let module = gpuzzle::ptx::parse(&ptx).unwrap_or_else(|e| panic!("{file}: {e}"));
            for seed in [None, Some(7 + i as u64)] {
                for opts in option_sets() {
                    // The launches of a test share buffers, each carrying the last one's.
                    let mut bufs = t.initial_buffers(seed);
                    for (li, step) in p.steps(t).iter().enumerate() {
                        let cfg = LaunchConfig {
                            grid: step.grid,
                            block: step.block,
                            dynamic_shared: step.shared_bytes,
                            cooperative: p.cooperative,
                        };
                        let what = format!("{file} test `{}` seed {seed:?} launch {li}", t.name);
                        let args = step
                            .kernel_args(&bufs)
                            .unwrap_or_else(|e| panic!("{what}: {e}"));
                        let key = golden::launch_key(&file, &ptx, step.kernel, &cfg, &args, &opts);
                        let r = emu::run(&module, step.kernel, &cfg, args, &opts)
                            .unwrap_or_else(|e| panic!("{what}: {e}"));
                        golden::check(&key, &r);
                        launches += 1;
                        let stop = r.has_errors();
                        store_buffers(&mut bufs, r.buffers);
                        if stop {
                            // As the judge does: the launches after a failing one are not run.
                            break;
                        }
                    }
                }
            }
        }
    }
    // Every puzzle has at least one test with one launch, run six ways.
    assert!(launches >= 6 * puzzles.len(), "only {launches} launches");
}

#[test]
fn solutions_give_the_recorded_results() {
    check_pack(true);
}

#[test]
fn starters_give_the_recorded_results() {
    check_pack(false);
}

#[test]
fn a_changed_result_fails_the_comparison() {
    // The digest must see every part of a result: change each and the digest moves.
    use gpuzzle::emu::result::{DiagKind, Diagnostic, RunResult, Severity};
    use gpuzzle::emu::value::{Buffer, ElemType};
    let base = RunResult {
        buffers: vec![Buffer {
            name: "out".into(),
            ty: ElemType::F32,
            data: vec![0, 0, 128, 63],
        }],
        diagnostics: vec![Diagnostic {
            kind: DiagKind::SharedRace,
            severity: Severity::Error,
            message: "m".into(),
            help: None,
            file: Some("k.cu".into()),
            line: Some(5),
            block: [0, 0, 0],
            thread: [1, 0, 0],
            other_line: Some(6),
            facts: Default::default(),
        }],
        instructions: 10,
        ..RunResult::default()
    };
    let d = golden::result_digest(&base);
    let mut changed: Vec<RunResult> = Vec::new();
    let mut r = base.clone();
    r.buffers[0].data[0] = 1;
    changed.push(r);
    let mut r = base.clone();
    r.diagnostics[0].line = Some(6);
    changed.push(r);
    let mut r = base.clone();
    r.diagnostics[0].thread = [2, 0, 0];
    changed.push(r);
    let mut r = base.clone();
    r.diagnostics[0].block = [0, 1, 0];
    changed.push(r);
    let mut r = base.clone();
    r.diagnostics[0].kind = DiagKind::GlobalRace;
    changed.push(r);
    let mut r = base.clone();
    r.counters.total.shared_reads = 1;
    changed.push(r);
    let mut r = base.clone();
    r.counters.argmax[2].thread = [3, 0, 0];
    changed.push(r);
    let mut r = base.clone();
    r.perf.global_sectors = 4;
    changed.push(r);
    let mut r = base.clone();
    r.stdout = "x".into();
    changed.push(r);
    let mut r = base.clone();
    r.instructions = 11;
    changed.push(r);
    for (i, r) in changed.iter().enumerate() {
        assert_ne!(golden::result_digest(r), d, "change {i} not seen");
    }
    // The wording of a message is not the engine's: it may change without a new record.
    let mut r = base.clone();
    r.diagnostics[0].message = "other words".into();
    assert_eq!(golden::result_digest(&r), d);
}
