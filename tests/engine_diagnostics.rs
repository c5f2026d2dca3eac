//! Planted bugs: one kernel per diagnostic kind, each checked for its kind, its exact source
//! line, and the block and thread it names. Also: correct kernels report nothing, and the same
//! inputs give the same diagnostics on every run, with one worker or several.

mod engine_support;

use engine_support::*;
use gpuzzle::emu::result::{DiagKind, RunResult};
use gpuzzle::emu::value::ElemType;
use gpuzzle::emu::EmuOptions;

fn bugs() -> Kernels {
    load("bugs")
}

/// Check a diagnostic's place: kind (exactly one of it), line marker, block, thread.
fn expect(
    k: &Kernels,
    r: &RunResult,
    kind: DiagKind,
    marker: &str,
    block: [u32; 3],
    thread: [u32; 3],
) -> String {
    let d = only(r, kind);
    assert_eq!(
        d.line,
        Some(k.line_of(marker)),
        "{} should be reported at @{marker}:\n{}",
        kind.as_str(),
        describe(&r.diagnostics)
    );
    assert_eq!(d.file.as_deref(), Some(k.file.as_str()));
    assert_eq!((d.block, d.thread), (block, thread), "{}", d.message);
    d.message.clone()
}

const B0: [u32; 3] = [0, 0, 0];

fn t(x: u32) -> [u32; 3] {
    [x, 0, 0]
}

#[test]
fn out_of_bounds_write_names_the_element_and_the_size() {
    let k = bugs();
    let r = k.run(
        "oob_write",
        d1(1, 10),
        vec![zeros("out", ElemType::F32, 8), f32s("a", &[1.0; 8]), int(8)],
    );
    let m = expect(&k, &r, DiagKind::OutOfBounds, "oob-write", B0, t(8));
    assert!(m.contains("out[8]"), "{m}");
    assert!(m.contains("8 elements"), "{m}");
    assert!(m.contains("(1 other thread did the same)"), "{m}");
    assert_eq!(r.diagnostics.len(), 1);
    // the writes in bounds happened, the ones outside did not land anywhere
    assert_eq!(get_f32(&r, "out"), vec![2.0; 8]);
    assert_eq!(get_f32(&r, "a"), vec![1.0; 8]);
}

#[test]
fn out_of_bounds_in_a_later_block() {
    let k = bugs();
    let r = k.run(
        "oob_write",
        d1(2, 6),
        vec![zeros("out", ElemType::F32, 4), f32s("a", &[1.0; 4]), int(4)],
    );
    // every block writes out[0..6]; threads 4 and 5 of each block are out of bounds
    let m = expect(&k, &r, DiagKind::OutOfBounds, "oob-write", B0, t(4));
    assert!(m.contains("out[4]") && m.contains("3 other threads"), "{m}");
}

#[test]
fn negative_index_is_out_of_bounds() {
    let k = bugs();
    let r = k.run(
        "oob_negative",
        d1(1, 4),
        vec![zeros("out", ElemType::F32, 4), f32s("a", &[1.0; 4])],
    );
    let m = expect(&k, &r, DiagKind::OutOfBounds, "oob-negative", B0, t(0));
    assert!(m.contains("a[-1]"), "{m}");
}

#[test]
fn shared_array_overflow() {
    let k = bugs();
    let r = k.run(
        "oob_shared",
        d1(1, 12),
        vec![zeros("out", ElemType::I32, 12)],
    );
    let m = expect(&k, &r, DiagKind::OutOfBounds, "oob-shared", B0, t(8));
    assert!(m.contains("s[8]") && m.contains("8 elements"), "{m}");
}

#[test]
fn a_wild_pointer_is_out_of_bounds() {
    let k = bugs();
    let r = k.run(
        "oob_pointer",
        d1(1, 2),
        vec![zeros("out", ElemType::I32, 2), long(16)],
    );
    let m = expect(&k, &r, DiagKind::OutOfBounds, "oob-wild", B0, t(0));
    assert!(m.contains("null pointer"), "{m}");
}

