//! The shared run types as they cross the pipe between gpuzzle and its GPU worker process.
//!
//! `RunResult` and friends (src/emu) serialize for reports, with fields skipped and no
//! `Deserialize`; these mirror them field for field, so nothing is lost in transit (help texts,
//! argmax threads, second lines). Buffer and argument bytes travel as hex strings: a megabyte
//! buffer is two megabytes of JSON instead of four of number arrays.

use crate::emu::result::{
    BlockTotals, CounterSummary, Counters, DiagKind, Diagnostic, PerfStats, RunResult, Severity,
    ThreadId, WarpId, WarpLeast,
};
use crate::emu::value::{Buffer, ElemType, KernelArg, Scalar};
use crate::emu::LaunchConfig;
use serde::{Deserialize, Serialize};

/// Lowercase hex of `bytes`.
pub fn to_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

/// The bytes of a hex string, or what is wrong with it.
pub fn from_hex(s: &str) -> Result<Vec<u8>, String> {
    fn nibble(c: u8) -> Result<u8, String> {
        match c {
            b'0'..=b'9' => Ok(c - b'0'),
            b'a'..=b'f' => Ok(c - b'a' + 10),
            b'A'..=b'F' => Ok(c - b'A' + 10),
            _ => Err(format!("`{}` is not a hex digit", c as char)),
        }
    }
    let b = s.as_bytes();
    if !b.len().is_multiple_of(2) {
        return Err("odd number of hex digits".into());
    }
    b.chunks_exact(2)
        .map(|p| Ok(nibble(p[0])? << 4 | nibble(p[1])?))
        .collect()
}

mod hex_bytes {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::to_hex(b))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let s = String::deserialize(d)?;
        super::from_hex(&s).map_err(serde::de::Error::custom)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireConfig {
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub dynamic_shared: u32,
    /// A cooperative launch (`cuLaunchCooperativeKernel`); absent in older requests.
    #[serde(default)]
    pub cooperative: bool,
}

impl From<&LaunchConfig> for WireConfig {
    fn from(c: &LaunchConfig) -> Self {
        WireConfig {
            grid: c.grid,
            block: c.block,
            dynamic_shared: c.dynamic_shared,
            cooperative: c.cooperative,
        }
    }
}

