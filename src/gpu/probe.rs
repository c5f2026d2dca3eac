//! Is there a CUDA driver, and which GPUs does it see? Never panics.
//!
//! cudarc loads `libcuda` on first use and panics when it is missing (and
//! when a symbol is), so the library is checked for first with
//! `is_culib_present()`, and the driver calls run under `catch_unwind` as a
//! second guard. Only functions present in every CUDA 12 driver are called.

use cudarc::driver::{result, sys};

/// One GPU as the driver reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuInfo {
    pub name: String,
    /// e.g. (9, 0) for an H100.
    pub compute_capability: (i32, i32),
    /// The driver's CUDA version, e.g. (12, 9); the same for every GPU.
    pub driver_version: (i32, i32),
    pub memory_bytes: u64,
}

/// What [`probe`] says without a driver. cudarc's candidate names include Windows' `nvcuda.dll`,
/// which the driver installs.
#[cfg(windows)]
const NO_DRIVER: &str = "no CUDA driver (nvcuda.dll) found";
#[cfg(not(windows))]
const NO_DRIVER: &str = "no CUDA driver (libcuda.so.1) found";

/// The GPUs usable through the CUDA driver, at least one; `Err` says why
/// there are none ("no CUDA driver (libcuda.so.1) found", "... sees no GPU").
pub fn probe() -> Result<Vec<GpuInfo>, String> {
    // SAFETY: only dlopens cudarc's candidate names and closes them again.
    if !driver_soname_loads() || !unsafe { sys::is_culib_present() } {
        return Err(NO_DRIVER.to_string());
    }
    std::panic::catch_unwind(probe_driver).unwrap_or_else(|_| {
        Err("the CUDA driver library is present but unusable (a function is missing)".to_string())
    })
}

/// Every driver install provides `libcuda.so.1`. Asking the loader for that one name first
/// keeps a machine without a GPU from paying for cudarc's ~35 candidate names (2-4 ms on every
/// `gpuzzle run`, most of a warm run).
#[cfg(unix)]
fn driver_soname_loads() -> bool {
    // SAFETY: loading the CUDA driver runs its initialisers, which have no preconditions.
    unsafe { libloading::Library::new("libcuda.so.1") }.is_ok()
}

#[cfg(not(unix))]
fn driver_soname_loads() -> bool {
    true
}

fn probe_driver() -> Result<Vec<GpuInfo>, String> {
    let mut encoded = 0;
    // SAFETY: writes one int; allowed before cuInit.
    unsafe { sys::cuDriverGetVersion(&mut encoded) }
        .result()
        .map_err(|err| format!("the CUDA driver does not answer: {}", describe(err)))?;
    let driver_version = decode_version(encoded);
    let driver = format!("CUDA driver {}.{}", driver_version.0, driver_version.1);

    if let Err(err) = result::init() {
        return Err(if err.0 == sys::CUresult::CUDA_ERROR_NO_DEVICE {
            no_device(&driver, &describe(err))
        } else {
            format!("{driver} found, but it failed to start: {}", describe(err))
        });
    }
    let count = result::device::get_count()
        .map_err(|err| format!("{driver}: cannot count GPUs: {}", describe(err)))?;
    if count <= 0 {
        return Err(no_device(&driver, "0 devices"));
    }
    (0..count)
        .map(|ordinal| {
            device_info(ordinal, driver_version)
                .map_err(|err| format!("{driver}: GPU {ordinal}: {}", describe(err)))
        })
        .collect()
}

fn device_info(ordinal: i32, driver_version: (i32, i32)) -> Result<GpuInfo, result::DriverError> {
    use sys::CUdevice_attribute::{
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR as MAJOR,
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR as MINOR,
    };
    let device = result::device::get(ordinal)?;
    let name = result::device::get_name(device)?;
    // SAFETY: `device` came from cuDeviceGet after a successful cuInit.
    let (major, minor, memory) = unsafe {
        (
            result::device::get_attribute(device, MAJOR)?,
            result::device::get_attribute(device, MINOR)?,
            result::device::total_mem(device)?,
        )
    };
    Ok(GpuInfo {
        name,
        compute_capability: (major, minor),
        driver_version,
        memory_bytes: u64::try_from(memory).unwrap_or(u64::MAX),
    })
}

fn no_device(driver: &str, why: &str) -> String {
    let mut text = format!("{driver} found, but it sees no GPU ({why})");
    if let Some(visible) = std::env::var_os("CUDA_VISIBLE_DEVICES") {
        text.push_str(&format!(
            "; CUDA_VISIBLE_DEVICES={} may hide them",
            visible.to_string_lossy()
        ));
    }
    text
}

/// The driver encodes 12.9 as 12090.
fn decode_version(encoded: i32) -> (i32, i32) {
    (encoded / 1000, (encoded % 1000) / 10)
}

/// A driver error as its name and NVIDIA's text:
/// `CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)`.
pub(crate) fn describe(err: result::DriverError) -> String {
    let name = err
        .error_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", err.0));
    match err.error_string() {
        Ok(text) => format!("{name} ({})", text.to_string_lossy()),
        Err(_) => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_versions_decode() {
        assert_eq!(decode_version(12090), (12, 9));
        assert_eq!(decode_version(11080), (11, 8));
        assert_eq!(decode_version(13000), (13, 0));
    }

    #[test]
    fn probe_answers_without_panicking() {
        // SAFETY: only dlopens candidate names.
        let driver_present = unsafe { sys::is_culib_present() };
        let answer = probe();
        eprintln!("probe() = {answer:?}");
        if !driver_present {
            assert_eq!(answer, Err(NO_DRIVER.to_string()));
            return;
        }
        match answer {
            Ok(gpus) => {
                assert!(!gpus.is_empty());
                for gpu in gpus {
                    assert!(!gpu.name.is_empty(), "{gpu:?}");
                    assert!(gpu.compute_capability.0 >= 3, "{gpu:?}");
                    assert!(gpu.driver_version.0 >= 11, "{gpu:?}");
                    assert!(gpu.memory_bytes > 0, "{gpu:?}");
                }
            }
            Err(reason) => {
                // A driver without a usable GPU (container, stub library).
                assert!(
                    reason.starts_with("CUDA driver") || reason.contains("driver"),
                    "{reason}"
                );
            }
        }
        // Asking twice gives the same answer (and still no panic).
        assert_eq!(probe().is_ok(), probe().is_ok());
    }
}
