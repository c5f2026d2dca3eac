//! How a kernel computes, counted (issue 34): memory traffic in 4-byte words whatever the
//! width of the access, and each instruction family (shuffles, votes, matches, warp reduces,
//! barriers, dp4a, packed half and double arithmetic, local memory, async copies and their
//! overlap, mma/ldmatrix, wmma, global load and store instructions of any width) once per
//! execution per thread, and the warps that write shared memory in each barrier interval. Each planted kernel that uses a
//! family has a twin, written with other names, that does the same work without it and must
//! count 0. Lockstep and one thread at a time must agree. Needs NVRTC.

use assert_cmd::Command;
use serde_json::Value;
use std::path::PathBuf;

const DIR: &str = "tests/kernels/technique";

/// `exec --format json` of `kernel` in `file`, both schedules (which must agree): the JSON.
fn exec(file: &str, kernel: &str, grid: &str, block: &str, args: &[&str]) -> Value {
    let mut seen = Vec::new();
    for lockstep in ["on", "off"] {
        let mut cmd = Command::cargo_bin("gpuzzle").expect("the gpuzzle binary");
        cmd.current_dir(env!("CARGO_MANIFEST_DIR"))
            .env(
                "GPUZZLE_CACHE_DIR",
                PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("engine-technique-cache"),
            )
            .env("NO_COLOR", "1")
            .env("GPUZZLE_BACKEND", "emu")
            .env("GPUZZLE_LOCKSTEP", lockstep)
            .args(["exec", file, "--kernel", kernel, "--format", "json"])
            .args(["--grid", grid, "--block", block]);
        for a in args {
            cmd.args(["--arg", a]);
        }
        let out = cmd.output().expect("run gpuzzle");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "{kernel}: exit {:?}\n{stdout}\n{}",
            out.status.code(),
            String::from_utf8_lossy(&out.stderr)
        );
        let v: Value = serde_json::from_str(stdout.trim())
            .unwrap_or_else(|e| panic!("{kernel}: not JSON ({e}): {stdout}"));
        assert_eq!(v["diagnostics"], Value::Array(Vec::new()), "{kernel}: {v}");
        seen.push(v);
    }
    assert_eq!(
        seen[0]["counters"], seen[1]["counters"],
        "{kernel}: lockstep and one thread at a time count differently"
    );
    seen.swap_remove(0)
}

/// The per-thread maximum of `counter`.
fn max(v: &Value, counter: &str) -> u64 {
    v["counters"]["max_per_thread"][counter]
        .as_u64()
        .unwrap_or_else(|| panic!("no counter {counter} in {}", v["counters"]))
}

fn total(v: &Value, counter: &str) -> u64 {
    v["counters"]["total"][counter]
        .as_u64()
        .unwrap_or_else(|| panic!("no counter {counter} in {}", v["counters"]))
}

const WIDTH_ARGS: [&str; 6] = [
    "out=f32[8]:zeros",
    "a=f32[16]:arange",
    "d=f64[8]:arange",
    "u=u64[8]:arange",
    "c=u8[4]:arange",
    "h=f16[4]:arange",
];

#[test]
fn width_cannot_hide_traffic() {
    let file = format!("{DIR}/widths.cu");
    let wide = exec(&file, "widths", "1", "4", &WIDTH_ARGS);
    // float4 4 + double 2 + 8-byte integer 2 + char 1 + half 1; a float2 store is 2.
    assert_eq!(max(&wide, "global_reads"), 10, "{}", wide["counters"]);
    assert_eq!(max(&wide, "global_writes"), 2);
    assert_eq!(total(&wide, "global_reads"), 40);
    let narrow = exec(&file, "narrow", "1", "4", &WIDTH_ARGS);
    assert_eq!(max(&narrow, "global_reads"), 10, "{}", narrow["counters"]);
    assert_eq!(max(&narrow, "global_writes"), 2);
    // Neither computes in double: a conversion is not double arithmetic.
    assert_eq!(max(&wide, "f64"), 0);
    // The same words in different numbers of instructions: the wide kernel's five loads
    // (float4, double, 8-byte integer, char, half) and one float2 store, against ten 4-byte
    // or narrower loads and two stores.
    assert_eq!(max(&wide, "global_load_instrs"), 5, "{}", wide["counters"]);
    assert_eq!(max(&wide, "global_store_instrs"), 1);
    assert_eq!(total(&wide, "global_load_instrs"), 20);
    assert_eq!(
        max(&narrow, "global_load_instrs"),
        10,
        "{}",
        narrow["counters"]
    );
    assert_eq!(max(&narrow, "global_store_instrs"), 2);
}