#[test]
fn missing_syncthreads_is_one_race_between_the_write_and_the_read() {
    let k = bugs();
    let r = k.run(
        "race_missing_sync",
        d1(1, 64),
        vec![zeros("out", ElemType::F32, 64), f32s("a", &rand_f32(64, 1))],
    );
    // not an uninitialised read (every element is written), and one report, not one per order
    let m = expect(&k, &r, DiagKind::SharedRace, "race-read", B0, t(0));
    assert_eq!(r.diagnostics.len(), 1, "{}", describe(&r.diagnostics));
    assert_eq!(r.diagnostics[0].other_line, Some(k.line_of("race-write")));
    assert!(
        m.contains("s[1]") && m.contains("thread 1") && m.contains("__syncthreads()"),
        "{m}"
    );
    assert!(m.contains("63 other threads"), "{m}");
}

#[test]
fn write_after_read_race() {
    let k = bugs();
    let r = k.run("race_war", d1(1, 64), vec![zeros("out", ElemType::I32, 64)]);
    let war = r
        .diagnostics
        .iter()
        .find(|d| d.kind == DiagKind::SharedRace && d.line == Some(k.line_of("war-write")))
        .unwrap_or_else(|| panic!("no WAR race:\n{}", describe(&r.diagnostics)));
    assert_eq!(war.other_line, Some(k.line_of("war-read")));
    assert!(r.diagnostics.iter().all(|d| d.kind == DiagKind::SharedRace));
}

#[test]
fn shared_read_before_any_write() {
    let k = bugs();
    let r = k.run(
        "uninit_read",
        d1(1, 32),
        vec![zeros("out", ElemType::I32, 32)],
    );
    let m = expect(&k, &r, DiagKind::UninitializedRead, "uninit", B0, t(16));
    assert!(m.contains("s[16]"), "{m}");
    assert!(m.contains("15 other threads"), "{m}");
    assert_eq!(r.diagnostics.len(), 1);
}

#[test]
fn an_atomic_on_never_cleared_shared_bins_is_an_uninitialised_read() {
    // 8 atomic hits per bin: the other threads' atomics do not make the first hit's read of
    // garbage a race, so it stays an uninitialised read.
    let k = bugs();
    let r = k.run(
        "bins_never_cleared",
        d1(1, 32),
        vec![zeros("out", ElemType::U32, 4)],
    );
    let m = expect(&k, &r, DiagKind::UninitializedRead, "bins", B0, t(0));
    assert!(m.contains("bins[0]"), "{m}");
    assert!(m.contains("3 other threads"), "{m}");
}

#[test]
fn every_block_starts_with_uninitialised_shared_memory() {
    // Blocks reuse the emulator's memory: what block 0 wrote must not count for block 1.
    let k = bugs();
    for jobs in [1, 2] {
        let r = k.run_opts(
            "uninit_read",
            d1(3, 32),
            vec![zeros("out", ElemType::I32, 32)],
            &EmuOptions {
                jobs,
                ..EmuOptions::default()
            },
        );
        let m = expect(&k, &r, DiagKind::UninitializedRead, "uninit", B0, t(16));
        assert!(m.contains("47 other threads"), "{m}");
    }
}

#[test]
fn syncthreads_inside_an_if() {
    let k = bugs();
    let r = k.run(
        "barrier_in_if",
        d1(1, 8),
        vec![zeros("out", ElemType::I32, 8)],
    );
    let m = expect(&k, &r, DiagKind::BarrierDivergence, "bar-if", B0, t(0));
    assert!(m.contains("only 4 of 8 threads"), "{m}");
}

#[test]
fn early_return_before_syncthreads() {
    let k = bugs();
    let r = k.run(
        "barrier_after_return",
        d1(1, 64),
        vec![zeros("out", ElemType::I32, 64), int(40)],
    );
    let m = expect(&k, &r, DiagKind::BarrierDivergence, "bar-return", B0, t(0));
    assert!(m.contains("only 40 of 64"), "{m}");
    assert!(m.contains("returned"), "{m}");
    // the threads that stayed still computed their results
    let want: Vec<i32> = (0..64)
        .map(|t| if t < 40 { (t + 1) % 40 } else { 0 })
        .collect();
    assert_eq!(get_i32(&r, "out"), want);
}

