//! A puzzle that requires, forbids or budgets an instruction family (issue 34) fails a kernel
//! that skips or misuses it, and the help names the technique and where the learner's kernel
//! does without it (issue 35), only where the code shows it: each rule on two kernels with
//! other names and shapes of the same mistake, and its honest twin passes. Runs the real binary
//! on small packs written here. Needs NVRTC.

use assert_cmd::Command;

/// A warp sum over 64 elements in blocks of 64 threads (two warps): out[w] = sum of warp w's
/// 32 elements, with `limits` (top-level TOML lines, `[technique]` last) added.
fn warp_sum_puzzle(limits: &str) -> String {
    format!(
        r#"id = 7
slug = "warp-sum"
title = "Warp sum"
part = "Test"
kernel = "warp_sum"
params = ["out", "a", "size"]
description = "Add up each warp's 32 elements."
spec = """
for (int w = 0; w * 32 < size; w++) {{
    float s = 0.0f;
    for (int i = w * 32; i < w * 32 + 32 && i < size; i++) s += a[i];
    out[w] = s;
}}
"""
tolerance = {{ abs = 0.0, rel = 0.0 }}
{limits}

[[test]]
name = "64 elements"
grid = [1]
block = [64]
scalars = {{ size = 64 }}
buffers.a = {{ len = 64, init = "arange" }}
buffers.out = {{ len = 2, output = true }}
"#
    )
}

/// `run 7` of `kernel` against a pack of the one puzzle `toml`: exit code and text.
fn run(toml: &str, kernel: &str) -> (i32, String) {
    run_on(toml, kernel, "emu")
}

/// `run` on `backend` (`gpu`: gpuzzle's GPU stand-in, the instrumented PTX on the emulator).
fn run_on(toml: &str, kernel: &str, backend: &str) -> (i32, String) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let pack = dir.path().join("pack");
    std::fs::create_dir(&pack).expect("the pack dir");
    std::fs::write(pack.join("07_warp_sum.toml"), toml).expect("the puzzle");
    std::fs::write(pack.join("07_warp_sum.cu"), kernel).expect("the kernel");
    let out = Command::cargo_bin("gpuzzle")
        .expect("binary builds")
        .env("NO_COLOR", "1")
        .env("COLUMNS", "400")
        .env("GPUZZLE_BACKEND", backend)
        .env("GPUZZLE_GPU_STAND_IN", "emulator")
        .env_remove("GPUZZLE_PUZZLES")
        .current_dir(dir.path())
        .args(["run", "7", "--puzzles"])
        .arg(&pack)
        .output()
        .expect("run gpuzzle");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// The one `help:` line after the budget table (technique help), with line breaks joined.
fn help_of(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let at = flat
        .rfind("help: ")
        .unwrap_or_else(|| panic!("no help in:\n{text}"));
    flat[at..].to_string()
}

const SHUFFLE_FOLD: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0 && i < size) out[i / 32] = v;
}
"#;

/// The tree of puzzle 16 in shared memory, per warp.
const SHARED_TREE: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    __shared__ float part[64];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    part[t] = i < size ? a[i] : 0.0f;
    __syncthreads();
    for (int s = 16; s > 0; s /= 2) {
        if (t % 32 < s) part[t] += part[t + s];
        __syncthreads();
    }
    if (t % 32 == 0 && i < size) out[i / 32] = part[t];
}
"#;

/// Another shape: each warp's lanes add into one shared slot with atomics.
const SHARED_ATOMICS: &str = r#"extern "C" __global__ void warp_sum(float* result, const float* x, int n) {
    __shared__ float per_warp[2];
    int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    if (lane == 0) per_warp[w] = 0.0f;
    __syncthreads();
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < n) atomicAdd(&per_warp[w], x[g]);
    __syncthreads();
    if (lane == 0 && g < n) result[g / 32] = per_warp[w];
}
"#;

const SHUFFLES_REQUIRED: &str = "require = { shuffles = 1 }\n\n[technique]\nname = \"a shuffle fold (`__shfl_down_sync`)\"\ncounters = [\"shuffles\"]\n";

#[test]
fn a_required_shuffle_fold_fails_shared_memory_and_names_its_lines() {
    let toml = warp_sum_puzzle(SHUFFLES_REQUIRED);
    let (code, text) = run(&toml, SHUFFLE_FOLD);
    assert_eq!(code, 0, "the fold passes:\n{text}");
    let (code, text) = run(&toml, SHARED_TREE);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("puzzle 7 asks for a shuffle fold (`__shfl_down_sync`)"),
        "{help}"
    );
    assert!(
        help.contains("through shared memory (lines 5, 8 and 11)"),
        "{help}"
    );
    assert!(!help.contains("atomics"), "{help}");
    let (code, text) = run(&toml, SHARED_ATOMICS);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(help.contains("with shared atomics (line 7)"), "{help}");
}

/// Each lane keeps its warp's partial sums in an array read at an index known only at run
/// time (the adds of 0 keep the output right).
const LOCAL_ARRAY: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    float seen[8];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    for (int k = 0; k < 8; k++) seen[k] = v * k;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    v += seen[((int)v) & 7] * 0.0f;
    if (threadIdx.x % 32 == 0 && i < size) out[i / 32] = v;
}
"#;

/// Another shape: a table of strides filled per thread and read at an index from the data.
const LOCAL_TABLE: &str = r#"extern "C" __global__ void warp_sum(float* dst, const float* src, int count) {
    int strides[5];
    for (int s = 0; s < 5; s++) strides[s] = 16 >> s;
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = g < count ? src[g] : 0.0f;
    int first = count > 1000 ? (int)src[0] % 5 : 0;
    for (int s = 0; s < 5; s++) acc += __shfl_down_sync(0xffffffffu, acc, strides[(s + first) % 5]);
    if (threadIdx.x % 32 == 0 && g < count) dst[g / 32] = acc;
}
"#;

