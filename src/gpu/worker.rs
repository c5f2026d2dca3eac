//! The worker process (`gpuzzle __gpu-worker`): requests in, one reply out for each.
//!
//! A launch request runs instrumented PTX on a `Target`: the GPU, or the CPU emulator (the
//! emulator target is what `exec --via-instrumented-ptx` uses, and how this whole path is tested
//! without a GPU). A bench request checks the learner's kernel instrumented at the bench size and,
//! only when that found nothing wrong, times the plain kernel and the reference solution.
//! Everything in here runs under `catch_unwind`: a panic inside cudarc becomes a reply.

use super::bench::DeviceSpecs;
use super::driver::{self, Gpu};
use super::isolate;
use super::loader::LoadPath;
use super::plan::{Plan, PlanError};
use super::wire::{WireArg, WireBuffer, WireConfig, WireRun};
use crate::emu::result::RunResult;
use crate::emu::value::KernelArg;
use crate::emu::{EmuError, LaunchConfig};
use serde::{Deserialize, Serialize};

/// What executes the instrumented kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    Gpu,
    /// The CPU emulator, checkers off: exactly the GPU path with a different executor.
    Emulator,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LaunchRequest {
    pub target: Target,
    /// The module as NVRTC compiled it (instrumented in the worker).
    pub ptx: String,
    pub kernel: String,
    pub cfg: WireConfig,
    pub args: Vec<WireArg>,
    /// Backward branches each thread may take.
    pub step_budget: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchRequest {
    pub learner_ptx: String,
    pub reference_ptx: Option<String>,
    pub kernel: String,
    pub cfg: WireConfig,
    pub args: Vec<WireArg>,
    pub step_budget: u64,
    pub warmup: u32,
    pub reps: u32,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Request {
    Launch(LaunchRequest),
    Bench(BenchRequest),
}

/// One kernel timed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TimedWire {
    pub times_ms: Vec<f64>,
    /// Buffers after the first launch on the bench inputs.
    pub buffers: Vec<WireBuffer>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct BenchReply {
    pub specs: DeviceSpecs,
    /// The instrumented run of the learner's kernel on the bench inputs.
    pub check: WireRun,
    /// Present when the check found no error.
    pub learner: Option<TimedWire>,
    /// The reference solution's timing, or why it could not be timed.
    pub reference: Option<Result<TimedWire, String>>,
}

/// Why a request failed, in a form the parent turns back into its error types.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Failure {
    NoSuchKernel {
        name: String,
        found: String,
    },
    Signature {
        message: String,
    },
    Unsupported {
        message: String,
    },
    Launch {
        message: String,
    },
    /// The instrumenter refused the PTX.
    Instrument {
        message: String,
    },
    /// No GPU, or a driver call failed.
    Driver {
        message: String,
    },
    /// A bug: a panic, a bad request.
    Internal {
        message: String,
    },
}

impl From<EmuError> for Failure {
    fn from(e: EmuError) -> Self {
        match e {
            EmuError::NoSuchKernel { name, found } => Failure::NoSuchKernel { name, found },
            EmuError::Signature(message) => Failure::Signature { message },
            EmuError::Unsupported(message) => Failure::Unsupported { message },
            EmuError::Launch(message) => Failure::Launch { message },
        }
    }
}

impl From<PlanError> for Failure {
    fn from(e: PlanError) -> Self {
        match e {
            PlanError::Launch(e) => e.into(),
            other => Failure::Instrument {
                message: other.to_string(),
            },
        }
    }
}

impl From<driver::DriverFailure> for Failure {
    fn from(e: driver::DriverFailure) -> Self {
        Failure::Driver { message: e.0 }
    }
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[allow(clippy::large_enum_variant)] // one reply per process
pub enum Reply {
    Launch(WireRun),
    Bench(Box<BenchReply>),
    Failed(Failure),
}

/// The hidden subcommand's body: answer requests, one per line of stdin, until stdin closes;
/// exit status 0 when every request got a reply (even a `Failed` one), 2 when one could not be
/// read or answered. After a driver failure the worker exits: its CUDA context may be dead, and
/// the parent starts a fresh worker for the next request.
pub fn serve() -> i32 {
    let mut input = std::io::stdin().lock();
    let mut gpu = GpuSlot::default();
    loop {
        let envelope = match isolate::read_request::<Request>(&mut input) {
            Ok(Some(e)) => e,
            Ok(None) => return 0,
            Err(message) => {
                eprintln!("gpuzzle __gpu-worker: {message}");
                return 2;
            }
        };
        let reply = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            handle_with(envelope.request, &mut gpu)
        }))
        .unwrap_or_else(|panic| {
            let message = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            Reply::Failed(Failure::Internal {
                message: format!("the GPU worker panicked: {message}"),
            })
        });
        // Device printf goes through C's stdio: out before the reply, so the parent gives it to
        // this request and not the next.
        flush_c_stdout();
        if let Err(message) = isolate::write_reply(&envelope.nonce, &reply) {
            eprintln!("gpuzzle __gpu-worker: {message}");
            return 2;
        }
        if matches!(
            reply,
            Reply::Failed(Failure::Driver { .. } | Failure::Internal { .. })
        ) {
            return 0;
        }
    }
}

