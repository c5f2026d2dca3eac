//! The CUDA driver calls: context, module loading, memory, launches and event timing.
//!
//! Only the GPU worker process (`worker`) calls into this module, after `probe` has found a
//! driver and a device, and always under `catch_unwind` (cudarc panics when a driver symbol is
//! missing). The raw `cudarc::driver::result` layer is used rather than the safe wrappers: gpuzzle
//! needs one context, one stream, byte-exact allocations at chosen offsets and hand-built
//! parameter arrays, and every call's error is turned into a sentence here.
//!
//! The pure pieces (PTX version lowering, the buffer arena's layout, peak figures) are unit
//! tested without a GPU; the rest is exercised by `tests/gpu_backend.rs` when a GPU is present.

use super::bench::DeviceSpecs;
use super::loader::{self, LoadPath};
use super::plan::Plan;
use super::probe::describe;
use super::spread::Spread;
use crate::emu::result::RunResult;
use crate::emu::value::{Buffer, KernelArg};
use crate::emu::LaunchConfig;
use cudarc::driver::{result, sys};
use std::ffi::{c_void, CString};

/// A driver call that failed, in words: `cuModuleLoadData: CUDA_ERROR_INVALID_PTX (...)`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DriverFailure(pub String);

fn fail(call: &str, err: result::DriverError) -> DriverFailure {
    DriverFailure(format!("{call}: {}", describe(err)))
}

/// The fallback placement's gap (`spread` is the rule): bytes left unused before and after
/// every buffer (16 MiB), so an overrun past one buffer lands in no table entry rather than in
/// the next buffer, where the instrumentation would allow it: `out[threadIdx.x * 320]` of a
/// 1024-thread block reaches 1.3 MB past `out`. Device memory is real, so without virtual
/// memory management the gap is not the emulator's 128 GiB (`emu::memory::STRIDE`): an index
/// past 4 million floats can then still reach the next buffer. Unwritten red zones cost no
/// copies.
pub const RED_ZONE: u64 = 16 << 20;
/// Buffers start at multiples of this (as cudaMalloc's would).
pub const BUFFER_ALIGN: u64 = 256;

/// Offsets of buffers of `lens` bytes in one arena, and the arena's size: a red zone, then each
/// buffer (aligned) followed by a red zone.
pub fn arena_layout(lens: &[u64]) -> (Vec<u64>, u64) {
    let mut offsets = Vec::with_capacity(lens.len());
    let mut next = RED_ZONE;
    for &len in lens {
        offsets.push(next);
        next = (next + len + RED_ZONE).div_ceil(BUFFER_ALIGN) * BUFFER_ALIGN;
    }
    (offsets, next.max(RED_ZONE))
}

/// The PTX ISA version a CUDA driver understands (from the CUDA release notes), or `None` when
/// this driver is newer than anything gpuzzle knows (then the PTX is loaded as it is).
pub fn ptx_isa_for_driver(driver: (i32, i32)) -> Option<(u32, u32)> {
    Some(match driver {
        (11, m @ 0..=8) => (7, m as u32),
        (12, m @ 0..=5) => (8, m as u32),
        (12, 6) | (12, 7) => (8, 5),
        (12, 8) => (8, 7),
        (12, 9) => (8, 8),
        // CUDA 13.x reads PTX ISA 9.x (13.0 → 9.0, ..., NVRTC 13.5 writes 9.5).
        (13, m @ 0..) => (9, m as u32),
        (major, _) if major < 11 => (6, 0),
        _ => return None,
    })
}

/// The `.version` of a PTX text.
pub fn ptx_version(ptx: &str) -> Option<(u32, u32)> {
    let line = ptx
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(".version"))?;
    let (major, minor) = line.trim_start_matches(".version").trim().split_once('.')?;
    Some((major.trim().parse().ok()?, minor.trim().parse().ok()?))
}

/// Replace the first line starting with `directive` by `replacement`.
fn replace_directive(ptx: &str, directive: &str, replacement: &str) -> Option<String> {
    let mut at = 0;
    for line in ptx.split_inclusive('\n') {
        if line.trim_start().starts_with(directive) {
            let end = at + line.trim_end_matches(['\n', '\r']).len();
            return Some(format!("{}{replacement}{}", &ptx[..at], &ptx[end..]));
        }
        at += line.len();
    }
    None
}

