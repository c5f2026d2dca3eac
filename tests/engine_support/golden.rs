//! Recorded outputs of the emulator: every launch the engine tests make is compared with what
//! the engine gave when the record was written, so a change to the engine (a faster scheduler,
//! lockstep warps, cheaper checkers) that alters any result fails a test.
//!
//! A launch is keyed by what goes into it (the PTX, the kernel, the launch shape, the argument
//! bytes and the options), and recorded as a digest of what comes out: buffers, printf output,
//! counters (maxima, totals and the thread that reached each maximum), perf figures with their
//! per-instruction sites, the instruction count, and each diagnostic's kind, severity, file, line,
//! other line, block and thread (not its wording, which belongs to the messages, not the engine).
//!
//! `GPUZZLE_BLESS=1` rewrites the record with this run's results (after an intended change of
//! behaviour, or when a test adds a launch). Without it, a launch whose key is not in the record
//! fails too, with that instruction, so no launch goes unchecked.
#![allow(dead_code)]

use gpuzzle::emu::result::RunResult;
use gpuzzle::emu::value::KernelArg;
use gpuzzle::emu::{EmuOptions, LaunchConfig};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

/// FNV-1a, 64 bits: stable across Rust versions and platforms (std's hasher is not promised to be).
#[derive(Clone, Copy)]
pub struct Fnv(u64);

impl Fnv {
    pub fn new() -> Fnv {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    pub fn bytes(&mut self, b: &[u8]) -> &mut Fnv {
        // The length first, so that ("ab","c") and ("a","bc") differ.
        for x in (b.len() as u64).to_le_bytes().iter().chain(b) {
            self.0 ^= *x as u64;
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
        self
    }

    pub fn u64(&mut self, v: u64) -> &mut Fnv {
        self.bytes(&v.to_le_bytes())
    }

    pub fn str(&mut self, s: &str) -> &mut Fnv {
        self.bytes(s.as_bytes())
    }

    pub fn finish(&self) -> u64 {
        self.0
    }
}

fn record_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/engine_golden/records.tsv")
}

fn blessing() -> bool {
    std::env::var("GPUZZLE_BLESS").is_ok_and(|v| v == "1")
}

/// The record as read at the first check of this process (key -> digest and summary).
fn records() -> &'static Mutex<BTreeMap<String, String>> {
    static R: OnceLock<Mutex<BTreeMap<String, String>>> = OnceLock::new();
    R.get_or_init(|| {
        let text = std::fs::read_to_string(record_path()).unwrap_or_default();
        let map = text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .filter_map(|l| l.split_once('\t'))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Mutex::new(map)
    })
}

/// The key of one launch: a readable prefix and a digest of every input.
pub fn launch_key(
    what: &str,
    ptx: &str,
    kernel: &str,
    cfg: &LaunchConfig,
    args: &[KernelArg],
    opts: &EmuOptions,
) -> String {
    let mut h = Fnv::new();
    h.str(ptx).str(kernel);
    for d in cfg.grid.iter().chain(&cfg.block) {
        h.u64(*d as u64);
    }
    h.u64(cfg.dynamic_shared as u64);
    for a in args {
        match a {
            KernelArg::Scalar(s) => h.str(&format!("{:?}", s.ty)).u64(s.bits),
            KernelArg::Buffer(b) => h.str(&format!("{:?}", b.ty)).str(&b.name).bytes(&b.data),
            KernelArg::Struct { bytes, .. } => h.str("struct").bytes(bytes),
        };
    }
    h.u64(opts.step_limit)
        .u64(opts.checkers as u64)
        .u64(opts.jobs as u64)
        .u64(opts.perf as u64);
    format!("{what}:{kernel}:{:016x}", h.finish())
}