#[test]
fn forbidden_local_memory_names_the_array_lines_and_a_register_kernel_passes() {
    let toml = warp_sum_puzzle("forbid = [\"local_reads\", \"local_writes\"]");
    let (code, text) = run(&toml, SHUFFLE_FOLD);
    assert_eq!(code, 0, "{text}");
    let (code, text) = run(&toml, LOCAL_ARRAY);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(help.contains("puzzle 7 forbids local memory"), "{help}");
    assert!(help.contains("lives in local memory"), "{help}");
    assert!(help.contains("line"), "{help}");
    // The table names the counter, forbidden or not.
    assert!(text.contains("local"), "{text}");
    let (code, text) = run(&toml, LOCAL_TABLE);
    assert_eq!(code, 1, "{text}");
    assert!(help_of(&text).contains("lives in local memory"), "{text}");
}

/// A literal without `f` makes the sum double.
const DOUBLE_LITERAL: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    v = v * 0.5 * 2.0;
    if (threadIdx.x % 32 == 0 && i < size) out[i / 32] = v;
}
"#;

/// Another shape: the sum kept in a `double` variable, no literal at all.
const DOUBLE_ACCUMULATOR: &str = r#"extern "C" __global__ void warp_sum(float* result, const float* x, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    double acc = g < n ? x[g] : 0;
    for (int d = 16; d >= 1; d >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, d);
    if (threadIdx.x % 32 == 0 && g < n) result[g / 32] = (float)acc;
}
"#;

#[test]
fn forbidden_double_math_points_at_a_literal_only_where_there_is_one() {
    let toml = warp_sum_puzzle("forbid = [\"f64\"]");
    let (code, text) = run(&toml, SHUFFLE_FOLD);
    assert_eq!(code, 0, "{text}");
    let (code, text) = run(&toml, DOUBLE_LITERAL);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(help.contains("forbids `double` arithmetic"), "{help}");
    assert!(help.contains("line 5 has a floating literal"), "{help}");
    assert!(help.contains("(`0.5`)"), "{help}");
    assert!(help.contains("write `0.5f`"), "{help}");
    let (code, text) = run(&toml, DOUBLE_ACCUMULATOR);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    // The declared type is what to change, not a literal.
    assert!(
        help.contains("line 3 uses the type `double` (`double acc = g < n ? x[g] : 0;`)"),
        "{help}"
    );
    assert!(help.contains("declare it `float`"), "{help}");
    assert!(!help.contains("literal"), "{help}");
}

/// What a memory budget is built for, from `[technique]`, under an over-budget run.
#[test]
fn an_over_budget_run_says_what_the_budget_is_built_for() {
    let toml = warp_sum_puzzle(
        "budget = { global_reads = 1, shared_reads = 0 }\n\n[technique]\nname = \"a shuffle fold\"\ncounters = [\"shuffles\"]\nbudget_for = \"each lane reads its own element once and the warp adds them in registers\"\n",
    );
    let (code, text) = run(&toml, SHARED_TREE);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains(
            "the budget is built for a shuffle fold: each lane reads its own element once"
        ),
        "{help}"
    );
}

/// A shared read made only to meet `require`, its value dropped: the fold does the work.
const DUMMY_SHARED_READ: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    __shared__ float unused[64];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < size ? a[i] : 0.0f;
    unused[threadIdx.x] = v;
    volatile float* peek = unused;
    float dropped = peek[threadIdx.x];
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0 && i < size) out[i / 32] = v;
}
"#;

/// Another shape: an int flag array polled in a loop, each read thrown away.
const DUMMY_SHARED_POLL: &str = r#"extern "C" __global__ void warp_sum(float* result, const float* x, int n) {
    __shared__ int flags[2];
    if (threadIdx.x < 2) flags[threadIdx.x] = 1;
    __syncthreads();
    volatile int* f = flags;
    for (int k = 0; k < 3; k++) {
        int seen = f[k % 2];
    }
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = g < n ? x[g] : 0.0f;
    for (int d = 16; d >= 1; d >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, d);
    if (threadIdx.x % 32 == 0 && g < n) result[g / 32] = acc;
}
"#;

#[test]
fn a_requirement_met_only_by_dropped_reads_is_not_met() {
    let toml = warp_sum_puzzle("require = { shared_reads = 1 }");
    // Shared reads that feed the sum meet it.
    let (code, text) = run(&toml, SHARED_TREE);
    assert_eq!(code, 0, "{text}");
    for (kernel, line) in [(DUMMY_SHARED_READ, "line 7"), (DUMMY_SHARED_POLL, "line 7")] {
        let (code, text) = run(&toml, kernel);
        assert_eq!(code, 1, "{text}");
        let help = help_of(&text);
        assert!(
            help.contains("requires shared reads that feed the result"),
            "{help}"
        );
        assert!(help.contains(&format!("({line})")), "{help}");
    }
}

/// The GPU counts memory only: a family's requirement is not judged there, and the run says so.
#[test]
fn on_the_gpu_family_limits_are_not_judged_and_the_run_says_so() {
    let toml = warp_sum_puzzle(SHUFFLES_REQUIRED);
    let (code, text) = run_on(&toml, SHARED_TREE, "gpu");
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("not judged on it. `--backend emu` judges them"),
        "{text}"
    );
    // The emulator judges it.
    let (code, _) = run_on(&toml, SHARED_TREE, "emu");
    assert_eq!(code, 1);
}

const GRID_SYNC_REQUIRED: &str = "require = { grid_syncs = 1 }\n\n[technique]\nname = \"a grid-wide barrier (`grid.sync()`)\"\ncounters = [\"grid_syncs\"]\n";