/// Flush every C `FILE*` stream (the CUDA driver prints device printf output with C's stdio).
fn flush_c_stdout() {
    extern "C" {
        fn fflush(stream: *mut std::ffi::c_void) -> std::ffi::c_int;
    }
    // SAFETY: fflush(NULL) flushes all open output streams; it reads no memory of ours.
    unsafe {
        fflush(std::ptr::null_mut());
    }
}

/// The GPU a worker opened, kept for its next requests (opening a context takes a while).
#[derive(Default)]
pub struct GpuSlot(Option<Gpu>);

impl GpuSlot {
    fn get(&mut self) -> Result<&Gpu, Failure> {
        if self.0.is_none() {
            self.0 = Some(open_gpu()?);
        }
        self.0.as_ref().ok_or_else(|| Failure::Internal {
            message: "the GPU was not opened".into(),
        })
    }
}

/// Answer one request (in this process).
pub fn handle(request: Request) -> Reply {
    handle_with(request, &mut GpuSlot::default())
}

/// Answer one request with the GPU this worker may already have opened.
pub fn handle_with(request: Request, gpu: &mut GpuSlot) -> Reply {
    let r = match request {
        Request::Launch(l) => launch(l, gpu).map(|(r, how)| {
            let mut w = WireRun::from(&r);
            w.loaded_as = how;
            Reply::Launch(w)
        }),
        Request::Bench(b) => bench(b, gpu).map(|b| Reply::Bench(Box::new(b))),
    };
    r.unwrap_or_else(Reply::Failed)
}

fn args_of(wire: Vec<WireArg>) -> Vec<KernelArg> {
    wire.into_iter().map(KernelArg::from).collect()
}

fn open_gpu() -> Result<Gpu, Failure> {
    super::probe::probe().map_err(|message| Failure::Driver { message })?;
    Ok(Gpu::open(0)?)
}

/// One launch, and how its module reached the GPU (`None` on the emulator).
fn launch(req: LaunchRequest, gpu: &mut GpuSlot) -> Result<(RunResult, Option<LoadPath>), Failure> {
    let cfg = LaunchConfig::from(req.cfg);
    let args = args_of(req.args);
    let plan = Plan::new(&req.ptx, &req.kernel, &cfg, &args, req.step_budget)?;
    match req.target {
        Target::Emulator => {
            let run = super::via_emu::run_plan(&plan, args).map_err(|e| match e {
                super::via_emu::ViaEmuError::Emu(e) => Failure::from(e),
                other => Failure::Internal {
                    message: other.to_string(),
                },
            })?;
            Ok((run.result, None))
        }
        Target::Gpu => {
            let (r, how) = driver::run_plan(gpu.get()?, &plan, &args)?;
            Ok((r, Some(how)))
        }
    }
}