#[test]
fn load_and_store_instructions_count_per_lane_on_both_schedules() {
    let file = format!("{DIR}/instrs.cu");
    let args = ["out=f32[128]:zeros", "a=f32[128]:arange"];
    let split = exec(&file, "split_widths", "1", "32", &args);
    // 16 even lanes of 1 + 16 odd lanes of 4, in loads and in stores.
    assert_eq!(
        total(&split, "global_load_instrs"),
        16 + 16 * 4,
        "{}",
        split["counters"]
    );
    assert_eq!(total(&split, "global_store_instrs"), 16 + 16 * 4);
    assert_eq!(max(&split, "global_load_instrs"), 4);
    assert_eq!(total(&split, "global_reads"), 128);
    let wide = exec(&file, "all_wide", "1", "32", &args);
    assert_eq!(
        total(&wide, "global_load_instrs"),
        32,
        "{}",
        wide["counters"]
    );
    assert_eq!(total(&wide, "global_store_instrs"), 32);
    assert_eq!(total(&wide, "global_reads"), 128);
    assert_eq!(split["buffers"], wide["buffers"]);
    let atomic = exec(&file, "atomic_only", "1", "32", &args);
    assert_eq!(
        total(&atomic, "global_atomics"),
        32,
        "{}",
        atomic["counters"]
    );
    assert_eq!(total(&atomic, "global_load_instrs"), 0);
    assert_eq!(total(&atomic, "global_store_instrs"), 0);
}

#[test]
fn warp_collectives_and_barriers_count_once_per_thread() {
    let v = exec(
        &format!("{DIR}/families.cu"),
        "warp_families",
        "1",
        "32",
        &["out=i32[32]:zeros", "keys=i32[32]:arange"],
    );
    for (counter, n) in [
        ("shuffles", 5),
        ("votes", 1),
        ("matches", 1),
        ("warp_reduces", 1),
        ("barriers", 2),
    ] {
        assert_eq!(max(&v, counter), n, "{counter}: {}", v["counters"]);
        assert_eq!(total(&v, counter), 32 * n, "{counter}");
    }
    for counter in [
        "mma",
        "ldmatrix",
        "cp_async",
        "dp4a",
        "f16x2",
        "f64",
        "local_reads",
    ] {
        assert_eq!(total(&v, counter), 0, "{counter}");
    }
}

#[test]
fn dp4a_half2_and_double_math_are_counted_and_their_plain_twins_are_not() {
    let file = format!("{DIR}/families.cu");
    let args = [
        "out=f32[4]:zeros",
        "a=i32[4]:arange",
        "b=i32[4]:ones",
        "h=f16[8]:arange",
        "d=f64[4]:arange",
    ];
    let v = exec(&file, "math_families", "1", "4", &args);
    assert_eq!(max(&v, "dp4a"), 1, "{}", v["counters"]);
    assert_eq!(max(&v, "f16x2"), 1);
    assert_eq!(max(&v, "f64"), 1);
    let packed = exec(&file, "math_packed_floats", "1", "4", &args);
    assert_eq!(total(&packed, "f16x2"), 0, "{}", packed["counters"]);
    let plain = exec(&file, "math_plain", "1", "4", &args);
    for counter in ["dp4a", "f16x2", "f64"] {
        assert_eq!(
            total(&plain, counter),
            0,
            "{counter}: {}",
            plain["counters"]
        );
    }
}

#[test]
fn a_run_time_indexed_array_counts_local_traffic_and_a_register_array_none() {
    let file = format!("{DIR}/families.cu");
    let args = ["out=f32[4]:zeros", "a=f32[4]:arange", "idx=i32[4]:arange"];
    let v = exec(&file, "local_array", "1", "4", &args);
    assert!(max(&v, "local_writes") >= 4, "{}", v["counters"]);
    assert!(max(&v, "local_reads") >= 4, "{}", v["counters"]);
    let r = exec(&file, "register_array", "1", "4", &args);
    assert_eq!(total(&r, "local_reads") + total(&r, "local_writes"), 0);
}