#[test]
fn a_required_grid_sync_names_the_kernel_s_global_writes() {
    let toml = warp_sum_puzzle(GRID_SYNC_REQUIRED);
    let (code, text) = run(&toml, SHUFFLE_FOLD);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(help.contains("asks for a grid-wide barrier"), "{help}");
    assert!(
        help.contains("writes global memory (line 5)") && help.contains("Call `grid.sync()`"),
        "{help}"
    );
    // Another shape: the lanes add into the output with atomics.
    let atomics = r#"extern "C" __global__ void warp_sum(float* res, const float* x, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g < n) {
        atomicAdd(&res[g / 32], x[g]);
    }
}
"#;
    let (code, text) = run(&toml, atomics);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(help.contains("writes global memory (line 4)"), "{help}");
}

/// `run` of `kernel` against the real puzzle `stem` (`36_vector_loads`), alone in a pack.
fn run_real(stem: &str, kernel: &str, backend: &str) -> (i32, String) {
    let dir = tempfile::tempdir().expect("a temp dir");
    let pack = dir.path().join("pack");
    std::fs::create_dir(&pack).expect("the pack dir");
    let toml = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("puzzles")
        .join(format!("{stem}.toml"));
    std::fs::copy(&toml, pack.join(format!("{stem}.toml"))).expect("the puzzle");
    std::fs::write(pack.join(format!("{stem}.cu")), kernel).expect("the kernel");
    let id = stem.split('_').next().unwrap_or(stem);
    let out = Command::cargo_bin("gpuzzle")
        .expect("binary builds")
        .env("NO_COLOR", "1")
        .env("COLUMNS", "400")
        .env("GPUZZLE_BACKEND", backend)
        .env("GPUZZLE_GPU_STAND_IN", "emulator")
        .env_remove("GPUZZLE_PUZZLES")
        .current_dir(dir.path())
        .args(["run", id, "--puzzles"])
        .arg(&pack)
        .output()
        .expect("run gpuzzle");
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), text)
}

/// Puzzle 36 with its float4s written as pairs of `float2` (8 bytes a load), the tail honest.
const PAIRS_OF_FLOAT2: &str = r#"extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (4 * g + 3 < size) {
        float2 p0 = reinterpret_cast<const float2*>(a)[2 * g];
        float2 p1 = reinterpret_cast<const float2*>(a)[2 * g + 1];
        float2 q0 = reinterpret_cast<const float2*>(b)[2 * g];
        float2 q1 = reinterpret_cast<const float2*>(b)[2 * g + 1];
        reinterpret_cast<float4*>(out)[g] = make_float4(p0.x + q0.x, p0.y + q0.y, p1.x + q1.x, p1.y + q1.y);
    } else {
        for (int k = 4 * g; k < size; k++) out[k] = a[k] + b[k];
    }
}
"#;

/// The honest float4 kernel with its tail written another way: float4 where whole, then up
/// to three guarded scalar elements, unrolled.
const FLOAT4_UNROLLED_TAIL: &str = r#"extern "C" __global__ void add4(float* out, const float* a, const float* b, int size) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int s = 4 * g;
    if (s + 3 < size) {
        float4 x = reinterpret_cast<const float4*>(a)[g];
        float4 y = reinterpret_cast<const float4*>(b)[g];
        reinterpret_cast<float4*>(out)[g] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
        return;
    }
    if (s < size) out[s] = a[s] + b[s];
    if (s + 1 < size) out[s + 1] = a[s + 1] + b[s + 1];
    if (s + 2 < size) out[s + 2] = a[s + 2] + b[s + 2];
}
"#;

/// Puzzle 36 counts load and store instructions per block: narrow loads fail with help that
/// names their lines, an honest float4 kernel with another tail passes, and on the GPU (whose
/// instrumenter counts no instructions) the limit is not judged, and the run says so.
#[test]
fn puzzle_36_fails_narrow_loads_by_their_instruction_count() {
    let stem = "36_vector_loads";
    let (code, text) = run_real(stem, FLOAT4_UNROLLED_TAIL, "emu");
    assert_eq!(code, 0, "an honest tail passes:\n{text}");
    let (code, text) = run_real(stem, PAIRS_OF_FLOAT2, "emu");
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("global load instructions"), "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("puzzle 36 allows 132 global load instructions per block"),
        "{help}"
    );
    assert!(help.contains("(lines 4-7 and 10)"), "{help}");
    // Its stores are float4: only the loads are over.
    assert!(!text.contains("allows 66 global store"), "{text}");
    let (code, text) = run_real(stem, PAIRS_OF_FLOAT2, "gpu");
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("not judged on it"), "{text}");
}

/// Puzzle 2 adding into its output before writing it: `out` starts as poison, as on a GPU.
const ADDS_INTO_OUTPUT: &str = r#"extern "C" __global__ void zip(float* out, const float* a, const float* b) {
    int local_i = threadIdx.x;
    out[local_i] += a[local_i];
    out[local_i] = out[local_i] + b[local_i];
}
"#;

/// Another shape: an atomic add into the output nobody set.
const ATOMIC_INTO_OUTPUT: &str = r#"extern "C" __global__ void zip(float* result, const float* x, const float* y) {
    int t = threadIdx.x;
    atomicAdd(&result[t], x[t] + y[t]);
}
"#;

/// The honest twin: the sum in a register, stored once.
const SUM_IN_A_REGISTER: &str = r#"extern "C" __global__ void zip(float* out, const float* a, const float* b) {
    int t = threadIdx.x;
    float acc = 0.0f;
    acc += a[t];
    acc += b[t];
    out[t] = acc;
}
"#;

/// Writes first, then reads back what it wrote: over puzzle 2's write budget, but no
/// uninitialised read.
const WRITES_THEN_READS: &str = r#"extern "C" __global__ void zip(float* out, const float* a, const float* b) {
    int t = threadIdx.x;
    out[t] = a[t];
    out[t] = out[t] + b[t];
}
"#;