#[test]
fn different_syncthreads_in_if_and_else() {
    let k = bugs();
    let r = k.run(
        "barrier_if_else",
        d1(1, 8),
        vec![zeros("out", ElemType::I32, 8)],
    );
    let m = expect(&k, &r, DiagKind::BarrierDivergence, "bar-even", B0, t(0));
    let d = only(&r, DiagKind::BarrierDivergence);
    assert_eq!(d.other_line, Some(k.line_of("bar-odd")), "{m}");
    assert!(m.contains("only 4 of 8"), "{m}");
    // each thread took its own branch (the predicate negation is one bit)
    assert_eq!(get_i32(&r, "out"), vec![1, 2, 1, 2, 1, 2, 1, 2]);
}

#[test]
fn endless_loop_hits_the_step_limit() {
    let k = bugs();
    let opts = EmuOptions {
        step_limit: 20_000,
        ..EmuOptions::default()
    };
    let r = k.run_opts(
        "spin_forever",
        d1(1, 1),
        vec![zeros("out", ElemType::I32, 1)],
        &opts,
    );
    let m = expect(&k, &r, DiagKind::StepLimit, "spin", B0, t(0));
    assert!(m.contains("20000"), "{m}");
    assert_eq!(get_i32(&r, "out"), vec![1], "work before the loop is kept");
}

#[test]
fn a_loop_whose_counter_never_changes() {
    let k = bugs();
    let opts = EmuOptions {
        step_limit: 50_000,
        ..EmuOptions::default()
    };
    let r = k.run_opts(
        "stuck_counter",
        cfg([1, 1, 1], [1, 1, 1]),
        vec![zeros("out", ElemType::I32, 4), int(3), int(0)],
        &opts,
    );
    expect(&k, &r, DiagKind::StepLimit, "stuck", B0, t(0));
    // with a counter that moves, the same kernel finishes cleanly
    let r = k.run_clean(
        "stuck_counter",
        d1(1, 1),
        vec![zeros("out", ElemType::I32, 4), int(3), int(1)],
    );
    // s = (0+1), then 1+(1+1), then 3+(0+1): out[1] holds the last s
    assert_eq!(get_i32(&r, "out"), vec![0, 4, 0, 0]);
}

#[test]
fn step_limit_in_a_big_launch_is_deterministic_and_fast() {
    let k = bugs();
    let mut seen = Vec::new();
    for jobs in [1, 2, 1, 2] {
        let opts = EmuOptions {
            step_limit: 100_000,
            jobs,
            ..EmuOptions::default()
        };
        let start = std::time::Instant::now();
        let r = k.run_opts(
            "spin_forever",
            d1(64, 256),
            vec![zeros("out", ElemType::I32, 1)],
            &opts,
        );
        assert!(
            start.elapsed().as_secs() < 10,
            "the step limit stops the launch"
        );
        let d = only(&r, DiagKind::StepLimit);
        assert_eq!(d.line, Some(k.line_of("spin")));
        seen.push((d.block, d.thread, d.message.clone()));
    }
    assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
}

#[test]
fn float_read_through_a_misaligned_pointer() {
    let k = bugs();
    let r = k.run(
        "misaligned",
        d1(1, 4),
        vec![
            zeros("out", ElemType::F32, 4),
            zeros("bytes", ElemType::U8, 64),
        ],
    );
    let m = expect(&k, &r, DiagKind::Misaligned, "misaligned", B0, t(0));
    assert!(m.contains("aligned to 4 bytes"), "{m}");
    assert!(m.contains("bytes[1]"), "{m}");
}

#[test]
fn float4_read_at_a_four_byte_boundary() {
    let k = bugs();
    let r = k.run(
        "misaligned_float4",
        d1(1, 2),
        vec![
            zeros("out", ElemType::F32, 8),
            zeros("in", ElemType::F32, 16),
        ],
    );
    let m = expect(&k, &r, DiagKind::Misaligned, "misaligned4", B0, t(0));
    assert!(m.contains("16 bytes"), "{m}");
}