/// The module texts to try loading, in order, each with what was changed: as compiled; with
/// `.version` lowered to what the driver reads (NVRTC may be newer than the driver); and with
/// `.target` lowered to the GPU's own architecture when the GPU is older than the target.
pub fn load_candidates(ptx: &str, driver: (i32, i32), cc: (i32, i32)) -> Vec<(String, String)> {
    let mut out = vec![("as compiled".to_string(), ptx.to_string())];
    let mut text = ptx.to_string();
    if let (Some(have), Some(can)) = (ptx_version(ptx), ptx_isa_for_driver(driver)) {
        if have > can {
            if let Some(t) =
                replace_directive(&text, ".version", &format!(".version {}.{}", can.0, can.1))
            {
                text = t;
                out.push((
                    format!(
                        "with `.version {}.{}` lowered to {}.{} for CUDA driver {}.{}",
                        have.0, have.1, can.0, can.1, driver.0, driver.1
                    ),
                    text.clone(),
                ));
            }
        }
    }
    let target = ptx
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with(".target"))
        .and_then(|l| l.trim_start_matches(".target").trim().strip_prefix("sm_"))
        .and_then(|sm| sm.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|sm| sm.parse::<i32>().ok());
    let mine = cc.0 * 10 + cc.1;
    if let Some(t) = target {
        if mine < t {
            if let Some(lowered) =
                replace_directive(&text, ".target", &format!(".target sm_{mine}"))
            {
                out.push((
                    format!("with `.target sm_{t}` lowered to sm_{mine}, this GPU's architecture"),
                    lowered,
                ));
            }
        }
    }
    out
}

/// FP32 lanes per SM by architecture (for the peak FLOP/s estimate).
pub fn fp32_lanes_per_sm(cc: (i32, i32)) -> u32 {
    match cc {
        (8, 0) | (7, _) | (6, 0) => 64,
        (3, _) => 192,
        _ => 128,
    }
}

/// One device, its primary context made current on this thread.
pub struct Gpu {
    device: sys::CUdevice,
    pub specs: DeviceSpecs,
    driver: (i32, i32),
}

impl Gpu {
    /// Open GPU `ordinal` (call only after `probe` found it).
    pub fn open(ordinal: i32) -> Result<Gpu, DriverFailure> {
        result::init().map_err(|e| fail("cuInit", e))?;
        let device = result::device::get(ordinal).map_err(|e| fail("cuDeviceGet", e))?;
        // SAFETY: `device` came from cuDeviceGet; the context is released in Drop.
        let ctx = unsafe { result::primary_ctx::retain(device) }
            .map_err(|e| fail("cuDevicePrimaryCtxRetain", e))?;
        // SAFETY: a context just retained.
        unsafe { result::ctx::set_current(ctx) }.map_err(|e| fail("cuCtxSetCurrent", e))?;
        let mut encoded = 0;
        // SAFETY: writes one int.
        unsafe { sys::cuDriverGetVersion(&mut encoded) }
            .result()
            .map_err(|e| fail("cuDriverGetVersion", e))?;
        let driver = (encoded / 1000, (encoded % 1000) / 10);
        let specs = specs_of(device, driver).map_err(|e| fail("cuDeviceGetAttribute", e))?;
        Ok(Gpu {
            device,
            specs,
            driver,
        })
    }

    /// Load a module: as a CUBIN for this GPU's own architecture where ptxas is at hand
    /// (`loader`), else as PTX, retrying with the lowered `.version`/`.target` texts when the
    /// driver refuses it as compiled. Returns the module and how it was loaded. The error lists
    /// every attempt with the JIT's own log, and names the driver's and NVRTC's versions and
    /// the fixes when the driver refused the PTX's version.
    pub fn load(&self, ptx: &str) -> Result<(Module, LoadPath), DriverFailure> {
        let cache = crate::compile::CubinCache::default_place();
        let cc = self.specs.compute_capability;
        let why = match loader::cubin_for_device(ptx, cc, self.driver, &cache) {
            Ok((cubin, how)) => match load_image(&cubin.bytes) {
                Ok(m) => return Ok((Module(m), how)),
                // Not for this GPU after all, or a driver that cannot read it: the PTX then.
                Err((err, log)) => {
                    let log = log.trim();
                    format!(
                        "the driver refused the CUBIN for {}: {}{}{log}",
                        cubin.header.target(),
                        describe(err),
                        if log.is_empty() { "" } else { ": " }
                    )
                }
            },
            Err(why) => why,
        };
        let module = self.load_ptx(ptx, &why)?;
        Ok((module, LoadPath::Ptx { why }))
    }