/// Reading an output before any thread wrote it is an uninitialised read, with the line, the
/// thread and the output's name; a kernel that writes before it reads passes.
#[test]
fn reading_an_output_before_writing_it_is_an_uninitialised_read() {
    let stem = "02_zip";
    let (code, text) = run_real(stem, SUM_IN_A_REGISTER, "emu");
    assert_eq!(code, 0, "{text}");
    let (_, text) = run_real(stem, WRITES_THEN_READS, "emu");
    assert!(text.contains("over-budget"), "{text}");
    assert!(!text.contains("uninitialized-read"), "{text}");
    for (kernel, line) in [(ADDS_INTO_OUTPUT, 3), (ATOMIC_INTO_OUTPUT, 3)] {
        let (code, text) = run_real(stem, kernel, "emu");
        assert_eq!(code, 1, "{text}");
        assert!(text.contains("error[uninitialized-read]"), "{text}");
        // Global elements are named by the puzzle's buffer, whatever the parameter's name.
        let name = "out";
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains(&format!(
                "thread 0 of block 0 read {name}[0] (line {line}) before any thread wrote it"
            )),
            "{text}"
        );
        assert!(flat.contains(&format!("`{name}` is an output")), "{text}");
        // Its elements were written (with what the poison made): never called unwritten.
        assert!(!flat.contains("never written"), "{text}");
    }
}

/// Puzzle 16's tree with its active threads spread by a modulo test.
const MODULO_TREE: &str = r#"extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float acc[TPB];
    int k = threadIdx.x;
    int at = blockIdx.x * 2 * TPB + k;
    acc[k] = (at < size ? a[at] : 0.0f) + (at + TPB < size ? a[at + TPB] : 0.0f);
    __syncthreads();
    for (int d = 1; d < TPB; d <<= 1) {
        if ((k & (2 * d - 1)) == 0) acc[k] += acc[k + d];
        __syncthreads();
    }
    if (k == 0) out[blockIdx.x] = acc[0];
}
"#;

/// The honest tree written with other names and shifts: sequential addressing.
const SIDE_BY_SIDE_TREE: &str = r#"extern "C" __global__ void tree_reduction(float* out, const float* a, int size) {
    __shared__ float acc[TPB];
    int k = threadIdx.x;
    int at = blockIdx.x * 2 * TPB + k;
    acc[k] = (at < size ? a[at] : 0.0f) + (at + TPB < size ? a[at + TPB] : 0.0f);
    __syncthreads();
    for (int d = TPB / 2; d > 0; d >>= 1) {
        if (k < d) acc[k] += acc[k + d];
        __syncthreads();
    }
    if (k == 0) out[blockIdx.x] = acc[0];
}
"#;

/// Puzzle 16 counts the warps a step keeps busy: the modulo tree (every warp busy, bitwise
/// test instead of `%`) fails with help naming its shared stores; sequential addressing passes.
#[test]
fn puzzle_16_fails_a_tree_that_keeps_every_warp_busy() {
    let stem = "16_tree_reduction";
    let (code, text) = run_real(stem, SIDE_BY_SIDE_TREE, "emu");
    assert_eq!(code, 0, "{text}");
    let (code, text) = run_real(stem, MODULO_TREE, "emu");
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(help.contains("puzzle 16 allows 8 warp-steps"), "{help}");
    assert!(
        help.contains("(its shared stores: lines 5 and 8)"),
        "{help}"
    );
    assert!(help.contains("`if (t < stride)`"), "{help}");
}

/// Block-wide barriers required (issue 35): a kernel short of them is told what it does
/// instead, where the census shows it.
const BARRIERS_REQUIRED: &str = "require = { barriers = 64 }\n\n[technique]\nname = \"a tree in shared memory with a barrier per step\"\ncounters = [\"barriers\"]\n";

/// The tree of puzzle 16 ordered by the warp's own barrier only.
const WARP_SYNCED_TREE: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    __shared__ float buf[64];
    int me = threadIdx.x;
    int g = blockIdx.x * blockDim.x + me;
    buf[me] = g < size ? a[g] : 0.0f;
    __syncwarp();
    for (int h = 16; h > 0; h /= 2) {
        if (me % 32 < h) buf[me] += buf[me + h];
        __syncwarp();
    }
    if (me % 32 == 0 && g < size) out[g / 32] = buf[me];
}
"#;

/// Each warp's first lane adds the warp's elements alone, from global memory.
const LANE_ZERO_LOOP: &str = r#"extern "C" __global__ void warp_sum(float* res, const float* src, int count) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x % 32 == 0 && g < count) {
        float s = 0.0f;
        for (int k = g; k < g + 32 && k < count; k++) s += src[k];
        res[g / 32] = s;
    }
}
"#;

#[test]
fn required_barriers_name_what_the_kernel_does_instead() {
    let toml = warp_sum_puzzle(BARRIERS_REQUIRED);
    let (code, text) = run(&toml, SHARED_TREE);
    assert_eq!(code, 0, "the tree with barriers passes:\n{text}");
    let (code, text) = run(&toml, SHUFFLE_FOLD);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("inside one warp (shuffles on line 4)")
            && help.contains("followed by a `__syncthreads()`"),
        "{help}"
    );
    // Another shape: the same tree in shared memory, ordered by `__syncwarp()`.
    let (code, text) = run(&toml, WARP_SYNCED_TREE);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(help.contains("`__syncwarp()` on lines 6 and 9"), "{help}");
    assert!(!help.contains("shuffles on"), "{help}");
    // No shared memory at all: what was seen, and the shared-memory steps.
    let (code, text) = run(&toml, LANE_ZERO_LOOP);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("shares nothing through shared memory"),
        "{help}"
    );
    assert!(!help.contains("``"), "{help}");
}

