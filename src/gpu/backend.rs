//! Which executor runs a kernel (`--backend auto|emu|gpu`), and running one launch on an
//! executor of instrumented PTX in an isolated worker process.
//!
//! `auto` picks the GPU when `probe` finds one, else the emulator (the caller shows the `note`
//! saying so); `gpu` without a GPU is an error naming the reason. The emulator itself is not
//! run from here: callers keep their own emulator path and call `launch` for the other two.

use super::isolate::{IsolateError, Isolated, WorkerCommand};
use super::loader::LoadPath;
use super::probe::{self, GpuInfo};
use super::session::Session;
use super::wire::{WireArg, WireConfig};
use super::worker::{Failure, LaunchRequest, Reply, Request, Target};
use crate::emu::result::{DiagKind, Diagnostic, RunResult, Severity};
use crate::emu::value::KernelArg;
use crate::emu::{EmuError, LaunchConfig};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// What the learner asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum BackendChoice {
    /// The GPU when there is one, else the emulator.
    #[default]
    Auto,
    /// gpuzzle's emulator: every checker (races, uninitialised reads, barriers).
    Emu,
    /// The GPU, with instrumented PTX (counters, bounds checks, loop limit).
    Gpu,
}

/// What runs a launch.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Executor {
    /// The emulator with its checkers (the callers' own path).
    #[default]
    Emulator,
    /// Instrumented PTX on the GPU, in a worker process.
    Gpu,
    /// Instrumented PTX on the emulator, checkers off, in a worker process: what the GPU would
    /// report (`exec --via-instrumented-ptx`).
    InstrumentedEmulator,
}

/// How long a GPU launch may take before its worker is killed.
pub const DEFAULT_GPU_TIMEOUT: Duration = Duration::from_secs(10);
/// The same for instrumented PTX on the emulator, which is far slower (its loop limit still
/// stops endless loops).
pub const DEFAULT_EMU_WORKER_TIMEOUT: Duration = Duration::from_secs(600);

impl Executor {
    pub fn default_timeout(self) -> Duration {
        match self {
            Executor::Gpu => DEFAULT_GPU_TIMEOUT,
            _ => DEFAULT_EMU_WORKER_TIMEOUT,
        }
    }
}

/// The outcome of `select`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Selection {
    pub executor: Executor,
    /// The GPU, when the executor is the GPU (or, when grading, the one `also` runs on).
    pub gpu: Option<GpuInfo>,
    /// One line for a person: why `auto` chose what it chose (None for explicit choices).
    pub note: Option<String>,
    /// When grading with `auto` on a machine with a GPU: the second executor the learner's
    /// kernel also runs on (`executor` is then the emulator, with every checker).
    pub also: Option<AlsoRun>,
}

/// The second run of a graded kernel: the GPU (or what stands in for it in tests).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AlsoRun {
    pub executor: Executor,
    /// The device as the report names it (`NVIDIA H100`).
    pub device: String,
}

/// Test-only: with `GPUZZLE_GPU_STAND_IN=emulator`, gpuzzle behaves as on a machine with a GPU
/// whose launches are the worker's instrumented emulator (`Executor::InstrumentedEmulator`):
/// the whole GPU path (selection, worker, control block, grading on both) runs without a GPU.
pub const STAND_IN_ENV: &str = "GPUZZLE_GPU_STAND_IN";

/// The name the stand-in device reports under.
pub const STAND_IN_NAME: &str = "the GPU stand-in (gpuzzle's instrumented emulator)";

fn stand_in() -> bool {
    std::env::var(STAND_IN_ENV).is_ok_and(|v| v == "emulator")
}

/// The probe's answer and what runs "GPU" launches: the real ones, or the stand-in's.
fn probe_and_gpu(choice: BackendChoice) -> (Result<Vec<GpuInfo>, String>, Executor) {
    if choice == BackendChoice::Emu {
        // The emulator needs no driver: no probe (it loads libcuda when there is one).
        (Err(String::new()), Executor::Gpu)
    } else if stand_in() {
        let fake = GpuInfo {
            name: STAND_IN_NAME.into(),
            compute_capability: (8, 0),
            driver_version: (12, 9),
            memory_bytes: 0,
        };
        (Ok(vec![fake]), Executor::InstrumentedEmulator)
    } else {
        (cached_probe().clone(), Executor::Gpu)
    }
}