#[test]
fn async_copies_count_their_words_and_overlap_only_when_a_group_stays_in_flight() {
    let file = format!("{DIR}/families.cu");
    let run = |overlap: &str| {
        let o = format!("overlap=i32:{overlap}");
        exec(
            &file,
            "copies",
            "1",
            "32",
            &["out=f32[32]:zeros", "a=f32[512]:arange", "tiles=i32:4", &o],
        )
    };
    let double = run("1");
    let single = run("0");
    for v in [&double, &single] {
        assert_eq!(max(v, "cp_async"), 4, "{}", v["counters"]);
        // A 16-byte copy reads and writes 4 words.
        assert_eq!(max(v, "global_reads"), 16);
        assert_eq!(max(v, "barriers"), 8);
    }
    assert_eq!(
        max(&double, "cp_async_overlap"),
        3,
        "{}",
        double["counters"]
    );
    assert_eq!(total(&single, "cp_async_overlap"), 0);
    assert_eq!(double["buffers"], single["buffers"]);
    // In flight at one wait, drained by the next before any work: no overlap.
    let drained = run("2");
    assert_eq!(
        total(&drained, "cp_async_overlap"),
        0,
        "{}",
        drained["counters"]
    );
    assert_eq!(drained["buffers"], single["buffers"]);
}

/// A group in flight at a wait counts as overlap only once the block reads what it copied:
/// not when nobody reads its slot, nor when a plain store overwrote it first.
#[test]
fn an_async_copy_in_flight_counts_as_overlap_only_when_its_data_is_read() {
    let file = format!("{DIR}/families.cu");
    let run = |use_side: &str| {
        let u = format!("use=i32:{use_side}");
        exec(
            &file,
            "side_copies",
            "1",
            "32",
            &["out=f32[32]:zeros", "a=f32[512]:arange", "tiles=i32:3", &u],
        )
    };
    for unread in ["0", "1"] {
        let v = run(unread);
        assert_eq!(max(&v, "cp_async"), 6, "{}", v["counters"]);
        assert_eq!(total(&v, "cp_async_overlap"), 0, "{}", v["counters"]);
    }
    let read = run("2");
    assert_eq!(max(&read, "cp_async_overlap"), 3, "{}", read["counters"]);
    assert_eq!(total(&read, "cp_async_overlap"), 32 * 3);
}

/// A barrier counts as ordering only when a thread's access after it meets another thread's
/// write (or, for a write, read) before it: idle barriers add to `barriers`, not to
/// `ordering_barriers`, which is a block total (one per barrier).
#[test]
fn only_barriers_that_order_shared_accesses_count_as_ordering() {
    let file = format!("{DIR}/families.cu");
    let run = |steps: &str, idle: &str| {
        let s = format!("steps=i32:{steps}");
        let i = format!("idle=i32:{idle}");
        exec(
            &file,
            "exchanges",
            "1",
            "32",
            &["out=i32[32]:zeros", "a=i32[32]:arange", &s, &i],
        )
    };
    let plain = run("2", "0");
    assert_eq!(max(&plain, "barriers"), 5, "{}", plain["counters"]);
    assert_eq!(
        total(&plain, "ordering_barriers"),
        5,
        "{}",
        plain["counters"]
    );
    let padded = run("2", "6");
    assert_eq!(max(&padded, "barriers"), 11, "{}", padded["counters"]);
    assert_eq!(
        total(&padded, "ordering_barriers"),
        5,
        "{}",
        padded["counters"]
    );
    let load_only = run("0", "4");
    assert_eq!(total(&load_only, "ordering_barriers"), 1);
    assert_eq!(plain["buffers"], padded["buffers"]);
}

/// A shuffle in which every lane reads its own value moves nothing and is not counted; the
/// same shuffle reading a neighbour is, once per lane.
#[test]
fn a_shuffle_that_moves_nothing_is_not_counted() {
    let file = format!("{DIR}/families.cu");
    let run = |own: &str| {
        let o = format!("own=i32:{own}");
        exec(
            &file,
            "own_shuffle",
            "1",
            "64",
            &["out=f32[64]:zeros", "a=f32[64]:arange", &o],
        )
    };
    let own = run("1");
    assert_eq!(total(&own, "shuffles"), 0, "{}", own["counters"]);
    let moved = run("0");
    assert_eq!(total(&moved, "shuffles"), 64, "{}", moved["counters"]);
}

/// `__popc` counts once per lane; the same count taken bit by bit in a loop, none.
#[test]
fn popcounts_are_counted_and_a_bit_loop_is_not() {
    let file = format!("{DIR}/families.cu");
    let run = |popc: &str| {
        let p = format!("popc=i32:{popc}");
        exec(
            &file,
            "lanes_below",
            "1",
            "32",
            &["out=i32[32]:zeros", "a=i32[32]:rand=7", &p],
        )
    };
    let with = run("1");
    assert_eq!(max(&with, "popc"), 1, "{}", with["counters"]);
    assert_eq!(total(&with, "popc"), 32);
    let without = run("0");
    assert_eq!(total(&without, "popc"), 0, "{}", without["counters"]);
    assert_eq!(with["buffers"], without["buffers"]);
}