/// out[w] = how many of warp w's 32 elements are positive, blocks of one warp: a vote's
/// puzzle, for the votes requirement.
fn positives_puzzle(limits: &str) -> String {
    format!(
        r#"id = 7
slug = "warp-sum"
title = "Positives per warp"
part = "Test"
kernel = "warp_sum"
params = ["out", "a", "size"]
description = "Count each warp's positive elements."
spec = """
for (int w = 0; w * 32 < size; w++) {{
    int c = 0;
    for (int i = w * 32; i < w * 32 + 32 && i < size; i++) if (a[i] > 0.0f) c++;
    out[w] = c;
}}
"""
tolerance = {{ abs = 0.0, rel = 0.0 }}
{limits}

[[test]]
name = "64 elements"
grid = [2]
block = [32]
scalars = {{ size = 64 }}
buffers.a = {{ len = 64, init = "random", seed = 3 }}
buffers.out = {{ len = 2, output = true }}
"#
    )
}

const VOTES_REQUIRED: &str = "require = { votes = 32 }\n\n[technique]\nname = \"`__ballot_sync` and `__popc`\"\ncounters = [\"votes\"]\n";

const BALLOT_COUNT: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool pos = i < size && a[i] > 0.0f;
    unsigned int m = __ballot_sync(0xffffffffu, pos);
    if (threadIdx.x == 0) out[blockIdx.x] = __popc(m);
}
"#;

/// A block of one warp counted at a block barrier.
const BARRIER_COUNT: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int n = __syncthreads_count(i < size && a[i] > 0.0f);
    if (threadIdx.x == 0) out[blockIdx.x] = n;
}
"#;

/// Another shape: a shared counter, one atomic per positive lane.
const SHARED_COUNTER: &str = r#"extern "C" __global__ void warp_sum(float* dst, const float* src, int count) {
    __shared__ int hits;
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0) hits = 0;
    __syncthreads();
    if (g < count && src[g] > 0.0f) atomicAdd(&hits, 1);
    __syncthreads();
    if (threadIdx.x == 0) dst[blockIdx.x] = hits;
}
"#;

#[test]
fn required_votes_name_what_the_kernel_counts_with_instead() {
    let toml = positives_puzzle(VOTES_REQUIRED);
    let (code, text) = run(&toml, BALLOT_COUNT);
    assert_eq!(code, 0, "the ballot passes:\n{text}");
    let (code, text) = run(&toml, BARRIER_COUNT);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("`__syncthreads_count` (line 3) counts the whole block"),
        "{help}"
    );
    assert!(help.contains("`__ballot_sync(0xffffffff, keep)`"), "{help}");
    let (code, text) = run(&toml, SHARED_COUNTER);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("counts the kept lanes with atomics (line 6)"),
        "{help}"
    );
    assert!(!help.contains("__syncthreads_count"), "{help}");
}

/// out[0] = the sum of a, into a zeroed output, at most one global atomic per block.
fn total_puzzle(limits: &str) -> String {
    format!(
        r#"id = 7
slug = "warp-sum"
title = "Total"
part = "Test"
kernel = "warp_sum"
params = ["out", "a", "size"]
description = "Add up all of a."
spec = """
float s = 0.0f;
for (int i = 0; i < size; i++) s += a[i];
out[0] = s;
"""
tolerance = {{ abs = 0.0, rel = 0.0 }}
{limits}

[[test]]
name = "128 elements"
grid = [2]
block = [64]
scalars = {{ size = 128 }}
buffers.a = {{ len = 128, init = "arange" }}
buffers.out = {{ len = 1, output = true, zeroed = true }}
"#
    )
}

const PER_THREAD_ATOMIC: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) atomicAdd(out, a[i]);
}
"#;

/// Another shape: each warp folds its values, then every warp's first lane adds to the total.
const PER_WARP_ATOMIC: &str = r#"extern "C" __global__ void warp_sum(float* total, const float* x, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    float v = g < n ? x[g] : 0.0f;
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x % 32 == 0) atomicAdd(&total[0], v);
}
"#;

/// A histogram's atomics go to bins an index picks: no sum-first advice for them.
const BIN_ATOMICS: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) atomicAdd(&out[(i * 0) % 1], a[i]);
}
"#;

#[test]
fn a_block_over_its_global_atomics_is_told_to_combine_first() {
    let toml = total_puzzle("block_budget = { global_atomics = 1 }");
    let (code, text) = run(&toml, PER_THREAD_ATOMIC);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("allows 1 global atomic per block")
            && help.contains("for each thread's own value (line 3)")
            && help.contains("`__reduce_add_sync(0xffffffff, v)`")
            && help.contains("through shared memory"),
        "{help}"
    );
    let (code, text) = run(&toml, PER_WARP_ATOMIC);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("sums each warp (line 4) but lets every warp make its own atomic (line 5)"),
        "{help}"
    );
    // An indexed target is not a total: what was counted stays, without the advice.
    let (code, text) = run(&toml, BIN_ATOMICS);
    assert_eq!(code, 1, "{text}");
    assert!(
        !text.contains("add the values up inside the block"),
        "{text}"
    );
}

/// out[0] = the int8 dot product of a and b, one word of four values per thread, `__dp4a`
/// required.
fn int8_dot_puzzle() -> String {
    r#"id = 7
slug = "warp-sum"
title = "int8 dot"
part = "Test"
kernel = "dot"
params = ["out: i32", "a: i8", "b: i8", "n"]
description = "The dot product of two int8 arrays."
spec = """
int s = 0;
for (int i = 0; i < n; i++) s += a[i] * b[i];
out[0] = s;
"""
tolerance = { abs = 0.0, rel = 0.0 }
require = { dp4a = 1 }

[technique]
name = "`__dp4a` on whole words"
counters = ["dp4a"]

[[test]]
name = "128 values"
grid = [1]
block = [32]
scalars = { n = 128 }
buffers.a = { len = 128, init = "arange" }
buffers.b = { len = 128, init = "random", seed = 6 }
buffers.out = { len = 1, output = true, zeroed = true }
"#
    .to_string()
}