/// The probe's answer, asked once per process (cuInit can take a while).
pub fn cached_probe() -> &'static Result<Vec<GpuInfo>, String> {
    static PROBE: OnceLock<Result<Vec<GpuInfo>, String>> = OnceLock::new();
    PROBE.get_or_init(probe::probe)
}

/// Resolve `choice` with this machine's probe; `Err` (the reason) only for `gpu` without a GPU.
pub fn select(choice: BackendChoice) -> Result<Selection, String> {
    let (probe, gpu) = probe_and_gpu(choice);
    select_with(choice, &probe).map(|s| on(s, gpu))
}

/// `select` for grading (`run`, `check`, `watch`): `auto` on a machine with a GPU grades on the
/// emulator, every checker on, and also runs the learner's kernel on the GPU.
pub fn select_for_grading(choice: BackendChoice) -> Result<Selection, String> {
    let (probe, gpu) = probe_and_gpu(choice);
    select_for_grading_with(choice, &probe).map(|s| on(s, gpu))
}

/// `select_for_grading` for a given probe answer.
pub fn select_for_grading_with(
    choice: BackendChoice,
    probe: &Result<Vec<GpuInfo>, String>,
) -> Result<Selection, String> {
    let s = select_with(choice, probe)?;
    match (choice, s.gpu) {
        (BackendChoice::Auto, Some(g)) => Ok(Selection {
            executor: Executor::Emulator,
            note: Some(format!(
                "grading on gpuzzle's emulator (races, uninitialised reads, barriers checked) and also on the GPU ({}, compute capability {}.{})",
                g.name, g.compute_capability.0, g.compute_capability.1
            )),
            also: Some(AlsoRun {
                executor: Executor::Gpu,
                device: g.name.clone(),
            }),
            gpu: Some(g),
        }),
        (_, gpu) => Ok(Selection { gpu, ..s }),
    }
}

/// The compile target of the GPU this process grades or runs on, once a selection put
/// kernels on a real one (see `gpu::device_arch`).
static DEVICE_ARCH: OnceLock<crate::compile::Arch> = OnceLock::new();

/// The target of the GPU a selection put kernels on, if it did (a real GPU only).
pub fn selected_arch() -> Option<crate::compile::Arch> {
    DEVICE_ARCH.get().copied()
}

/// The target of this machine's first GPU, asking the driver if nobody has yet.
pub fn probed_arch() -> Option<crate::compile::Arch> {
    let g = cached_probe().as_ref().ok()?.first()?;
    Some(crate::compile::Arch::for_device(g.compute_capability))
}

/// Put "GPU" launches on `gpu` (the stand-in's executor in tests).
fn on(mut s: Selection, gpu: Executor) -> Selection {
    let on_gpu = s.executor == Executor::Gpu || s.also.is_some();
    if let (Some(g), true, Executor::Gpu) = (&s.gpu, on_gpu, gpu) {
        let _ = DEVICE_ARCH.set(crate::compile::Arch::for_device(g.compute_capability));
    }
    if s.executor == Executor::Gpu {
        s.executor = gpu;
    }
    if let Some(a) = s.also.as_mut() {
        a.executor = gpu;
    }
    s
}