/// A digest of everything a launch produced, and a short readable summary of it.
pub fn result_digest(r: &RunResult) -> String {
    let mut h = Fnv::new();
    for b in &r.buffers {
        h.str(&format!("{:?}", b.ty)).str(&b.name).bytes(&b.data);
    }
    h.str(&r.stdout);
    for d in &r.diagnostics {
        h.str(d.kind.as_str())
            .str(&format!("{:?}", d.severity))
            .str(d.file.as_deref().unwrap_or(""))
            .u64(d.line.map_or(u64::MAX, u64::from))
            .u64(d.other_line.map_or(u64::MAX, u64::from));
        for v in d.block.iter().chain(&d.thread) {
            h.u64(*v as u64);
        }
    }
    let c = &r.counters;
    for k in 0..4 {
        h.u64(c.max_per_thread.get(k)).u64(c.total.get(k));
        for v in c.argmax[k].block.iter().chain(&c.argmax[k].thread) {
            h.u64(*v as u64);
        }
    }
    let p = &r.perf;
    h.u64(p.global_warp_accesses)
        .u64(p.global_sectors)
        .u64(p.shared_warp_accesses)
        .u64(p.shared_bank_ways)
        .u64(p.max_bank_ways as u64);
    for s in &p.sites {
        h.u64(s.func as u64)
            .u64(s.pc as u64)
            .u64(s.shared as u64)
            .u64(s.accesses)
            .u64(s.total)
            .u64(s.max as u64);
    }
    h.u64(r.instructions);
    let kinds: Vec<String> = r
        .diagnostics
        .iter()
        .map(|d| format!("{}@{}", d.kind.as_str(), d.line.unwrap_or(0)))
        .collect();
    format!(
        "{:016x}\t{} instructions; diagnostics [{}]",
        h.finish(),
        r.instructions,
        kinds.join(" ")
    )
}

/// Compare the result of the launch `key` with the record (or record it, when blessing).
pub fn check(key: &str, r: &RunResult) {
    let got = result_digest(r);
    let mut map = records().lock().unwrap_or_else(|e| e.into_inner());
    if blessing() {
        if let Some(old) = map.get(key) {
            // One process saw two results for one input: the engine is not deterministic, and
            // no record could hold it.
            if *old != got
                && BLESSED
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .iter()
                    .any(|k| k == key)
            {
                panic!("launch {key} gave two different results in one run:\n  {old}\n  {got}");
            }
        }
        BLESSED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(key.to_string());
        map.insert(key.to_string(), got);
        write(&map);
        return;
    }
    match map.get(key) {
        Some(want) if *want == got => {}
        Some(want) => panic!(
            "launch {key} gives a result different from the recorded one \
             (tests/engine_golden/records.tsv):\n  recorded: {want}\n  now:      {got}\n\
             If the change is intended, rerun with GPUZZLE_BLESS=1 to record the new result."
        ),
        // The keys hold the PTX, which another NVRTC writes differently: with a version other
        // than the record's, a launch without a record is not compared (the Rust references of
        // the corpus still check its results), and that is said once.
        None if recorded_nvrtc().as_deref() != Some(nvrtc_version().as_str()) => {
            static SAID: std::sync::Once = std::sync::Once::new();
            SAID.call_once(|| {
                eprintln!(
                    "engine_golden: the record was made with NVRTC {}, this is NVRTC {}: \
                     launches whose PTX differs are not compared with it",
                    recorded_nvrtc().unwrap_or_else(|| "(unknown)".into()),
                    nvrtc_version()
                )
            });
        }
        None => panic!(
            "launch {key} has no recorded result in tests/engine_golden/records.tsv; \
             rerun the test with GPUZZLE_BLESS=1 to record it"
        ),
    }
}

/// The record's first line after the title: the NVRTC that compiled its kernels.
const NVRTC_LINE: &str = "# nvrtc ";

/// The version of the NVRTC this process compiles with, as the record writes it.
fn nvrtc_version() -> String {
    match gpuzzle::compile::locate() {
        Ok(info) => format!("{}.{}", info.version.0, info.version.1),
        Err(e) => panic!("NVRTC is needed to compile the recorded kernels: {e}"),
    }
}

/// The NVRTC version the record names, if it names one.
fn recorded_nvrtc() -> Option<String> {
    let text = std::fs::read_to_string(record_path()).ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(NVRTC_LINE))
        .map(|v| v.trim().to_string())
}

/// Keys recorded by this process while blessing.
static BLESSED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn write(map: &BTreeMap<String, String>) {
    let mut text = String::from(
        "# Recorded emulator results (tests/engine_support/golden.rs). Rewrite with GPUZZLE_BLESS=1.\n",
    );
    text.push_str(&format!("{NVRTC_LINE}{}\n", nvrtc_version()));
    for (k, v) in map {
        text.push_str(k);
        text.push('\t');
        text.push_str(v);
        text.push('\n');
    }
    let path = record_path();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    }
    // Whole-file replace through a temporary, so a test binary killed mid-write leaves the old
    // record rather than half of one.
    let tmp = path.with_extension(format!("tsv.{}", std::process::id()));
    std::fs::write(&tmp, text).unwrap_or_else(|e| panic!("{}: {e}", tmp.display()));
    std::fs::rename(&tmp, &path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}