/// Each thread multiplies its four bytes in a loop; its first element's index is a multiply
/// too (line 2), which is no byte product.
const BYTE_LOOP: &str = r#"extern "C" __global__ void dot(int* out, const signed char* a, const signed char* b, int n) {
    int first = 4 * (blockIdx.x * blockDim.x + threadIdx.x);
    int s = 0;
    for (int k = first; k < first + 4 && k < n; k++) s += a[k] * b[k];
    atomicAdd(out, s);
}
"#;

/// Another shape: whole words loaded, the bytes taken apart with shifts and multiplied in
/// float on a line of their own (an integer product of the bytes NVRTC turns into a dp4a).
const SHIFTED_BYTES: &str = r#"extern "C" __global__ void dot(int* res, const signed char* x, const signed char* y, int len) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int xv = reinterpret_cast<const int*>(x)[w];
    int yv = reinterpret_cast<const int*>(y)[w];
    float acc = 0.0f;
    for (int j = 0; j < 4; j++) {
        int p = (xv << (24 - 8 * j)) >> 24;
        int q = (yv << (24 - 8 * j)) >> 24;
        acc += (float)p * (float)q;
    }
    if (4 * w < len) atomicAdd(res, (int)acc);
}
"#;

const DP4A_WORDS: &str = r#"extern "C" __global__ void dot(int* out, const signed char* a, const signed char* b, int n) {
    int w = blockIdx.x * blockDim.x + threadIdx.x;
    int x = reinterpret_cast<const int*>(a)[w];
    int y = reinterpret_cast<const int*>(b)[w];
    if (4 * w < n) atomicAdd(out, __dp4a(x, y, 0));
}
"#;

#[test]
fn a_required_dp4a_names_the_byte_products_not_the_index_arithmetic() {
    let toml = int8_dot_puzzle();
    let (code, text) = run(&toml, DP4A_WORDS);
    assert_eq!(code, 0, "the dp4a kernel passes:\n{text}");
    let (code, text) = run(&toml, BYTE_LOOP);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("multiplies them one by one (line 4)"),
        "{help}"
    );
    let (code, text) = run(&toml, SHIFTED_BYTES);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(help.contains("multiplies them one by one (lines"), "{help}");
    assert!(help.contains("`__dp4a(a, b, c)`"), "{help}");
}

const ACTIVEMASK_FORBIDDEN: &str = "forbid = [\"activemask\"]\nrequire = { votes = 32 }\n\n[technique]\nname = \"`__ballot_sync` and `__popc`\"\ncounters = [\"votes\"]\n";

/// The positive lanes counted by `__activemask()` inside `if (pos)`; the ballot only masks it.
const ACTIVEMASK_UNDER_IF: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool pos = i < size && a[i] > 0.0f;
    unsigned all = __ballot_sync(0xffffffffu, true);
    if (pos) {
        unsigned m = __activemask();
        if (threadIdx.x == __ffs(m) - 1) out[blockIdx.x] = __popc(m & all);
    }
}
"#;

/// Another shape: the lanes without a positive element leave first.
const ACTIVEMASK_AFTER_RETURN: &str = r#"extern "C" __global__ void warp_sum(float* result, const float* v, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned everyone = __ballot_sync(0xffffffffu, g < n);
    if (g >= n || v[g] <= 0.0f) return;
    unsigned alive = __activemask() & everyone;
    if ((alive & ((1u << threadIdx.x) - 1u)) == 0u) result[blockIdx.x] = __popc(alive);
}
"#;

#[test]
fn forbidden_activemask_names_its_line_and_the_ballot_passes() {
    let toml = positives_puzzle(ACTIVEMASK_FORBIDDEN);
    let (code, text) = run(&toml, BALLOT_COUNT);
    assert_eq!(code, 0, "the ballot passes:\n{text}");
    for (kernel, line) in [(ACTIVEMASK_UNDER_IF, 6), (ACTIVEMASK_AFTER_RETURN, 5)] {
        let (code, text) = run(&toml, kernel);
        assert_eq!(code, 1, "{text}");
        let help = help_of(&text);
        assert!(help.contains("puzzle 7 forbids `__activemask()`"), "{help}");
        assert!(
            help.contains(&format!(
                "`__activemask()` (line {line}) says which lanes are running"
            )),
            "{help}"
        );
        assert!(
            help.contains("asks for `__ballot_sync` and `__popc`"),
            "{help}"
        );
    }
}

/// out[i] = x[i] * x[i] + x[i] over halves, pairs in blocks of 64 threads, with `limits`.
fn half_pairs_puzzle(limits: &str) -> String {
    format!(
        r#"id = 7
slug = "warp-sum"
title = "Half pairs"
part = "Test"
kernel = "halves"
params = ["out: f16", "x: f16", "size"]
description = "x * x + x on halves, two at a time."
spec = """
for (int i = 0; i < size; i++) out[i] = __hfma(x[i], x[i], x[i]);
"""
tolerance = {{ abs = 0.0, rel = 1e-3 }}
{limits}

[[test]]
name = "128 halves"
grid = [1]
block = [64]
scalars = {{ size = 128 }}
buffers.x = {{ len = 128, init = "random", seed = 7 }}
buffers.out = {{ len = 128, output = true }}
"#
    )
}

const SCALAR_MATH_BUDGET: &str = "block_budget = { f32 = 2, f16 = 2 }\nrequire = { f16x2 = 32 }\n\n[technique]\nname = \"packed `__half2` arithmetic (`__hfma2`)\"\ncounters = [\"f16x2\"]\n";

const PACKED_PAIRS: &str = r#"#include <cuda_fp16.h>
extern "C" __global__ void halves(__half* out, const __half* x, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * j + 1 < size) {
        __half2 v = reinterpret_cast<const __half2*>(x)[j];
        reinterpret_cast<__half2*>(out)[j] = __hfma2(v, v, v);
    }
}
"#;