/// `select` for a given probe answer.
pub fn select_with(
    choice: BackendChoice,
    probe: &Result<Vec<GpuInfo>, String>,
) -> Result<Selection, String> {
    let first = probe.as_ref().ok().and_then(|g| g.first()).cloned();
    match (choice, first) {
        (BackendChoice::Emu, _) => Ok(Selection {
            executor: Executor::Emulator,
            gpu: None,
            note: None,
            also: None,
        }),
        (BackendChoice::Gpu, Some(g)) => Ok(Selection {
            executor: Executor::Gpu,
            gpu: Some(g),
            note: None,
            also: None,
        }),
        (BackendChoice::Gpu, None) => Err(format!(
            "--backend gpu, but there is no usable GPU: {}; use --backend emu (or auto)",
            probe.as_ref().err().map_or("no device", String::as_str)
        )),
        (BackendChoice::Auto, Some(g)) => Ok(Selection {
            executor: Executor::Gpu,
            note: Some(format!(
                "running on the GPU ({}, compute capability {}.{}); races and uninitialised reads are checked only with --backend emu",
                g.name, g.compute_capability.0, g.compute_capability.1
            )),
            gpu: Some(g),
            also: None,
        }),
        (BackendChoice::Auto, None) => Ok(Selection {
            executor: Executor::Emulator,
            gpu: None,
            also: None,
            note: Some(format!(
                "no GPU ({}): running on gpuzzle's emulator",
                probe.as_ref().err().map_or("no device", String::as_str)
            )),
        }),
    }
}