    /// Load the PTX (and its lowered forms); `cubin_why`: why no CUBIN was loaded instead.
    fn load_ptx(&self, ptx: &str, cubin_why: &str) -> Result<Module, DriverFailure> {
        let cc = self.specs.compute_capability;
        let mut tried = Vec::new();
        let mut version_refused = false;
        for (what, text) in load_candidates(ptx, self.driver, cc) {
            let image = match CString::new(text) {
                Ok(c) => c,
                Err(_) => {
                    tried.push(format!("{what}: the PTX contains a NUL byte"));
                    break;
                }
            };
            match load_image(image.as_bytes_with_nul()) {
                Ok(m) => return Ok(Module(m)),
                Err((err, log)) => {
                    let log = log.trim();
                    version_refused |= err.0 == sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
                        || is_version_complaint(log);
                    tried.push(if log.is_empty() {
                        format!("{what}: {}", describe(err))
                    } else {
                        format!("{what}: {}: {log}", describe(err))
                    });
                    let retry = matches!(
                        err.0,
                        sys::CUresult::CUDA_ERROR_UNSUPPORTED_PTX_VERSION
                            | sys::CUresult::CUDA_ERROR_INVALID_PTX
                            | sys::CUresult::CUDA_ERROR_NO_BINARY_FOR_GPU
                            | sys::CUresult::CUDA_ERROR_INVALID_IMAGE
                    );
                    if !retry {
                        break;
                    }
                }
            }
        }
        if version_refused {
            let nvrtc = loader::nvrtc_of_ptx(ptx).or_else(crate::compile::nvrtc_version);
            return Err(DriverFailure(format!(
                "{} (on {}, compute capability {}.{}; tried {})",
                loader::driver_too_old(self.driver, nvrtc, ptx_version(ptx), cubin_why),
                self.specs.name,
                cc.0,
                cc.1,
                tried.join("; ")
            )));
        }
        Err(DriverFailure(format!(
            "the CUDA driver {}.{} could not load the kernel's PTX on {} (compute capability {}.{}); tried {}; CUBIN was not used: {cubin_why}. Run it on the emulator with --backend emu, or update the driver",
            self.driver.0,
            self.driver.1,
            self.specs.name,
            cc.0,
            cc.1,
            tried.join("; ")
        )))
    }

    fn alloc(&self, bytes: u64) -> Result<DeviceMem, DriverFailure> {
        let n = usize::try_from(bytes.max(1))
            .map_err(|_| DriverFailure(format!("{bytes} bytes do not fit in memory")))?;
        // SAFETY: a plain allocation in the current context; freed in Drop.
        let ptr = unsafe { result::malloc_sync(n) }
            .map_err(|e| fail(&format!("cuMemAlloc of {bytes} bytes"), e))?;
        Ok(DeviceMem { ptr, bytes: n })
    }
}

impl Drop for Gpu {
    fn drop(&mut self) {
        // SAFETY: the device whose primary context `open` retained.
        let _ = unsafe { result::primary_ctx::release(self.device) };
    }
}