/// One packed instruction per pair (x + 0), then each half in float.
const PACKED_THEN_FLOAT: &str = r#"#include <cuda_fp16.h>
extern "C" __global__ void halves(__half* out, const __half* x, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * j + 1 < size) {
        __half2 v = __hadd2(reinterpret_cast<const __half2*>(x)[j], __float2half2_rn(0.0f));
        float2 f = __half22float2(v);
        reinterpret_cast<__half2*>(out)[j] = __floats2half2_rn(f.x * f.x + f.x, f.y * f.y + f.y);
    }
}
"#;

/// Another shape: a packed multiply by one, then a scalar `__hfma` per half.
const PACKED_THEN_SCALAR_HALVES: &str = r#"#include <cuda_fp16.h>
extern "C" __global__ void halves(__half* dst, const __half* src, int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * p + 1 < n) {
        __half2 w = __hmul2(reinterpret_cast<const __half2*>(src)[p], __float2half2_rn(1.0f));
        __half lo = __low2half(w), hi = __high2half(w);
        reinterpret_cast<__half2*>(dst)[p] = __halves2half2(__hfma(lo, lo, lo), __hfma(hi, hi, hi));
    }
}
"#;

/// Packed pairs, but a float square root per thread decides the store: float math over the
/// block budget with no half converted and no float multiply-add.
const PACKED_WITH_FLOAT_GUARD: &str = r#"#include <cuda_fp16.h>
extern "C" __global__ void halves(__half* out, const __half* x, int size) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    float r = sqrtf((float)j);
    if (2 * j + 1 < size && r >= 0.0f) {
        __half2 v = reinterpret_cast<const __half2*>(x)[j];
        reinterpret_cast<__half2*>(out)[j] = __hfma2(v, v, v);
    }
}
"#;

#[test]
fn a_block_over_its_scalar_math_names_the_unpacked_lines_and_packed_pairs_pass() {
    let toml = half_pairs_puzzle(SCALAR_MATH_BUDGET);
    let (code, text) = run(&toml, PACKED_PAIRS);
    assert_eq!(code, 0, "packed pairs pass:\n{text}");

    let (code, text) = run(&toml, PACKED_THEN_FLOAT);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("puzzle 7 allows 2 float math per block"),
        "{help}"
    );
    assert!(help.contains("converts halves to float (line 6)"), "{help}");
    assert!(help.contains("computes in float (line 7)"), "{help}");
    assert!(
        help.contains("packed instruction (line 5) does not make the rest packed"),
        "{help}"
    );
    assert!(
        help.contains("asks for packed `__half2` arithmetic"),
        "{help}"
    );

    let (code, text) = run(&toml, PACKED_THEN_SCALAR_HALVES);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(help.contains("2 scalar half math per block"), "{help}");
    assert!(
        help.contains("computes one `__half` at a time (line 7)"),
        "{help}"
    );
    assert!(help.contains("packed instruction (line 5)"), "{help}");

    // The premise fails: float math, but no half converted to float and no multiply-add: the
    // help names no lines and says nothing of halves.
    let (code, text) = run(&toml, PACKED_WITH_FLOAT_GUARD);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("puzzle 7 allows 2 float math per block"),
        "{help}"
    );
    assert!(!help.contains("converts"), "{help}");
    assert!(!help.contains("computes both halves"), "{help}");
    assert!(
        help.contains("The puzzle asks for packed `__half2` arithmetic"),
        "{help}"
    );
}

/// `warp_require`: one warp folds with shuffles, the other adds its values in a shared tree.
/// The block's shuffles meet a `require` of one warp's fold; the warp's do not.
const ONE_WARP_FOLDS: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    __shared__ float part[64];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float v = i < size ? a[i] : 0.0f;
    if (t < 32) {
        for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    } else {
        part[t] = v;
        __syncwarp();
        for (int s = 16; s > 0; s /= 2) {
            if (t % 32 < s) part[t] += part[t + s];
            __syncwarp();
        }
        v = part[t];
    }
    if (t % 32 == 0 && i < size) out[i / 32] = v;
}
"#;

/// Another shape, other names: every warp shuffles, but the second only for the first two
/// steps of its fold, then gathers the rest through shared memory.
const SECOND_WARP_FOLDS_HALF: &str = r#"extern "C" __global__ void warp_sum(float* sums, const float* x, int n) {
    __shared__ float tail[64];
    int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = g < n ? x[g] : 0.0f;
    int steps = w == 0 ? 5 : 2;
    for (int k = 0; k < steps; k++) acc += __shfl_down_sync(0xffffffffu, acc, 16 >> k);
    tail[threadIdx.x] = acc;
    __syncwarp();
    if (w == 1 && lane == 0) {
        for (int l = 1; l < 8; l++) acc += tail[threadIdx.x + l];
    }
    if (lane == 0 && g < n) sums[g / 32] = acc;
}
"#;

/// The fold, and a third warp past the end of the data that returns at once: it has no work,
/// so `warp_require` does not hold it.
const FOLD_IDLE_WARP_RETURNS: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i - i % 32 >= size) return;
    float v = i < size ? a[i] : 0.0f;
    for (int off = 16; off > 0; off /= 2) v += __shfl_down_sync(0xffffffffu, v, off);
    if (threadIdx.x % 32 == 0 && i < size) out[i / 32] = v;
}
"#;