/// Why an isolated launch gave no result.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// Refused before running, exactly as the emulator refuses (wrong kernel name, arguments).
    #[error(transparent)]
    Launch(#[from] EmuError),
    /// The instrumenter cannot handle this PTX.
    #[error("{0}")]
    Instrument(String),
    /// No GPU after all, or a driver call failed.
    #[error("{0}")]
    Driver(String),
    #[error(transparent)]
    Isolation(#[from] IsolateError),
    #[error("{0}")]
    Internal(String),
}

impl From<Failure> for GpuError {
    fn from(f: Failure) -> Self {
        match f {
            Failure::NoSuchKernel { name, found } => EmuError::NoSuchKernel { name, found }.into(),
            Failure::Signature { message } => EmuError::Signature(message).into(),
            Failure::Unsupported { message } => EmuError::Unsupported(message).into(),
            Failure::Launch { message } => EmuError::Launch(message).into(),
            Failure::Instrument { message } => GpuError::Instrument(message),
            Failure::Driver { message } => GpuError::Driver(message),
            Failure::Internal { message } => GpuError::Internal(message),
        }
    }
}

/// One worker per gpuzzle process, started at its first launch and kept for the next ones (see
/// `session`): parallel `check` jobs take turns, rather than each creating a CUDA context and
/// competing for the GPU (the timeout would then measure the queue).
static WORKER: Mutex<Option<Session>> = Mutex::new(None);

/// Send `request` to this process's worker, starting it if needed.
fn call_worker(request: &Request, timeout: Duration) -> Result<Isolated<Reply>, IsolateError> {
    let mut slot = WORKER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if slot.is_none() {
        *slot = Some(Session::new(WorkerCommand::current_exe()?));
    }
    match slot.as_mut() {
        Some(session) => session.call(request, timeout),
        None => Err(IsolateError::Spawn("no worker".into())),
    }
}

/// How many worker processes this process has started (1 when every launch went to the first).
pub fn workers_started() -> u32 {
    WORKER
        .lock()
        .map(|s| s.as_ref().map_or(0, Session::started))
        .unwrap_or(0)
}

/// Run one launch of `kernel` from `ptx` on `executor` (not `Emulator`) in a worker process.
/// A launch still running at `timeout` is killed and reported as a `step-limit` diagnostic on
/// the unchanged inputs, like a loop the emulator stops.
pub fn launch(
    executor: Executor,
    ptx: &str,
    kernel: &str,
    cfg: &LaunchConfig,
    args: Vec<KernelArg>,
    step_budget: u64,
    timeout: Duration,
) -> Result<RunResult, GpuError> {
    let target = match executor {
        Executor::Gpu => Target::Gpu,
        Executor::InstrumentedEmulator => Target::Emulator,
        Executor::Emulator => {
            return Err(GpuError::Internal(
                "backend::launch does not run the plain emulator".into(),
            ))
        }
    };
    let request = Request::Launch(LaunchRequest {
        target,
        ptx: ptx.to_string(),
        kernel: kernel.to_string(),
        cfg: WireConfig::from(cfg),
        args: args.iter().map(WireArg::from).collect(),
        step_budget,
    });
    let isolated = match call_worker(&request, timeout) {
        Ok(i) => i,
        Err(IsolateError::TimedOut { secs }) => return Ok(timed_out(args, secs, executor)),
        Err(e) => return Err(e.into()),
    };
    match isolated.reply {
        Reply::Launch(mut w) => {
            if let Some(how) = w.loaded_as.take() {
                remember_load(how);
            }
            let mut r = RunResult::try_from(w).map_err(GpuError::Internal)?;
            // Device printf reached the worker's stdout.
            r.stdout.push_str(&isolated.printed);
            Ok(r)
        }
        Reply::Failed(f) => Err(f.into()),
        Reply::Bench(_) => Err(GpuError::Internal(
            "the worker answered a launch with a bench".into(),
        )),
    }
}

/// How this process's GPU launches loaded their modules (CUBIN or PTX, and why), once there
/// was one: the first launch's way, or the first fallback to PTX after it, which is the one
/// worth saying. `-v` says it once, `doctor` as its own line.
static LOADED_AS: Mutex<Option<LoadPath>> = Mutex::new(None);

fn remember_load(how: LoadPath) {
    let mut slot = LOADED_AS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    *slot = Some(pick_load(slot.take(), how));
}

/// What `LOADED_AS` says after `how`: the first way, unless a fallback to PTX comes later.
fn pick_load(said: Option<LoadPath>, how: LoadPath) -> LoadPath {
    match (said, &how) {
        (Some(LoadPath::Cubin { .. }), LoadPath::Ptx { .. }) | (None, _) => how,
        (Some(said), _) => said,
    }
}

/// See [`LOADED_AS`].
pub fn loaded_as() -> Option<LoadPath> {
    LOADED_AS
        .lock()
        .map(|s| s.clone())
        .unwrap_or_else(|poisoned| poisoned.into_inner().clone())
}

/// Run a bench request on the GPU in a worker process.
pub fn bench_on_gpu(
    request: super::worker::BenchRequest,
    timeout: Duration,
) -> Result<super::worker::BenchReply, GpuError> {
    let answer = call_worker(&Request::Bench(request), timeout)?;
    match answer.reply {
        Reply::Bench(b) => Ok(*b),
        Reply::Failed(f) => Err(f.into()),
        Reply::Launch(_) => Err(GpuError::Internal(
            "the worker answered a bench with a launch".into(),
        )),
    }
}

/// The result of a launch stopped at the timeout: inputs unchanged, one `step-limit` error.
fn timed_out(args: Vec<KernelArg>, secs: f64, executor: Executor) -> RunResult {
    let on = if executor == Executor::Gpu {
        "on the GPU"
    } else {
        "in the worker"
    };
    RunResult {
        buffers: args
            .into_iter()
            .filter_map(|a| match a {
                KernelArg::Buffer(b) => Some(b),
                _ => None,
            })
            .collect(),
        diagnostics: vec![Diagnostic {
            kind: DiagKind::StepLimit,
            severity: Severity::Error,
            message: format!("the kernel was still running after {secs:.1} s {on} and was stopped"),
            help: None,
            file: None,
            line: None,
            block: [0; 3],
            thread: [0; 3],
            other_line: None,
            facts: crate::emu::facts::Facts::TimedOut {
                on_gpu: executor == Executor::Gpu,
            },
        }],
        ..RunResult::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::value::{Buffer, ElemType};

    fn gpu() -> GpuInfo {
        GpuInfo {
            name: "NVIDIA H100".into(),
            compute_capability: (9, 0),
            driver_version: (12, 9),
            memory_bytes: 80 << 30,
        }
    }

    #[test]
    fn auto_picks_the_gpu_when_there_is_one_and_says_so() {
        let with = Ok(vec![gpu()]);
        let s = select_with(BackendChoice::Auto, &with).unwrap();
        assert_eq!(s.executor, Executor::Gpu);
        assert!(s
            .note
            .unwrap()
            .contains("NVIDIA H100, compute capability 9.0"));
        let s = select_with(BackendChoice::Gpu, &with).unwrap();
        assert_eq!((s.executor, s.note), (Executor::Gpu, None));
        let s = select_with(BackendChoice::Emu, &with).unwrap();
        assert_eq!(s.executor, Executor::Emulator);
    }

    #[test]
    fn without_a_gpu_auto_falls_back_and_gpu_is_refused_with_the_reason() {
        let without = Err("no CUDA driver (libcuda.so.1) found".to_string());
        let s = select_with(BackendChoice::Auto, &without).unwrap();
        assert_eq!(s.executor, Executor::Emulator);
        assert_eq!(
            s.note.as_deref(),
            Some("no GPU (no CUDA driver (libcuda.so.1) found): running on gpuzzle's emulator")
        );
        let e = select_with(BackendChoice::Gpu, &without).unwrap_err();
        assert!(
            e.contains("libcuda.so.1") && e.contains("--backend emu"),
            "{e}"
        );
        let s = select_with(BackendChoice::Emu, &without).unwrap();
        assert_eq!((s.executor, s.note), (Executor::Emulator, None));
    }

    #[test]
    fn grading_with_auto_on_a_gpu_keeps_the_emulator_and_adds_the_gpu() {
        let with = Ok(vec![gpu()]);
        let s = select_for_grading_with(BackendChoice::Auto, &with).unwrap();
        assert_eq!(s.executor, Executor::Emulator);
        assert_eq!(
            s.also,
            Some(AlsoRun {
                executor: Executor::Gpu,
                device: "NVIDIA H100".into()
            })
        );
        assert!(s.note.unwrap().contains("also on the GPU (NVIDIA H100"));
        for (choice, executor) in [
            (BackendChoice::Emu, Executor::Emulator),
            (BackendChoice::Gpu, Executor::Gpu),
        ] {
            let s = select_for_grading_with(choice, &with).unwrap();
            assert_eq!((s.executor, s.also), (executor, None));
        }
        // Without a GPU, grading is the emulator's alone.
        let without = Err("no CUDA driver".to_string());
        let s = select_for_grading_with(BackendChoice::Auto, &without).unwrap();
        assert_eq!((s.executor, s.also), (Executor::Emulator, None));
        assert!(select_for_grading_with(BackendChoice::Gpu, &without).is_err());
    }

    #[test]
    fn the_load_path_said_is_the_first_or_the_first_fallback_after_it() {
        let cubin = || LoadPath::Cubin {
            target: "sm_90".into(),
            assembler: "ptxas 12.9.86".into(),
        };
        let ptx = |why: &str| LoadPath::Ptx { why: why.into() };
        assert_eq!(pick_load(None, cubin()), cubin());
        assert_eq!(pick_load(Some(cubin()), cubin()), cubin());
        assert_eq!(pick_load(Some(cubin()), ptx("a")), ptx("a"));
        assert_eq!(pick_load(Some(ptx("a")), ptx("b")), ptx("a"));
        assert_eq!(pick_load(Some(ptx("a")), cubin()), ptx("a"));
    }

    #[test]
    fn a_timeout_becomes_a_step_limit_error_on_the_unchanged_inputs() {
        let args = vec![KernelArg::Buffer(Buffer::from_values(
            "a",
            ElemType::F32,
            &[1.0],
        ))];
        let r = timed_out(args, 10.0, Executor::Gpu);
        assert!(r.has_errors());
        assert_eq!(r.diagnostics[0].kind, DiagKind::StepLimit);
        assert!(r.diagnostics[0]
            .message
            .contains("still running after 10.0 s on the GPU"));
        assert_eq!(r.buffers[0].values(), vec![1.0]);
    }

    #[test]
    fn worker_failures_map_back_to_the_emulators_errors() {
        let e: GpuError = Failure::Signature {
            message: "argument 1".into(),
        }
        .into();
        assert!(matches!(e, GpuError::Launch(EmuError::Signature(_))));
        let e: GpuError = Failure::Instrument {
            message: "cp.async".into(),
        }
        .into();
        assert!(matches!(e, GpuError::Instrument(_)));
    }
}