/// The PTX name of `kernel` (mangled when it is a C++ kernel), for loading the plain module.
fn entry_name(ptx: &str, kernel: &str) -> Result<String, Failure> {
    let module = crate::ptx::parse(ptx).map_err(|e| Failure::Internal {
        message: format!("the kernel's PTX does not parse: {e}"),
    })?;
    match module.lookup_entry(kernel) {
        Ok((_, f)) => Ok(f.name.clone()),
        Err(_) => Err(Failure::NoSuchKernel {
            name: kernel.into(),
            found: module
                .entries()
                .map(|f| f.display_name())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

fn bench(req: BenchRequest, gpu: &mut GpuSlot) -> Result<BenchReply, Failure> {
    let cfg = LaunchConfig::from(req.cfg);
    let args = args_of(req.args);
    let plan = Plan::new(&req.learner_ptx, &req.kernel, &cfg, &args, req.step_budget)?;
    let gpu = gpu.get()?;
    let (check, _) = driver::run_plan(gpu, &plan, &args)?;
    let timed = |ptx: &str| -> Result<TimedWire, Failure> {
        let name = entry_name(ptx, &req.kernel)?;
        let t = driver::time_kernel(gpu, ptx, &name, &cfg, &args, req.warmup, req.reps)?;
        Ok(TimedWire {
            times_ms: t.times_ms,
            buffers: t.buffers.iter().map(WireBuffer::from).collect(),
        })
    };
    // A kernel that faulted instrumented could kill the context uninstrumented: not timed.
    let learner = if check.has_errors() {
        None
    } else {
        Some(timed(&req.learner_ptx)?)
    };
    let reference = req.reference_ptx.as_deref().map(|ptx| {
        timed(ptx).map_err(|f| match f {
            Failure::Driver { message } | Failure::Internal { message } => message,
            other => format!("{other:?}"),
        })
    });
    Ok(BenchReply {
        specs: gpu.specs.clone(),
        check: WireRun::from(&check),
        learner,
        reference,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emu::value::{Buffer, ElemType, Scalar};

    const K: &str = r#"
.version 8.8
.target sm_80
.address_size 64
.visible .entry k(
	.param .u64 k_param_0,
	.param .u32 k_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<3>;
	.reg .b64 	%rd<4>;
	.loc	1 2 0
	ld.param.u64 	%rd1, [k_param_0];
	ld.param.u32 	%r1, [k_param_1];
	cvta.to.global.u64 	%rd2, %rd1;
	mov.u32 	%r2, %tid.x;
	mul.wide.u32 	%rd3, %r2, 4;
	add.s64 	%rd2, %rd2, %rd3;
	.loc	1 3 0
	st.global.u32 	[%rd2], %r1;
	ret;
}
	.file	1 "k.cu"
"#;

    fn request(threads: u32, target: Target) -> LaunchRequest {
        let args = [
            KernelArg::Buffer(Buffer::zeros("out", ElemType::U32, 4)),
            KernelArg::Scalar(Scalar::from_f64(ElemType::U32, 7.0)),
        ];
        LaunchRequest {
            target,
            ptx: K.into(),
            kernel: "k".into(),
            cfg: WireConfig {
                grid: [1, 1, 1],
                block: [threads, 1, 1],
                dynamic_shared: 0,
                cooperative: false,
            },
            args: args.iter().map(WireArg::from).collect(),
            step_budget: 1000,
        }
    }

    fn run(req: Request) -> Reply {
        // Through JSON both ways, as the pipe carries it.
        let req: Request = serde_json::from_str(&serde_json::to_string(&req).unwrap()).unwrap();
        let reply = handle(req);
        serde_json::from_str(&serde_json::to_string(&reply).unwrap()).unwrap()
    }

    #[test]
    fn the_emulator_target_answers_like_the_gpu_would() {
        let Reply::Launch(w) = run(Request::Launch(request(4, Target::Emulator))) else {
            panic!("not a launch reply")
        };
        let r = RunResult::try_from(w).unwrap();
        assert_eq!(r.buffers[0].values(), vec![7.0; 4]);
        assert_eq!(r.counters.total.global_writes, 4);
        assert!(r.diagnostics.is_empty());

        let Reply::Launch(w) = run(Request::Launch(request(6, Target::Emulator))) else {
            panic!("not a launch reply")
        };
        let r = RunResult::try_from(w).unwrap();
        assert_eq!(r.diagnostics.len(), 1);
        assert_eq!(r.diagnostics[0].kind.as_str(), "out-of-bounds");
        assert_eq!(r.diagnostics[0].line, Some(3));
        assert_eq!(r.diagnostics[0].file.as_deref(), Some("k.cu"));
    }

    #[test]
    fn refusals_come_back_as_failures() {
        let mut req = request(4, Target::Emulator);
        req.kernel = "nope".into();
        let Reply::Failed(f) = run(Request::Launch(req)) else {
            panic!("should fail")
        };
        assert_eq!(
            f,
            Failure::NoSuchKernel {
                name: "nope".into(),
                found: "k".into()
            }
        );
        let mut req = request(4, Target::Emulator);
        req.args.pop();
        assert!(matches!(
            run(Request::Launch(req)),
            Reply::Failed(Failure::Signature { .. })
        ));
    }

    #[test]
    fn the_gpu_target_without_a_gpu_says_why() {
        if super::super::probe::probe().is_ok() {
            eprintln!("skipped: a GPU is present (tests/gpu_backend.rs covers it)");
            return;
        }
        let Reply::Failed(Failure::Driver { message }) =
            run(Request::Launch(request(4, Target::Gpu)))
        else {
            panic!("should fail")
        };
        assert!(
            message.contains("driver") || message.contains("GPU"),
            "{message}"
        );
    }
}