#[test]
fn tensor_core_operations_count_per_lane() {
    let v = exec(
        "tests/kernels/instrument/ldmatrix_mma.cu",
        "ldmatrix_mma",
        "1",
        "32",
        &[
            "c=f32[128]:zeros",
            "a=f16[1024]:arange",
            "w=f16[512]:ones",
            "m=i32:16",
            "n=i32:8",
            "k=i32:64",
        ],
    );
    // One tile of 64 along k: 4 steps of 16, each an mma and two ldmatrix.
    assert_eq!(max(&v, "mma"), 4, "{}", v["counters"]);
    assert_eq!(max(&v, "ldmatrix"), 8);
    assert_eq!(total(&v, "mma"), 32 * 4);
    let w = exec(
        "tests/kernels/instrument/wmma.cu",
        "wmma",
        "1",
        "32",
        &[
            "out=f32[256]:zeros",
            "a=f16[512]:ones",
            "b=f16[512]:ones",
            "k=i32:32",
        ],
    );
    assert_eq!(max(&w, "wmma"), 2, "{}", w["counters"]);
    assert_eq!(total(&w, "mma") + total(&w, "ldmatrix"), 0);
}

#[test]
fn warps_writing_shared_memory_count_once_per_barrier_interval() {
    let file = format!("{DIR}/trees.cu");
    let args = ["out=f32[2]:zeros", "a=f32[128]:arange"];
    let side = exec(&file, "side_by_side", "2", "64", &args);
    assert_eq!(
        total(&side, "shared_write_warps"),
        2 * 8,
        "{}",
        side["counters"]
    );
    // Credited to the lowest writing lane of each warp: thread 0 writes in all 7 intervals.
    assert_eq!(max(&side, "shared_write_warps"), 7);
    let spread = exec(&file, "spread", "2", "64", &args);
    assert_eq!(
        total(&spread, "shared_write_warps"),
        2 * 13,
        "{}",
        spread["counters"]
    );
    assert_eq!(side["buffers"], spread["buffers"]);
    // Both trees make the same shared writes: only the warps they keep busy differ.
    assert_eq!(
        total(&side, "shared_writes"),
        total(&spread, "shared_writes")
    );
}

#[test]
fn activemask_and_scalar_float_and_half_math_are_counted_and_their_twins_are_not() {
    let file = format!("{DIR}/families.cu");
    // keys 0..31: lanes 1..31 take the branch with __activemask(), lane 0 does not.
    let keys = ["out=i32[32]:zeros", "keys=i32[32]:arange"];
    let active = exec(&file, "active_lanes", "1", "32", &keys);
    assert_eq!(max(&active, "activemask"), 1, "{}", active["counters"]);
    assert_eq!(total(&active, "activemask"), 31);
    assert_eq!(total(&active, "votes"), 0);
    let voted = exec(&file, "voted_lanes", "1", "32", &keys);
    assert_eq!(total(&voted, "activemask"), 0, "{}", voted["counters"]);
    assert_eq!(total(&voted, "votes"), 32);

    let args = ["out=f32[4]:zeros", "a=f32[4]:arange", "h=f16[4]:arange"];
    let scalar = exec(&file, "scalar_math", "1", "4", &args);
    // fma, sub, add, div, max, and the final add: 6 float; __hfma and __hadd: 2 half.
    assert_eq!(max(&scalar, "f32"), 6, "{}", scalar["counters"]);
    assert_eq!(max(&scalar, "f16"), 2, "{}", scalar["counters"]);
    assert_eq!(total(&scalar, "f16x2"), 0);
    let packed = exec(&file, "packed_math", "1", "4", &args);
    assert_eq!(max(&packed, "f16x2"), 2, "{}", packed["counters"]);
    assert_eq!(total(&packed, "f16"), 0, "{}", packed["counters"]);
    assert_eq!(max(&packed, "f32"), 1, "{}", packed["counters"]);

    // Divergent lanes (`exec` checks that both schedules count alike): t % 4 loop trips of one
    // fma each, and the short `if`'s fma, which NVRTC computes in every lane and selects.
    let args = ["out=f32[32]:zeros", "a=f32[32]:arange"];
    let div = exec(&file, "divergent_floats", "1", "32", &args);
    let expected: u64 = (0..32u64).map(|t| 1 + t % 4).sum();
    assert_eq!(total(&div, "f32"), expected, "{}", div["counters"]);
}