#[test]
fn shuffle_naming_lanes_that_never_join() {
    let k = bugs();
    let r = k.run(
        "shfl_absent_lanes",
        d1(1, 32),
        vec![zeros("out", ElemType::I32, 32)],
    );
    let m = expect(&k, &r, DiagKind::WarpSync, "shfl-absent", B0, t(0));
    assert!(m.contains("lane 16"), "{m}");
    assert_eq!(
        only(&r, DiagKind::WarpSync).other_line,
        Some(k.line_of("shfl-absent-bar"))
    );
    // no barrier-divergence: every thread did reach the barrier in the end
    assert_eq!(r.diagnostics.len(), 1, "{}", describe(&r.diagnostics));
}

#[test]
fn lanes_that_return_before_a_shuffle_of_the_full_mask_never_reach_it() {
    let k = bugs();
    let r = k.run(
        "shfl_exited_lanes",
        d1(1, 32),
        vec![zeros("out", ElemType::I32, 32)],
    );
    // Lanes 16..31 return, yet the mask names them: they never reach the shuffle (an error,
    // whichever order the lanes run in); lane 15 reads lane 16, which is gone (a warning).
    let (errors, warnings): (Vec<_>, Vec<_>) = r
        .diagnostics
        .iter()
        .partition(|d| d.severity == gpuzzle::emu::result::Severity::Error);
    assert_eq!(errors.len(), 1, "{}", describe(&r.diagnostics));
    assert_eq!(errors[0].kind, DiagKind::WarpSync);
    assert_eq!(errors[0].line, Some(121));
    assert!(
        errors[0].message.contains("thread 16"),
        "{}",
        errors[0].message
    );
    assert!(
        errors[0].message.contains("never reached it"),
        "{}",
        errors[0].message
    );
    assert_eq!(warnings.len(), 1, "{}", describe(&r.diagnostics));
    assert_eq!(warnings[0].thread, t(15));
    assert!(
        warnings[0].message.contains("lane 16") && warnings[0].message.contains("finished"),
        "{}",
        warnings[0].message
    );
    let want: Vec<i32> = (0..15).map(|t| t + 1).collect();
    assert_eq!(get_i32(&r, "out")[..15], want);
}

#[test]
fn shuffle_and_ballot_on_different_paths_are_not_one_collective() {
    let k = bugs();
    let input: Vec<i32> = (0..32).map(|t| if t % 4 == 0 { 0 } else { t }).collect();
    let r = k.run(
        "shfl_split",
        d1(1, 32),
        vec![zeros("out", ElemType::I32, 32), i32s("in", &input)],
    );
    let (a, b) = (k.line_of("shfl-split-a"), k.line_of("shfl-split-b"));
    let errors: Vec<_> = r
        .diagnostics
        .iter()
        .filter(|d| d.severity == gpuzzle::emu::result::Severity::Error)
        .collect();
    assert_eq!(errors.len(), 1, "{}", describe(&r.diagnostics));
    let d = errors[0];
    assert_eq!(d.kind, DiagKind::WarpSync);
    let mut lines = [d.line, d.other_line];
    lines.sort();
    assert_eq!(lines, [Some(a), Some(b)], "{}", describe(&r.diagnostics));
    assert!(
        d.message.contains("different warp-synchronous operation"),
        "{}",
        d.message
    );
}

#[test]
fn shuffle_by_a_lane_outside_its_own_mask() {
    let k = bugs();
    let r = k.run(
        "shfl_not_in_mask",
        d1(1, 32),
        vec![zeros("out", ElemType::I32, 32)],
    );
    let m = expect(&k, &r, DiagKind::WarpSync, "shfl-self", B0, t(16));
    assert!(m.contains("does not include itself"), "{m}");
    assert!(m.contains("15 other threads"), "{m}");
    assert_eq!(get_i32(&r, "out")[..16], [0; 16]);
}

#[test]
fn failed_assert_names_the_condition() {
    let k = bugs();
    let r = k.run(
        "failing_assert",
        d1(1, 6),
        vec![i32s("v", &[0, 1, 2, 3, 4, 5])],
    );
    let m = expect(&k, &r, DiagKind::Assert, "assert", B0, t(3));
    assert!(m.contains("v[t] != 3"), "{m}");
}

