//! Which executor runs a kernel (`--backend auto|emu|gpu`), and running one launch on an
//! executor of instrumented PTX in an isolated worker process.
//!
//! `auto` picks the GPU when `probe` finds one, else the emulator (the caller shows the `note`
//! saying so); `gpu` without a GPU is an error naming the reason. The emulator itself is not
//! run from here: callers keep their own emulator path and call `launch` for the other two.

use super::isolate::{self, IsolateError, WorkerCommand};
use super::probe::{self, GpuInfo};
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
    /// The GPU, when the executor is the GPU.
    pub gpu: Option<GpuInfo>,
    /// One line for a person: why `auto` chose what it chose (None for explicit choices).
    pub note: Option<String>,
}

/// The probe's answer, asked once per process (cuInit can take a while).
pub fn cached_probe() -> &'static Result<Vec<GpuInfo>, String> {
    static PROBE: OnceLock<Result<Vec<GpuInfo>, String>> = OnceLock::new();
    PROBE.get_or_init(probe::probe)
}

/// Resolve `choice` with this machine's probe; `Err` (the reason) only for `gpu` without a GPU.
pub fn select(choice: BackendChoice) -> Result<Selection, String> {
    if choice == BackendChoice::Emu {
        // The emulator needs no driver: no probe (it loads libcuda when there is one).
        return select_with(choice, &Err(String::new()));
    }
    select_with(choice, cached_probe())
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
        }),
        (BackendChoice::Gpu, Some(g)) => Ok(Selection {
            executor: Executor::Gpu,
            gpu: Some(g),
            note: None,
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
        }),
        (BackendChoice::Auto, None) => Ok(Selection {
            executor: Executor::Emulator,
            gpu: None,
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

/// One GPU worker at a time per gpuzzle process: parallel `check` jobs would otherwise create a
/// CUDA context each and compete for the GPU, and the timeout would measure the queue.
static GPU_TURN: Mutex<()> = Mutex::new(());

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
    let cmd = WorkerCommand::current_exe()?;
    let answer = {
        let _turn = (target == Target::Gpu).then(|| GPU_TURN.lock());
        isolate::call::<_, Reply>(&cmd, &request, timeout)
    };
    let isolated = match answer {
        Ok(i) => i,
        Err(IsolateError::TimedOut { secs }) => return Ok(timed_out(args, secs, executor)),
        Err(e) => return Err(e.into()),
    };
    match isolated.reply {
        Reply::Launch(w) => {
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

/// Run a bench request on the GPU in a worker process.
pub fn bench_on_gpu(
    request: super::worker::BenchRequest,
    timeout: Duration,
) -> Result<super::worker::BenchReply, GpuError> {
    let cmd = WorkerCommand::current_exe()?;
    let answer = {
        let _turn = GPU_TURN.lock();
        isolate::call::<_, Reply>(&cmd, &Request::Bench(request), timeout)?
    };
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
            help: Some("an endless loop, or a __syncthreads() that not every thread of the block reaches? Run it with --backend emu to see which thread and line; --timeout SECS allows longer runs".into()),
            file: None,
            line: None,
            block: [0; 3],
            thread: [0; 3],
            other_line: None,
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