fn specs_of(device: sys::CUdevice, driver: (i32, i32)) -> Result<DeviceSpecs, result::DriverError> {
    use sys::CUdevice_attribute as A;
    // SAFETY: `device` came from cuDeviceGet after cuInit.
    let get = |a| unsafe { result::device::get_attribute(device, a) };
    let cc = (
        get(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
        get(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
    );
    // Clock attributes are deprecated in recent drivers; a failure only loses the peak figures.
    let opt = |a| get(a).ok().filter(|&v| v > 0).map(|v| v as u64);
    Ok(DeviceSpecs {
        name: result::device::get_name(device)?,
        compute_capability: cc,
        driver_version: driver,
        sm_count: opt(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT).unwrap_or(0),
        sm_clock_khz: opt(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE),
        memory_clock_khz: opt(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
        memory_bus_bits: opt(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH),
        fp32_lanes_per_sm: fp32_lanes_per_sm(cc),
    })
}

/// Whether a JIT log complains about the PTX's version (`Unsupported .version 8.8; current
/// version is '8.4'`).
pub fn is_version_complaint(log: &str) -> bool {
    let log = log.to_ascii_lowercase();
    log.contains("unsupported .version") || log.contains("ptx version")
}

/// cuModuleLoadDataEx of an image (NUL-terminated PTX, or a CUBIN) with the JIT's error log
/// captured.
fn load_image(image: &[u8]) -> Result<sys::CUmodule, (result::DriverError, String)> {
    let mut log = vec![0u8; 8192];
    let mut options = [
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    let mut values = [log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
    let mut module = std::mem::MaybeUninit::uninit();
    // SAFETY: an image the driver reads whole (a NUL-terminated PTX text, or an ELF whose
    // header gives its size, checked by `compile::cubin_header`), and option values as the
    // driver API documents them (a buffer pointer, and its size passed as a pointer-sized
    // integer).
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            module.as_mut_ptr(),
            image.as_ptr() as *const c_void,
            options.len() as u32,
            options.as_mut_ptr(),
            values.as_mut_ptr(),
        )
    };
    match r.result() {
        // SAFETY: written by a successful cuModuleLoadDataEx.
        Ok(()) => Ok(unsafe { module.assume_init() }),
        Err(e) => {
            let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
            Err((e, String::from_utf8_lossy(&log[..end]).into_owned()))
        }
    }
}

/// A loaded module, unloaded on drop.
pub struct Module(sys::CUmodule);

impl Module {
    fn function(&self, name: &str) -> Result<sys::CUfunction, DriverFailure> {
        let c =
            CString::new(name).map_err(|_| DriverFailure(format!("bad kernel name `{name}`")))?;
        // SAFETY: a module loaded and not yet unloaded.
        unsafe { result::module::get_function(self.0, c) }
            .map_err(|e| fail(&format!("cuModuleGetFunction({name})"), e))
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        // SAFETY: loaded by `Gpu::load`, unloaded once.
        let _ = unsafe { result::module::unload(self.0) };
    }
}

/// Device memory, freed on drop.
struct DeviceMem {
    ptr: sys::CUdeviceptr,
    bytes: usize,
}

impl DeviceMem {
    fn write(&self, offset: u64, data: &[u8]) -> Result<(), DriverFailure> {
        copy_to_device(self.ptr + offset, data)
    }

    fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>, DriverFailure> {
        copy_from_device(self.ptr + offset, len)
    }

    fn zero(&self) -> Result<(), DriverFailure> {
        // SAFETY: the whole allocation.
        unsafe { result::memset_d8_sync(self.ptr, 0, self.bytes) }
            .map_err(|e| fail("cuMemsetD8", e))
    }
}

impl Drop for DeviceMem {
    fn drop(&mut self) {
        // SAFETY: allocated by `Gpu::alloc`, freed once.
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

/// Where a launch's buffers live: far apart in a reserved address range (`spread`), or, where
/// the driver cannot reserve one, in one arena with red zones.
/// Held only for its `Drop`, which frees the memory.
enum Placement {
    Spread { _memory: Spread },
    Arena { _memory: DeviceMem },
}

/// The buffers of one launch, their device addresses, and the kernel parameter values.
struct Launchable {
    /// Owns the device memory behind `addresses`.
    _placement: Placement,
    addresses: Vec<u64>,
    buffers: Vec<Buffer>,
    /// One 8-byte-aligned slot per parameter, holding its bytes (pointers, scalars, structs).
    params: Vec<Vec<u64>>,
}

impl Launchable {
    fn new(gpu: &Gpu, args: &[KernelArg]) -> Result<Launchable, DriverFailure> {
        let buffers: Vec<Buffer> = args
            .iter()
            .filter_map(|a| match a {
                KernelArg::Buffer(b) => Some(b.clone()),
                _ => None,
            })
            .collect();
        let lens: Vec<u64> = buffers.iter().map(|b| b.data.len() as u64).collect();
        let (placement, addresses) = match Spread::new(gpu.device, &lens) {
            Ok(spread) => {
                let addresses = spread.addresses();
                (Placement::Spread { _memory: spread }, addresses)
            }
            Err(_) => {
                // No virtual memory management here: the 16 MiB red zones of one arena.
                let (offsets, total) = arena_layout(&lens);
                let arena = gpu.alloc(total)?;
                arena.zero()?;
                let addresses = offsets.iter().map(|o| arena.ptr + o).collect();
                (Placement::Arena { _memory: arena }, addresses)
            }
        };
        for (b, &addr) in buffers.iter().zip(&addresses) {
            copy_to_device(addr, &b.data)?;
        }
        let mut params = Vec::with_capacity(args.len() + 1);
        let mut bi = 0;
        for a in args {
            let bytes: Vec<u8> = match a {
                KernelArg::Buffer(_) => {
                    let addr = addresses[bi];
                    bi += 1;
                    addr.to_le_bytes().to_vec()
                }
                KernelArg::Scalar(s) => s.bits.to_le_bytes().to_vec(),
                KernelArg::Struct { bytes, .. } => bytes.clone(),
            };
            params.push(words(&bytes));
        }
        Ok(Launchable {
            _placement: placement,
            addresses,
            buffers,
            params,
        })
    }

    fn addresses(&self) -> Vec<u64> {
        self.addresses.clone()
    }

    /// The buffers with their contents read back from the device.
    fn read_back(&self) -> Result<Vec<Buffer>, DriverFailure> {
        self.buffers
            .iter()
            .zip(&self.addresses)
            .map(|(b, &addr)| {
                Ok(Buffer {
                    name: b.name.clone(),
                    ty: b.ty,
                    data: copy_from_device(addr, b.data.len())?,
                })
            })
            .collect()
    }
}

/// Copy `data` to device address `addr` (a buffer's start; its backing holds `data.len()`).
fn copy_to_device(addr: sys::CUdeviceptr, data: &[u8]) -> Result<(), DriverFailure> {
    if data.is_empty() {
        return Ok(());
    }
    // SAFETY: `addr..addr + len` lies inside one allocation or mapped piece (arena_layout /
    // spread_layout / exact sizes).
    unsafe { result::memcpy_htod_sync(addr, data) }.map_err(|e| fail("cuMemcpyHtoD", e))
}

/// Read `len` bytes from device address `addr` (as `copy_to_device`).
fn copy_from_device(addr: sys::CUdeviceptr, len: usize) -> Result<Vec<u8>, DriverFailure> {
    let mut out = vec![0u8; len];
    if len > 0 {
        // SAFETY: as in `copy_to_device`.
        unsafe { result::memcpy_dtoh_sync(&mut out, addr) }.map_err(|e| fail("cuMemcpyDtoH", e))?;
    }
    Ok(out)
}

fn words(bytes: &[u8]) -> Vec<u64> {
    let mut w = vec![0u64; bytes.len().div_ceil(8).max(1)];
    for (i, b) in bytes.iter().enumerate() {
        w[i / 8] |= (*b as u64) << (8 * (i % 8));
    }
    w
}

/// Launch `f` on the null stream with `params` (one slot per parameter).
fn launch(
    f: sys::CUfunction,
    cfg: &LaunchConfig,
    params: &mut [Vec<u64>],
) -> Result<(), DriverFailure> {
    if cfg.dynamic_shared > 48 * 1024 {
        // SAFETY: a function of a loaded module.
        unsafe {
            result::function::set_function_attribute(
                f,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                cfg.dynamic_shared as i32,
            )
        }
        .map_err(|e| fail("cuFuncSetAttribute(max dynamic shared)", e))?;
    }
    let mut ptrs: Vec<*mut c_void> = params
        .iter_mut()
        .map(|p| p.as_mut_ptr() as *mut c_void)
        .collect();
    let g = cfg.grid;
    let b = cfg.block;
    if cfg.cooperative {
        check_co_resident(f, cfg)?;
    }
    // SAFETY: one pointer per kernel parameter, each to at least as many bytes as the
    // parameter (checked against the PTX signature by `plan::check_args`), alive until the
    // launch has been synchronized (the caller synchronizes before `params` is dropped).
    unsafe {
        if cfg.cooperative {
            result::launch_cooperative_kernel(
                f,
                (g[0], g[1], g[2]),
                (b[0], b[1], b[2]),
                cfg.dynamic_shared,
                result::stream::null(),
                &mut ptrs,
            )
        } else {
            result::launch_kernel(
                f,
                (g[0], g[1], g[2]),
                (b[0], b[1], b[2]),
                cfg.dynamic_shared,
                result::stream::null(),
                &mut ptrs,
            )
        }
    }
    .map_err(|e| {
        let hint = if e.0 == sys::CUresult::CUDA_ERROR_INVALID_VALUE {
            " (is the grid, the block or the shared memory larger than this GPU allows?)"
        } else {
            ""
        };
        DriverFailure(format!("cuLaunchKernel: {}{hint}", describe(e)))
    })
}

/// A cooperative launch needs every block resident at once: this device's SMs times the
/// blocks of `f` one SM holds (its occupancy at this block size and shared memory). A larger
/// grid is refused with that limit named, as `cudaLaunchCooperativeKernel` would refuse it.
fn check_co_resident(f: sys::CUfunction, cfg: &LaunchConfig) -> Result<(), DriverFailure> {
    let threads = cfg.block.iter().product::<u32>() as i32;
    // SAFETY: a function of a loaded module, in the current context.
    let per_sm = unsafe {
        result::occupancy::max_active_block_per_multiprocessor(
            f,
            threads,
            cfg.dynamic_shared as usize,
        )
    }
    .map_err(|e| fail("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?;
    let mut dev: sys::CUdevice = 0;
    // SAFETY: writes the current context's device into `dev`.
    unsafe { sys::cuCtxGetDevice(&mut dev).result() }.map_err(|e| fail("cuCtxGetDevice", e))?;
    // SAFETY: the current context's device.
    let sms = unsafe {
        result::device::get_attribute(
            dev,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
    }
    .map_err(|e| fail("cuDeviceGetAttribute(SM count)", e))?;
    let blocks: u64 = cfg.grid.iter().map(|&d| d as u64).product();
    let resident = per_sm.max(0) as u64 * sms.max(0) as u64;
    if blocks > resident {
        return Err(DriverFailure(format!(
            "a cooperative launch needs every block resident at once: this GPU holds {resident} blocks of this kernel ({sms} SMs x {per_sm} per SM at {threads} threads and {} bytes of dynamic shared memory), and the grid has {blocks}",
            cfg.dynamic_shared
        )));
    }
    Ok(())
}

fn synchronize() -> Result<(), DriverFailure> {
    result::ctx::synchronize().map_err(|e| {
        DriverFailure(format!(
            "the kernel failed on the GPU: {} (the instrumentation should have caught this; please report it, and use --backend emu meanwhile)",
            describe(e)
        ))
    })
}

/// Run an instrumented plan on the GPU: the GPU side of `via_emu::run_plan`. Fails as the
/// emulator does when a thread reached an instruction gpuzzle does not support.
pub fn run_plan(
    gpu: &Gpu,
    plan: &Plan,
    args: &[KernelArg],
) -> Result<(RunResult, LoadPath), super::worker::Failure> {
    let (module, how) = gpu.load(&plan.inst.ptx)?;
    let f = module.function(&plan.inst.entry)?;
    let mut l = Launchable::new(gpu, args)?;
    let ctl = gpu.alloc(plan.ctl_size() as u64)?;
    ctl.write(0, &plan.ctl_bytes(&l.addresses()))?;
    l.params.push(vec![ctl.ptr]);
    launch(f, &plan.cfg, &mut l.params)?;
    synchronize()?;
    let buffers = l.read_back()?;
    let block = ctl.read(0, plan.ctl_size())?;
    let state = plan
        .decode(&block)
        .map_err(|e| DriverFailure(format!("{e} (a gpuzzle bug)")))?;
    // Device printf goes to this process's stdout; the parent collects it.
    Ok((plan.result(&state, buffers, String::new())?, how))
}

/// What timing one kernel gave.
pub struct Timed {
    /// Milliseconds per launch, one per timed repetition.
    pub times_ms: Vec<f64>,
    /// The buffers after the first launch (on the original inputs).
    pub buffers: Vec<Buffer>,
}

/// Time `kernel` of the plain (uninstrumented) `ptx` with CUDA events: one launch on the inputs
/// (whose results are returned), `warmup` more, then `reps` launches timed one by one.
pub fn time_kernel(
    gpu: &Gpu,
    ptx: &str,
    kernel: &str,
    cfg: &LaunchConfig,
    args: &[KernelArg],
    warmup: u32,
    reps: u32,
) -> Result<Timed, DriverFailure> {
    let (module, _) = gpu.load(ptx)?;
    let f = module.function(kernel)?;
    let mut l = Launchable::new(gpu, args)?;
    launch(f, cfg, &mut l.params)?;
    synchronize()?;
    let buffers = l.read_back()?;
    for _ in 0..warmup {
        launch(f, cfg, &mut l.params)?;
    }
    synchronize()?;
    let start = Event::new()?;
    let end = Event::new()?;
    let mut times_ms = Vec::with_capacity(reps as usize);
    for _ in 0..reps.max(1) {
        start.record()?;
        launch(f, cfg, &mut l.params)?;
        end.record()?;
        end.synchronize()?;
        times_ms.push(start.elapsed_ms(&end)?);
    }
    synchronize()?;
    Ok(Timed { times_ms, buffers })
}

struct Event(sys::CUevent);

impl Event {
    fn new() -> Result<Event, DriverFailure> {
        result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
            .map(Event)
            .map_err(|e| fail("cuEventCreate", e))
    }

    fn record(&self) -> Result<(), DriverFailure> {
        // SAFETY: a live event, the null stream.
        unsafe { result::event::record(self.0, result::stream::null()) }
            .map_err(|e| fail("cuEventRecord", e))
    }

    fn synchronize(&self) -> Result<(), DriverFailure> {
        // SAFETY: a live event.
        unsafe { result::event::synchronize(self.0) }
            .map_err(|e| DriverFailure(format!("the kernel failed on the GPU: {}", describe(e))))
    }

    fn elapsed_ms(&self, end: &Event) -> Result<f64, DriverFailure> {
        // SAFETY: two live events recorded on the same stream, both complete.
        unsafe { result::event::elapsed(self.0, end.0) }
            .map(f64::from)
            .map_err(|e| fail("cuEventElapsedTime", e))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        // SAFETY: created by `Event::new`, destroyed once.
        let _ = unsafe { result::event::destroy(self.0) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arena_keeps_a_red_zone_around_every_buffer() {
        let (off, total) = arena_layout(&[4, 1000, 0, 8]);
        assert_eq!(off[0], RED_ZONE);
        for w in off.windows(2) {
            assert_eq!(w[0] % BUFFER_ALIGN, 0);
            assert!(w[1] >= w[0] + RED_ZONE, "{off:?}");
        }
        assert!(off[1] >= off[0] + 4 + RED_ZONE);
        assert!(off[2] >= off[1] + 1000 + RED_ZONE);
        assert!(total >= off[3] + 8 + RED_ZONE);
        assert_eq!(arena_layout(&[]), (vec![], RED_ZONE));
    }

    #[test]
    fn driver_versions_map_to_ptx_isa_versions() {
        assert_eq!(ptx_isa_for_driver((12, 9)), Some((8, 8)));
        assert_eq!(ptx_isa_for_driver((12, 4)), Some((8, 4)));
        assert_eq!(ptx_isa_for_driver((12, 6)), Some((8, 5)));
        assert_eq!(ptx_isa_for_driver((11, 8)), Some((7, 8)));
        assert_eq!(ptx_isa_for_driver((13, 0)), Some((9, 0)));
        assert_eq!(ptx_isa_for_driver((13, 2)), Some((9, 2)));
        assert_eq!(ptx_isa_for_driver((14, 2)), None);
    }

    const PTX: &str = "//\n// Generated by NVIDIA NVVM Compiler\n.version 8.8\n.target sm_80\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n";

    #[test]
    fn an_older_driver_gets_a_lower_version_and_an_older_gpu_a_lower_target() {
        assert_eq!(ptx_version(PTX), Some((8, 8)));
        let c = load_candidates(PTX, (12, 9), (9, 0));
        assert_eq!(c.len(), 1);
        assert_eq!(c[0].1, PTX);

        let c = load_candidates(PTX, (12, 4), (9, 0));
        assert_eq!(c.len(), 2);
        assert!(c[1].0.contains("lowered to 8.4"), "{}", c[1].0);
        assert_eq!(ptx_version(&c[1].1), Some((8, 4)));
        assert_eq!(c[1].1, PTX.replace(".version 8.8", ".version 8.4"));

        let c = load_candidates(PTX, (12, 2), (7, 5));
        assert_eq!(c.len(), 3);
        assert!(
            c[2].1.contains(".version 8.2\n.target sm_75\n"),
            "{}",
            c[2].1
        );
        assert!(c[2].0.contains("sm_75"));
    }

    /// PTX from NVRTC 13.5 (`tests/ptx/nvrtc13/`, made by its `make.py`): `.version 9.5`.
    fn nvrtc13_fixtures() -> Vec<(String, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ptx/nvrtc13");
        let mut v: Vec<(String, String)> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "ptx"))
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, std::fs::read_to_string(&p).unwrap())
            })
            .collect();
        v.sort();
        assert!(v.len() >= 5, "{v:?}");
        v
    }

    #[test]
    fn nvrtc_13_ptx_is_lowered_for_every_older_driver_and_loaded_as_is_by_its_own() {
        for (name, ptx) in nvrtc13_fixtures() {
            assert_eq!(ptx_version(&ptx), Some((9, 5)), "{name}");
            // A CUDA 13.5 driver (or newer) reads it as compiled.
            for driver in [(13, 5), (13, 7), (14, 0)] {
                assert_eq!(
                    load_candidates(&ptx, driver, (9, 0)).len(),
                    1,
                    "{name} {driver:?}"
                );
            }
            // CUDA 12.9 and 13.0 drivers (the 575 and 580 series) get 8.8 and 9.0; nothing else
            // in the text changes, and gpuzzle's own parser still reads it.
            for (driver, want) in [((12, 9), "8.8"), ((13, 0), "9.0"), ((12, 4), "8.4")] {
                let c = load_candidates(&ptx, driver, (9, 0));
                assert_eq!(c.len(), 2, "{name} {driver:?}");
                assert!(
                    c[1].0
                        .contains(&format!("`.version 9.5` lowered to {want}")),
                    "{}",
                    c[1].0
                );
                assert_eq!(
                    c[1].1,
                    ptx.replacen(".version 9.5", &format!(".version {want}"), 1)
                );
                crate::ptx::parse(&c[1].1).unwrap_or_else(|e| panic!("{name}: {e}"));
            }
            // A Turing GPU under a 13.0 driver: version and target both lowered.
            let c = load_candidates(&ptx, (13, 0), (7, 5));
            assert_eq!(c.len(), 3, "{name}");
            assert!(c[2].1.contains(".version 9.0\n.target sm_75\n"), "{name}");
        }
    }

    #[test]
    fn a_jit_log_about_the_ptx_version_is_recognised() {
        // What an older driver's JIT writes for PTX newer than it reads.
        let log = "ptxas application ptx input, line 5; fatal   : Unsupported .version 8.8; current version is '8.4'";
        assert!(is_version_complaint(log));
        assert!(!is_version_complaint(
            "ptxas application ptx input, line 40; error   : Illegal operand type to instruction 'add'"
        ));
        assert!(!is_version_complaint(""));
    }

    #[test]
    fn fp32_lanes_follow_the_architecture() {
        assert_eq!(fp32_lanes_per_sm((8, 0)), 64);
        assert_eq!(fp32_lanes_per_sm((8, 6)), 128);
        assert_eq!(fp32_lanes_per_sm((9, 0)), 128);
        assert_eq!(fp32_lanes_per_sm((7, 0)), 64);
    }

    #[test]
    fn parameter_bytes_are_packed_little_endian_in_aligned_words() {
        assert_eq!(words(&[1, 0, 0, 0]), vec![1]);
        assert_eq!(words(&[]), vec![0]);
        let w = words(&[0xff; 12]);
        assert_eq!(w, vec![u64::MAX, 0xffff_ffff]);
    }
}