impl From<WireConfig> for LaunchConfig {
    fn from(c: WireConfig) -> Self {
        LaunchConfig {
            grid: c.grid,
            block: c.block,
            dynamic_shared: c.dynamic_shared,
            cooperative: c.cooperative,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireBuffer {
    pub name: String,
    pub ty: ElemType,
    #[serde(with = "hex_bytes")]
    pub data: Vec<u8>,
}

impl From<&Buffer> for WireBuffer {
    fn from(b: &Buffer) -> Self {
        WireBuffer {
            name: b.name.clone(),
            ty: b.ty,
            data: b.data.clone(),
        }
    }
}

impl From<WireBuffer> for Buffer {
    fn from(b: WireBuffer) -> Self {
        Buffer {
            name: b.name,
            ty: b.ty,
            data: b.data,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireScalar {
    pub ty: ElemType,
    pub bits: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WireArg {
    Scalar(WireScalar),
    Buffer(WireBuffer),
    Struct {
        #[serde(with = "hex_bytes")]
        bytes: Vec<u8>,
        fields: Vec<WireScalar>,
    },
}

impl From<&KernelArg> for WireArg {
    fn from(a: &KernelArg) -> Self {
        let scalar = |s: &Scalar| WireScalar {
            ty: s.ty,
            bits: s.bits,
        };
        match a {
            KernelArg::Scalar(s) => WireArg::Scalar(scalar(s)),
            KernelArg::Buffer(b) => WireArg::Buffer(b.into()),
            KernelArg::Struct { bytes, fields } => WireArg::Struct {
                bytes: bytes.clone(),
                fields: fields.iter().map(scalar).collect(),
            },
        }
    }
}

impl From<WireArg> for KernelArg {
    fn from(a: WireArg) -> Self {
        let scalar = |s: WireScalar| Scalar {
            ty: s.ty,
            bits: s.bits,
        };
        match a {
            WireArg::Scalar(s) => KernelArg::Scalar(scalar(s)),
            WireArg::Buffer(b) => KernelArg::Buffer(b.into()),
            WireArg::Struct { bytes, fields } => KernelArg::Struct {
                bytes,
                fields: fields.into_iter().map(scalar).collect(),
            },
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireDiagnostic {
    /// `DiagKind::as_str` spelling.
    pub kind: String,
    pub error: bool,
    pub message: String,
    pub help: Option<String>,
    pub file: Option<String>,
    pub line: Option<u32>,
    pub block: [u32; 3],
    pub thread: [u32; 3],
    pub other_line: Option<u32>,
    /// What the checker saw (`teach` writes the help from it in the parent).
    #[serde(default)]
    pub facts: crate::emu::facts::Facts,
}

/// Every kind, for decoding by name. `kind_index` fails to compile when a kind is added and
/// not listed here.
const KINDS: [DiagKind; 10] = [
    DiagKind::OutOfBounds,
    DiagKind::SharedRace,
    DiagKind::GlobalRace,
    DiagKind::UninitializedRead,
    DiagKind::BarrierDivergence,
    DiagKind::StepLimit,
    DiagKind::Misaligned,
    DiagKind::WarpSync,
    DiagKind::Assert,
    DiagKind::AsyncCopy,
];

#[allow(dead_code)]
const fn kind_index(k: DiagKind) -> usize {
    match k {
        DiagKind::OutOfBounds => 0,
        DiagKind::SharedRace => 1,
        DiagKind::UninitializedRead => 2,
        DiagKind::BarrierDivergence => 3,
        DiagKind::StepLimit => 4,
        DiagKind::Misaligned => 5,
        DiagKind::WarpSync => 6,
        DiagKind::Assert => 7,
        DiagKind::GlobalRace => 8,
        DiagKind::AsyncCopy => 9,
    }
}

impl From<&Diagnostic> for WireDiagnostic {
    fn from(d: &Diagnostic) -> Self {
        WireDiagnostic {
            kind: d.kind.as_str().to_string(),
            error: d.severity == Severity::Error,
            message: d.message.clone(),
            help: d.help.clone(),
            file: d.file.clone(),
            line: d.line,
            block: d.block,
            thread: d.thread,
            other_line: d.other_line,
            facts: d.facts.clone(),
        }
    }
}

impl TryFrom<WireDiagnostic> for Diagnostic {
    type Error = String;
    fn try_from(d: WireDiagnostic) -> Result<Self, String> {
        let kind = KINDS
            .into_iter()
            .find(|k| k.as_str() == d.kind)
            .ok_or_else(|| format!("unknown diagnostic kind `{}`", d.kind))?;
        Ok(Diagnostic {
            kind,
            severity: if d.error {
                Severity::Error
            } else {
                Severity::Warning
            },
            message: d.message,
            help: d.help,
            file: d.file,
            line: d.line,
            block: d.block,
            thread: d.thread,
            other_line: d.other_line,
            facts: d.facts,
        })
    }
}

/// `Counters` in `Counters::NAMES` order.
type WireCounters = [u64; Counters::N];

fn counters_to_wire(c: &Counters) -> WireCounters {
    std::array::from_fn(|i| c.get(i))
}

fn counters_from_wire(w: WireCounters) -> Counters {
    let mut c = Counters::default();
    for (i, v) in w.into_iter().enumerate() {
        *c.get_mut(i) = v;
    }
    c
}

/// `BlockTotals` on the wire.
type WireBlocks = (
    WireCounters,
    [[u32; 3]; Counters::N],
    WireCounters,
    [[u32; 3]; Counters::N],
);

/// `WarpLeast` on the wire: the least warp totals, and per counter (block, warp).
type WireWarps = (WireCounters, [([u32; 3], u32); Counters::N]);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireRun {
    pub buffers: Vec<WireBuffer>,
    pub stdout: String,
    pub diagnostics: Vec<WireDiagnostic>,
    pub max_per_thread: WireCounters,
    pub total: WireCounters,
    /// Per counter: (block, thread) of the first thread reaching the maximum.
    pub argmax: [([u32; 3], [u32; 3]); Counters::N],
    /// The block totals' extremes: (most, its blocks, least, its blocks); absent for no block.
    pub blocks: Option<WireBlocks>,
    /// The least totals of the warps with work (absent from an older worker).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warps: Option<WireWarps>,
    /// global_warp_accesses, global_sectors, shared_warp_accesses, shared_bank_ways.
    pub perf: [u64; 4],
    pub max_bank_ways: u32,
    pub instructions: u64,
    /// `RunResult::families_uncounted`.
    #[serde(default)]
    pub families_uncounted: bool,
    /// How the module reached the GPU (absent on the emulator): for `-v` and `doctor`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded_as: Option<super::loader::LoadPath>,
}

impl From<&RunResult> for WireRun {
    fn from(r: &RunResult) -> Self {
        WireRun {
            buffers: r.buffers.iter().map(WireBuffer::from).collect(),
            stdout: r.stdout.clone(),
            diagnostics: r.diagnostics.iter().map(WireDiagnostic::from).collect(),
            max_per_thread: counters_to_wire(&r.counters.max_per_thread),
            total: counters_to_wire(&r.counters.total),
            argmax: r.counters.argmax.map(|t| (t.block, t.thread)),
            blocks: r.counters.blocks.map(|b| {
                (
                    counters_to_wire(&b.most),
                    b.most_at,
                    counters_to_wire(&b.least),
                    b.least_at,
                )
            }),
            warps: r
                .counters
                .warps
                .map(|w| (counters_to_wire(&w.least), w.at.map(|a| (a.block, a.warp)))),
            perf: [
                r.perf.global_warp_accesses,
                r.perf.global_sectors,
                r.perf.shared_warp_accesses,
                r.perf.shared_bank_ways,
            ],
            max_bank_ways: r.perf.max_bank_ways,
            instructions: r.instructions,
            families_uncounted: r.families_uncounted,
            loaded_as: None,
        }
    }
}

impl TryFrom<WireRun> for RunResult {
    type Error = String;
    fn try_from(w: WireRun) -> Result<Self, String> {
        Ok(RunResult {
            buffers: w.buffers.into_iter().map(Buffer::from).collect(),
            stdout: w.stdout,
            diagnostics: w
                .diagnostics
                .into_iter()
                .map(Diagnostic::try_from)
                .collect::<Result<_, _>>()?,
            counters: CounterSummary {
                max_per_thread: counters_from_wire(w.max_per_thread),
                total: counters_from_wire(w.total),
                argmax: w.argmax.map(|(block, thread)| ThreadId { block, thread }),
                blocks: w
                    .blocks
                    .map(|(most, most_at, least, least_at)| BlockTotals {
                        most: counters_from_wire(most),
                        most_at,
                        least: counters_from_wire(least),
                        least_at,
                    }),
                warps: w.warps.map(|(least, at)| WarpLeast {
                    least: counters_from_wire(least),
                    at: at.map(|(block, warp)| WarpId { block, warp }),
                    // Not on the wire: unknown, every warp.
                    with_work: u32::MAX,
                }),
            },
            perf: PerfStats {
                global_warp_accesses: w.perf[0],
                global_sectors: w.perf[1],
                shared_warp_accesses: w.perf[2],
                shared_bank_ways: w.perf[3],
                max_bank_ways: w.max_bank_ways,
                // Per-instruction figures stay with the emulator that measured them.
                sites: Vec::new(),
            },
            instructions: w.instructions,
            families_uncounted: w.families_uncounted,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_and_rejects_junk() {
        let b: Vec<u8> = (0..=255).collect();
        assert_eq!(from_hex(&to_hex(&b)).unwrap(), b);
        assert_eq!(to_hex(&[0, 0xab, 0x10]), "00ab10");
        assert_eq!(from_hex("00AB10").unwrap(), vec![0, 0xab, 0x10]);
        assert!(from_hex("abc").is_err());
        assert!(from_hex("zz").is_err());
    }

    fn sample() -> RunResult {
        RunResult {
            buffers: vec![Buffer::from_values("out", ElemType::F32, &[1.5, -2.0])],
            stdout: "hello\n".into(),
            diagnostics: vec![Diagnostic {
                kind: DiagKind::SharedRace,
                severity: Severity::Warning,
                message: "m".into(),
                help: Some("h".into()),
                file: Some("k.cu".into()),
                line: Some(3),
                block: [1, 0, 0],
                thread: [2, 0, 0],
                other_line: Some(4),
                facts: crate::emu::facts::Facts::StepLimit { in_loop: true },
            }],
            counters: CounterSummary {
                max_per_thread: Counters {
                    global_reads: 1,
                    global_writes: 2,
                    shared_reads: 3,
                    shared_writes: 4,
                    global_atomics: 5,
                    shared_atomics: 6,
                    how: crate::emu::technique::Technique([7; crate::emu::technique::Family::N]),
                },
                total: Counters {
                    global_reads: 10,
                    ..Counters::default()
                },
                argmax: [ThreadId {
                    block: [1, 2, 3],
                    thread: [4, 5, 6],
                }; Counters::N],
                blocks: Some(BlockTotals {
                    least: Counters::default(),
                    ..BlockTotals::of_block(
                        [2, 0, 0],
                        &Counters {
                            global_atomics: 7,
                            ..Counters::default()
                        },
                    )
                }),
                warps: Some(WarpLeast {
                    least: Counters {
                        shared_reads: 3,
                        ..Counters::default()
                    },
                    at: [WarpId {
                        block: [1, 0, 0],
                        warp: 2,
                    }; Counters::N],
                    with_work: u32::MAX,
                }),
            },
            perf: PerfStats {
                global_warp_accesses: 5,
                global_sectors: 20,
                shared_warp_accesses: 2,
                shared_bank_ways: 3,
                max_bank_ways: 2,
                sites: Vec::new(),
            },
            instructions: 99,
            families_uncounted: true,
        }
    }

    #[test]
    fn a_run_result_survives_the_trip_through_json() {
        let r = sample();
        let text = serde_json::to_string(&WireRun::from(&r)).unwrap();
        let back: WireRun = serde_json::from_str(&text).unwrap();
        let back = RunResult::try_from(back).unwrap();
        assert_eq!(back.buffers, r.buffers);
        assert_eq!(back.stdout, r.stdout);
        assert_eq!(back.diagnostics, r.diagnostics);
        assert_eq!(back.counters, r.counters);
        assert_eq!(back.counters.argmax, r.counters.argmax);
        assert_eq!(back.counters.blocks, r.counters.blocks);
        assert_eq!(back.perf, r.perf);
        assert_eq!(back.instructions, 99);
        assert!(back.families_uncounted);
    }

    #[test]
    fn every_diagnostic_kind_has_a_wire_name() {
        for k in KINDS {
            let mut d = sample().diagnostics[0].clone();
            d.kind = k;
            assert_eq!(
                Diagnostic::try_from(WireDiagnostic::from(&d)).unwrap().kind,
                k
            );
        }
        let mut w = WireDiagnostic::from(&sample().diagnostics[0]);
        w.kind = "bogus".into();
        assert!(Diagnostic::try_from(w).is_err());
    }

    #[test]
    fn arguments_survive_the_trip() {
        let args = vec![
            KernelArg::Buffer(Buffer::from_values("a", ElemType::I32, &[1.0, -1.0])),
            KernelArg::Scalar(Scalar::from_f64(ElemType::F64, 0.25)),
            KernelArg::struct_of(vec![
                Scalar::from_f64(ElemType::U8, 1.0),
                Scalar::from_f64(ElemType::F32, 2.0),
            ]),
        ];
        let wire: Vec<WireArg> = args.iter().map(WireArg::from).collect();
        let text = serde_json::to_string(&wire).unwrap();
        let back: Vec<WireArg> = serde_json::from_str(&text).unwrap();
        let back: Vec<KernelArg> = back.into_iter().map(KernelArg::from).collect();
        assert_eq!(back, args);
    }
}