#[test]
fn trap_is_reported_like_an_assert() {
    let k = bugs();
    let r = k.run(
        "trap_kernel",
        d1(1, 4),
        vec![zeros("out", ElemType::I32, 4)],
    );
    expect(&k, &r, DiagKind::Assert, "trap", B0, t(2));
}

#[test]
fn a_correct_reduction_with_a_warp_synchronous_tail_reports_nothing() {
    let k = bugs();
    let input: Vec<f32> = rand_i32(512, 2, -50, 50)
        .iter()
        .map(|&v| v as f32)
        .collect();
    for jobs in [1, 2] {
        let r = k.run_opts(
            "clean_reduction",
            d1(2, 256),
            vec![zeros("out", ElemType::F32, 2), f32s("in", &input)],
            &EmuOptions {
                jobs,
                ..EmuOptions::default()
            },
        );
        assert_clean(&r, "clean_reduction");
        let want: Vec<f32> = input.chunks(256).map(|c| c.iter().sum()).collect();
        assert_eq!(get_f32(&r, "out"), want);
    }
}

#[test]
fn diagnostics_are_the_same_on_every_run_and_with_several_workers() {
    let k = bugs();
    let runs: Vec<(String, Vec<u8>)> = [1, 2, 1, 2, 3]
        .iter()
        .map(|&jobs| {
            let r = k.run_opts(
                "oob_write",
                d1(9, 40),
                vec![
                    zeros("out", ElemType::F32, 30),
                    f32s("a", &rand_f32(30, 3)),
                    int(30),
                ],
                &EmuOptions {
                    jobs,
                    ..EmuOptions::default()
                },
            );
            (describe(&r.diagnostics), r.buffers[0].data.clone())
        })
        .collect();
    assert!(runs[0].0.contains("out[30]"), "{}", runs[0].0);
    assert!(runs.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn more_static_shared_memory_than_a_block_has_is_refused() {
    let k = bugs();
    let err = k
        .try_run(
            "too_much_shared",
            d1(1, 32),
            vec![zeros("out", ElemType::F32, 32)],
            &EmuOptions::default(),
        )
        .expect_err("refused");
    let m = err.to_string();
    assert!(m.contains("80000 bytes") && m.contains("48 KiB"), "{m}");
}

#[test]
fn too_deep_recursion_stops_with_a_stack_overflow() {
    let k = bugs();
    // a shallow recursion runs (fib(10) with fib(0)=0, fib(1)=1)
    let r = k.run_clean(
        "deep_recursion",
        d1(1, 1),
        vec![i32s("out", &[0, 1]), int(10)],
    );
    assert_eq!(get_i32(&r, "out")[0], 55);
    let err = k
        .try_run(
            "deep_recursion",
            d1(1, 2),
            vec![i32s("out", &[0, 1]), int(5000)],
            &EmuOptions::default(),
        )
        .expect_err("a stack overflow");
    let m = err.to_string();
    assert!(m.contains("stack overflow") && m.contains("fib"), "{m}");
    assert!(m.contains("bugs.cu:"), "{m}");
}

#[test]
fn blocks_writing_the_same_elements_give_the_same_result_with_several_workers() {
    let k = bugs();
    let input: Vec<i32> = (0..64).collect();
    let want: Vec<i32> = input.iter().map(|v| v + 199).collect();
    for jobs in [1, 2, 3, 2, 2] {
        let r = k.run_opts(
            "blocks_overwrite",
            d1(200, 64),
            vec![zeros("out", ElemType::I32, 64), i32s("in", &input)],
            &EmuOptions {
                jobs,
                ..EmuOptions::default()
            },
        );
        assert_eq!(
            get_i32(&r, "out"),
            want,
            "jobs {jobs}: the blocks' order must not show"
        );
    }
    for jobs in [1, 2, 2] {
        let r = k.run_opts(
            "blocks_chain",
            d1(300, 32),
            vec![zeros("data", ElemType::I32, 300), int(300)],
            &EmuOptions {
                jobs,
                ..EmuOptions::default()
            },
        );
        assert_eq!(
            get_i32(&r, "data"),
            (0..300).collect::<Vec<_>>(),
            "jobs {jobs}"
        );
    }
}

#[test]
fn grids_beyond_the_emulator_are_refused_quickly() {
    let k = bugs();
    let start = std::time::Instant::now();
    let err = k
        .try_run(
            "oob_write",
            cfg([1 << 20, 1 << 10, 1], [1, 1, 1]),
            vec![zeros("out", ElemType::F32, 8), f32s("a", &[1.0; 8]), int(8)],
            &EmuOptions::default(),
        )
        .expect_err("too many blocks");
    assert!(err.to_string().contains("blocks"), "{err}");
    assert!(start.elapsed().as_secs() < 2);
}

#[test]
fn checkers_off_reports_only_what_is_always_checked() {
    let k = bugs();
    let off = EmuOptions {
        checkers: false,
        ..EmuOptions::default()
    };
    for (kernel, block, args) in [
        (
            "race_missing_sync",
            64,
            vec![zeros("out", ElemType::F32, 64), f32s("a", &[1.0; 64])],
        ),
        ("uninit_read", 32, vec![zeros("out", ElemType::I32, 32)]),
        ("barrier_in_if", 8, vec![zeros("out", ElemType::I32, 8)]),
    ] {
        let r = k.run_opts(kernel, d1(1, block), args, &off);
        assert_clean(&r, kernel);
    }
    // bounds are always checked
    let r = k.run_opts(
        "oob_write",
        d1(1, 10),
        vec![zeros("out", ElemType::F32, 8), f32s("a", &[1.0; 8]), int(8)],
        &off,
    );
    only(&r, DiagKind::OutOfBounds);
}

// ---- global-race ----

fn races() -> Kernels {
    load("races")
}

#[test]
fn threads_adding_into_one_element_are_a_global_race() {
    let k = races();
    let a: Vec<f32> = (0..8).map(|v| v as f32).collect();
    let mut r = k.run(
        "dot_racy",
        d1(1, 8),
        vec![
            zeros("out", ElemType::F32, 1),
            f32s("a", &a),
            f32s("b", &a),
            int(8),
        ],
    );
    // thread 0 ran first; thread 1 read what it wrote
    let m = expect(&k, &r, DiagKind::GlobalRace, "dot-racy", B0, t(1));
    assert!(m.contains("out[0]"), "{m}");
    assert!(m.contains("thread 1") && m.contains("thread 0"), "{m}");
    assert!(m.contains("other threads did the same"), "{m}");
    let d = only(&r, DiagKind::GlobalRace);
    assert_eq!(d.other_line, Some(k.line_of("dot-racy")));
    // The help comes from the facts and the source: the statement's own atomic, no barrier.
    k.explain(&mut r, [1, 1, 1], [8, 1, 1], &[("size", 8)]);
    let help = only(&r, DiagKind::GlobalRace).help.as_deref().unwrap_or("");
    assert!(help.contains("atomicAdd(&out[0], a[i] * b[i])"), "{help}");
    assert!(help.contains("all but one change is lost"), "{help}");
    assert!(r.has_errors());
}

#[test]
fn a_plain_read_of_what_other_threads_update_atomically_is_a_global_race() {
    let k = load("atomic_reads");
    let mut r = k.run(
        "atomic_then_read",
        d1(1, 8),
        vec![
            zeros("total", ElemType::I32, 1),
            zeros("seen", ElemType::I32, 8),
        ],
    );
    let d = only(&r, DiagKind::GlobalRace);
    assert_eq!(d.line, Some(k.line_of("atomic-read")), "{}", d.message);
    assert!(d.message.contains("updated it atomically"), "{}", d.message);
    k.explain(&mut r, [1, 1, 1], [8, 1, 1], &[]);
    let help = only(&r, DiagKind::GlobalRace).help.as_deref().unwrap_or("");
    assert!(help.contains("after every update is done"), "{help}");
    assert!(!help.contains("atomicAdd("), "{help}");
    // With a barrier between the updates and the reads, nothing to report.
    let r = k.run(
        "atomic_sync_read",
        d1(1, 8),
        vec![
            zeros("total", ElemType::I32, 1),
            zeros("seen", ElemType::I32, 8),
        ],
    );
    assert!(r.diagnostics.is_empty(), "{}", describe(&r.diagnostics));
    assert_eq!(get_i32(&r, "seen"), vec![8; 8]);
}

#[test]
fn two_blocks_writing_one_element_are_a_global_race() {
    let k = races();
    for jobs in [1, 2] {
        let r = k.run_opts(
            "blocks_overwrite",
            d1(3, 4),
            vec![zeros("out", ElemType::I32, 4)],
            &EmuOptions {
                jobs,
                ..EmuOptions::default()
            },
        );
        // block 1 is the first to write what block 0 wrote
        let m = expect(
            &k,
            &r,
            DiagKind::GlobalRace,
            "blocks-overwrite",
            [1, 0, 0],
            t(0),
        );
        assert!(m.contains("out[0]"), "{m}");
        assert!(m.contains("thread 0 of block 0"), "the other side: {m}");
        assert!(m.contains("nothing orders the two blocks"), "{m}");
        let d = only(&r, DiagKind::GlobalRace);
        assert_eq!(d.other_line, Some(k.line_of("blocks-overwrite")));
    }
}

#[test]
fn reading_another_threads_element_without_a_barrier_is_a_global_race() {
    let k = races();
    let r = k.run(
        "read_neighbour_early",
        d1(1, 8),
        vec![
            zeros("out", ElemType::I32, 8),
            zeros("res", ElemType::I32, 8),
            int(8),
        ],
    );
    // thread 0 read out[1] before thread 1 wrote it: reported at the read
    let m = expect(&k, &r, DiagKind::GlobalRace, "early-read", B0, t(0));
    assert!(m.contains("out[1]") && m.contains("thread 1"), "{m}");
    let d = only(&r, DiagKind::GlobalRace);
    assert_eq!(d.other_line, Some(k.line_of("early-write")));
}

#[test]
fn a_plain_write_racing_with_atomics_is_a_global_race() {
    let k = races();
    let r = k.run("reset_while_adding", d1(1, 4), vec![u32s("count", &[9])]);
    // thread 0 wrote, then atomically added; thread 1's atomic is not ordered after the write
    let m = expect(&k, &r, DiagKind::GlobalRace, "atomic-add", B0, t(1));
    assert!(m.contains("count[0]") && m.contains("atomically"), "{m}");
    assert_eq!(
        only(&r, DiagKind::GlobalRace).other_line,
        Some(k.line_of("plain-reset"))
    );
}

#[test]
fn a_last_block_reduction_without_threadfence_is_a_global_race() {
    let k = races();
    let n = 4;
    let r = k.run(
        "last_block_unfenced",
        d1(n, 32),
        vec![
            zeros("partial", ElemType::F32, n as usize),
            zeros("total", ElemType::F32, 1),
            f32s("in", &[1.0, 2.0, 3.0, 4.0]),
        ],
    );
    let m = expect(
        &k,
        &r,
        DiagKind::GlobalRace,
        "unfenced-read",
        [3, 0, 0],
        t(0),
    );
    assert!(m.contains("partial[0]") && m.contains("block 0"), "{m}");
}

#[test]
fn correct_uses_of_global_memory_are_not_races() {
    let k = races();
    let n = 300usize;
    let a = rand_f32(n, 7);
    for jobs in [1, 2] {
        let opts = EmuOptions {
            jobs,
            ..EmuOptions::default()
        };
        let clean = |kernel: &str, cfg, args| {
            let r = k.run_opts(kernel, cfg, args, &opts);
            assert_clean(&r, kernel);
            r
        };
        let r = clean(
            "write_sync_read",
            d1(1, 64),
            vec![
                zeros("out", ElemType::I32, 1),
                zeros("res", ElemType::I32, 64),
            ],
        );
        assert_eq!(get_i32(&r, "res"), vec![42; 64]);
        let r = clean(
            "own_element",
            d1(3, 100),
            vec![zeros("out", ElemType::F32, n), f32s("a", &a), int(n as i32)],
        );
        let want: Vec<f32> = a
            .iter()
            .map(|x| (0..8).fold(0.0f32, |s, k| s + x * k as f32) * 2.0)
            .collect();
        assert_close(&get_f32(&r, "out"), &want, 1e-5, "own_element");
        let r = clean(
            "grid_stride",
            d1(3, 32),
            vec![zeros("out", ElemType::F32, n), f32s("a", &a), int(n as i32)],
        );
        let want: Vec<f32> = a.iter().map(|x| x * 2.0 + 1.0).collect();
        assert_close(&get_f32(&r, "out"), &want, 1e-6, "grid_stride");
        let data: Vec<i32> = (0..n as i32).map(|v| v * 7).collect();
        let r = clean(
            "histogram",
            d1(5, 64),
            vec![
                zeros("bins", ElemType::U32, 16),
                i32s("data", &data),
                int(n as i32),
            ],
        );
        let mut bins = vec![0u32; 16];
        data.iter().for_each(|v| bins[(v % 16) as usize] += 1);
        assert_eq!(get_u32(&r, "bins"), bins);
        let r = clean(
            "atomic_total",
            d1(4, 100),
            vec![
                zeros("total", ElemType::F32, 1),
                f32s("a", &a),
                int(n as i32),
            ],
        );
        assert_close(
            &get_f32(&r, "total"),
            &[a.iter().sum::<f32>()],
            1e-4,
            "atomic_total",
        );
        let r = clean(
            "warp_ordered",
            d1(1, 64),
            vec![
                zeros("out", ElemType::I32, 2),
                zeros("res", ElemType::I32, 64),
            ],
        );
        assert_eq!(get_i32(&r, "res")[40], 33);
    }
}

#[test]
fn the_last_block_reduction_with_threadfence_is_not_a_race() {
    let k = races();
    let n = 1000usize;
    let input = rand_f32(n, 3);
    let blocks = n.div_ceil(64);
    // launched twice on the same buffers: each launch starts with fresh race state
    let mut partial = zeros("partial", ElemType::F32, blocks);
    let mut total = zeros("total", ElemType::F32, 1);
    for _ in 0..2 {
        let r = k.run(
            "last_block_sum",
            d1(blocks as u32, 64),
            vec![partial, total, f32s("in", &input), int(n as i32)],
        );
        assert_clean(&r, "last_block_sum");
        assert_close(
            &get_f32(&r, "total"),
            &[input.iter().sum::<f32>()],
            1e-4,
            "total",
        );
        let mut bufs = r.buffers.into_iter();
        partial = gpuzzle::emu::value::KernelArg::Buffer(bufs.next().expect("partial"));
        total = gpuzzle::emu::value::KernelArg::Buffer(bufs.next().expect("total"));
    }
}

#[test]
fn a_buffer_reused_by_a_second_launch_is_not_a_race() {
    let k = races();
    let n = 300usize;
    let a = rand_f32(n, 11);
    // launch 1: 3 blocks of 100 threads own the elements; launch 2: one block of 300 threads
    // and then 10 blocks of 30, so each element changes hands between launches
    let mut out = zeros("out", ElemType::F32, n);
    let want: Vec<f32> = a
        .iter()
        .map(|x| (0..8).fold(0.0f32, |s, k| s + x * k as f32) * 2.0)
        .collect();
    for cfg in [d1(3, 100), d1(1, 300), d1(10, 30)] {
        let r = k.run_opts(
            "own_element",
            cfg,
            vec![out, f32s("a", &a), int(n as i32)],
            &EmuOptions {
                jobs: 2,
                ..EmuOptions::default()
            },
        );
        assert_clean(&r, "own_element");
        out = gpuzzle::emu::value::KernelArg::Buffer(r.buffers.into_iter().next().expect("out"));
    }
    if let gpuzzle::emu::value::KernelArg::Buffer(b) = out {
        let got: Vec<f32> = b
            .data
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_close(&got, &want, 1e-5, "own_element");
    }
}

#[test]
fn checkers_off_do_not_look_for_global_races() {
    let k = races();
    let off = EmuOptions {
        checkers: false,
        ..EmuOptions::default()
    };
    let r = k.run_opts(
        "dot_racy",
        d1(1, 8),
        vec![
            zeros("out", ElemType::F32, 1),
            f32s("a", &[1.0; 8]),
            f32s("b", &[1.0; 8]),
            int(8),
        ],
        &off,
    );
    assert_clean(&r, "dot_racy");
    assert_eq!(get_f32(&r, "out"), vec![8.0]);
}