#[test]
fn warp_require_fails_a_warp_that_skips_the_technique_a_block_total_allows() {
    let limits = "require = { shuffles = 160 }\nwarp_require = { shuffles = \"size / 64 * 160\" }\n\n[technique]\nname = \"a shuffle fold (`__shfl_down_sync`)\"\ncounters = [\"shuffles\"]\n";
    // The block's requirement alone lets one warp do without the fold.
    let block_only =
        warp_sum_puzzle(&limits.replace("warp_require = { shuffles = \"size / 64 * 160\" }\n", ""));
    let (code, text) = run(&block_only, ONE_WARP_FOLDS);
    assert_eq!(code, 0, "one warp's fold meets the block total:\n{text}");

    let toml = warp_sum_puzzle(limits);
    let (code, text) = run(&toml, SHUFFLE_FOLD);
    assert_eq!(code, 0, "the fold passes:\n{text}");
    let (code, text) = run(&toml, ONE_WARP_FOLDS);
    assert_eq!(code, 1, "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Warp 1 of block 0 made 0 shuffles in all (its 32 lanes together), where this puzzle requires at least 160 in every warp with work"),
        "{text}"
    );
    let help = help_of(&text);
    assert!(
        help.contains("a warp of your kernel with work (it reads or writes global memory) ran no shuffles, though your kernel has them (line 7)"),
        "{help}"
    );
    assert!(
        help.contains("they run only inside `if (t < 32)` (line 6), which that warp does not take"),
        "{help}"
    );
    assert!(!help.contains("ballots"), "{help}");

    // Another shape: the second warp folds two steps of five.
    let (code, text) = run(&toml, SECOND_WARP_FOLDS_HALF);
    assert_eq!(code, 1, "{text}");
    let help = help_of(&text);
    assert!(
        help.contains("ran 64 shuffles (its lanes together) where every such warp needs at least 160, though your kernel has them (line 7)"),
        "{help}"
    );
    assert!(
        help.contains("they run in the loop on line 7 (`k < steps`), which that warp runs fewer times than the others"),
        "{help}"
    );

    // A warp with no element (block of 96, 64 elements) is not held to it.
    let idle = toml.replace("block = [64]", "block = [96]");
    let (code, text) = run(&idle, FOLD_IDLE_WARP_RETURNS);
    assert_eq!(code, 0, "a warp with no work is not held:\n{text}");

    // The JSON names the warp and shows the test's minimum and the least warp.
    let dir = tempfile::tempdir().expect("a temp dir");
    let pack = dir.path().join("pack");
    std::fs::create_dir(&pack).expect("the pack dir");
    std::fs::write(pack.join("07_warp_sum.toml"), &toml).expect("the puzzle");
    std::fs::write(pack.join("07_warp_sum.cu"), ONE_WARP_FOLDS).expect("the kernel");
    let out = Command::cargo_bin("gpuzzle")
        .expect("binary builds")
        .env("GPUZZLE_BACKEND", "emu")
        .env_remove("GPUZZLE_PUZZLES")
        .current_dir(dir.path())
        .args(["check", "7", "--format", "json", "--puzzles"])
        .arg(&pack)
        .output()
        .expect("run gpuzzle");
    assert_eq!(out.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let test = &v["puzzles"][0]["tests"][0];
    assert_eq!(test["warp_require"]["shuffles"], 160, "{test}");
    assert_eq!(test["warp_least"]["shuffles"], 0, "{test}");
    let under = &test["under_require"][0];
    assert_eq!(
        (
            &under["counter"],
            &under["used"],
            &under["require"],
            &under["warp"]
        ),
        (
            &serde_json::json!("shuffles"),
            &serde_json::json!(0),
            &serde_json::json!(160),
            &serde_json::json!(1)
        ),
        "{under}"
    );
}

/// The fold's shuffles run, but their results are multiplied by 0.0f: the sum comes from a
/// shared tree.
const SHUFFLES_TIMES_ZERO: &str = r#"extern "C" __global__ void warp_sum(float* out, const float* a, int size) {
    __shared__ float part[64];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    float v = i < size ? a[i] : 0.0f;
    float folded = v;
    for (int off = 16; off > 0; off /= 2) folded += __shfl_down_sync(0xffffffffu, folded, off);
    part[t] = v;
    __syncthreads();
    for (int s = 16; s > 0; s /= 2) {
        if (t % 32 < s) part[t] += part[t + s];
        __syncthreads();
    }
    if (t % 32 == 0 && i < size) out[i / 32] = part[t] + 0.0f * folded;
}
"#;

/// Another shape, other names: the shuffled values only decide a branch no input takes; each
/// warp's lane 0 adds its 32 values itself.
const SHUFFLES_IN_A_DEAD_BRANCH: &str = r#"extern "C" __global__ void warp_sum(float* sums, const float* x, int n) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    float mine = g < n ? x[g] : 0.0f;
    float peer = mine;
    for (int d = 1; d < 32; d *= 2) peer += __shfl_xor_sync(0xffffffffu, peer, d);
    if ((threadIdx.x & 31) == 0 && g < n) {
        float acc = 0.0f;
        for (int k = g; k < g + 32 && k < n; k++) acc += x[k];
        sums[g / 32] = peer > 1.0e30f ? -1.0f : acc;
    }
}
"#;

#[test]
fn required_results_that_change_no_output_do_not_count() {
    let toml = warp_sum_puzzle(SHUFFLES_REQUIRED);
    // Each names the line of its shuffles, quoted as the learner wrote it.
    let fold = "line 7: `for (int off = 16; off > 0; off /= 2) folded += __shfl_down_sync(0xffffffffu, folded, off);`";
    let xor =
        "line 5: `for (int d = 1; d < 32; d *= 2) peer += __shfl_xor_sync(0xffffffffu, peer, d);`";
    for (kernel, line) in [
        (SHUFFLES_TIMES_ZERO, fold),
        (SHUFFLES_IN_A_DEAD_BRANCH, xor),
    ] {
        let (code, text) = run(&toml, kernel);
        assert_eq!(code, 1, "{text}");
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("Block 0 made no shuffles whose results feed the output, where this puzzle requires at least 1 in every block"),
            "{text}"
        );
        let help = help_of(&text);
        assert!(
            help.contains(&format!("your kernel's shuffles ({line}) do not reach it: gpuzzle ran test \"64 elements\" again with every one of their results changed (one bit flipped, a high one, then the lowest), and not one output changed")),
            "{help}"
        );
    }
    // The fold whose results make the sum passes (the premise fails: outputs change).
    let (code, text) = run(&toml, SHUFFLE_FOLD);
    assert_eq!(code, 0, "{text}");
}
