//! One loaded libnvrtc and the handful of its functions gpuzzle calls.
//!
//! The library is opened by absolute path with `RTLD_NOW | RTLD_GLOBAL` and
//! then lives in a static for the rest of the process. gpuzzle calls NVRTC
//! through function pointers taken from *this* handle rather than through
//! `cudarc::nvrtc::sys`: cudarc loads by bare name and tries `libnvrtc.so`
//! before `libnvrtc.so.12`, so on a machine with a second NVRTC on the loader's
//! path it could silently use a different library than the one found (and
//! reported by `gpuzzle doctor`), and it panics when none loads. Because the
//! handle is global and its SONAME is `libnvrtc.so.12`, cudarc's own load of
//! that name resolves to this same copy for any code that still uses it.
//!
//! NVRTC finds `libnvrtc-builtins.so.12.x` itself: libnvrtc's RUNPATH is
//! `$ORIGIN`, so the builtins beside it are found whatever path it was
//! loaded from.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::path::{Path, PathBuf};

type NvrtcProgram = *mut c_void;
/// `nvrtcResult` is an enum in C; read it as a plain int so that a code this
/// build does not know about is a number, not undefined behaviour.
type NvrtcResult = c_int;

const NVRTC_SUCCESS: NvrtcResult = 0;
const NVRTC_ERROR_COMPILATION: NvrtcResult = 6;

type VersionFn = unsafe extern "C" fn(*mut c_int, *mut c_int) -> NvrtcResult;
type CreateFn = unsafe extern "C" fn(
    *mut NvrtcProgram,
    *const c_char,
    *const c_char,
    c_int,
    *const *const c_char,
    *const *const c_char,
) -> NvrtcResult;
type CompileFn = unsafe extern "C" fn(NvrtcProgram, c_int, *const *const c_char) -> NvrtcResult;
type DestroyFn = unsafe extern "C" fn(*mut NvrtcProgram) -> NvrtcResult;
type SizeFn = unsafe extern "C" fn(NvrtcProgram, *mut usize) -> NvrtcResult;
type TextFn = unsafe extern "C" fn(NvrtcProgram, *mut c_char) -> NvrtcResult;
type ErrorStringFn = unsafe extern "C" fn(NvrtcResult) -> *const c_char;

/// A loaded libnvrtc. Keep it alive as long as any of its pointers are used:
/// gpuzzle stores the one it uses in a static, so it is never unloaded.
pub(crate) struct NvrtcLibrary {
    path: PathBuf,
    version: (i32, i32),
    version_fn: VersionFn,
    create: CreateFn,
    compile: CompileFn,
    destroy: DestroyFn,
    ptx_size: SizeFn,
    ptx: TextFn,
    log_size: SizeFn,
    log: TextFn,
    error_string: ErrorStringFn,
    _library: libloading::Library,
}

/// What one call of `nvrtcCompileProgram` produced.
pub(crate) struct RawCompile {
    /// `None` when NVRTC reported errors in the source.
    pub ptx: Option<String>,
    pub log: String,
}

/// Where to load a library from: a file, or a bare name for the dynamic
/// loader's own search (LD_LIBRARY_PATH, ld.so.cache, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LibrarySpec {
    File(PathBuf),
    LoaderName(&'static str),
}

impl NvrtcLibrary {
    /// Opens `spec`, resolves every function gpuzzle needs and asks NVRTC
    /// its version. The error is a short reason for the "looked in" list.
    pub(crate) fn open(spec: &LibrarySpec) -> Result<Self, String> {
        let library = open_global(spec)?;
        // SAFETY: the types match NVRTC's documented C signatures, and each
        // pointer is only used while `_library` (stored alongside) is alive.
        unsafe {
            let version_fn: VersionFn = symbol(&library, b"nvrtcVersion\0")?;
            let path = match spec {
                LibrarySpec::File(path) => path.clone(),
                LibrarySpec::LoaderName(name) => {
                    loaded_from(version_fn as *const c_void).unwrap_or_else(|| PathBuf::from(name))
                }
            };
            let mut this = NvrtcLibrary {
                path,
                version: (0, 0),
                version_fn,
                create: symbol(&library, b"nvrtcCreateProgram\0")?,
                compile: symbol(&library, b"nvrtcCompileProgram\0")?,
                destroy: symbol(&library, b"nvrtcDestroyProgram\0")?,
                ptx_size: symbol(&library, b"nvrtcGetPTXSize\0")?,
                ptx: symbol(&library, b"nvrtcGetPTX\0")?,
                log_size: symbol(&library, b"nvrtcGetProgramLogSize\0")?,
                log: symbol(&library, b"nvrtcGetProgramLog\0")?,
                error_string: symbol(&library, b"nvrtcGetErrorString\0")?,
                _library: library,
            };
            let (mut major, mut minor) = (0, 0);
            let result = (this.version_fn)(&mut major, &mut minor);
            if result != NVRTC_SUCCESS {
                return Err(format!("nvrtcVersion failed: {}", this.error_name(result)));
            }
            this.version = (major, minor);
            Ok(this)
        }
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn version(&self) -> (i32, i32) {
        self.version
    }

    /// Compiles one translation unit. `headers` are (include name, text)
    /// pairs NVRTC serves for `#include <name>` without touching the disk
    /// (gpuzzle's stand-ins for host headers). `Err` is for failures of NVRTC
    /// itself (bad option, out of memory); errors in the source come back as
    /// `RawCompile { ptx: None, log }`.
    pub(crate) fn compile(
        &self,
        name: &CStr,
        source: &CStr,
        headers: &[(CString, CString)],
        options: &[CString],
    ) -> Result<RawCompile, String> {
        let option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        let option_count = c_int::try_from(option_ptrs.len())
            .map_err(|_| format!("too many options ({})", option_ptrs.len()))?;
        let header_texts: Vec<*const c_char> = headers.iter().map(|(_, t)| t.as_ptr()).collect();
        let header_names: Vec<*const c_char> = headers.iter().map(|(n, _)| n.as_ptr()).collect();
        let header_count = c_int::try_from(headers.len())
            .map_err(|_| format!("too many headers ({})", headers.len()))?;
        let mut program: NvrtcProgram = std::ptr::null_mut();
        // SAFETY: all pointers are valid NUL-terminated strings that outlive
        // the program; the program is used by this thread only and destroyed
        // by the guard on every path. NVRTC allows concurrent calls on
        // different programs.
        unsafe {
            let result = (self.create)(
                &mut program,
                source.as_ptr(),
                name.as_ptr(),
                header_count,
                header_texts.as_ptr(),
                header_names.as_ptr(),
            );
            if result != NVRTC_SUCCESS {
                return Err(format!("nvrtcCreateProgram: {}", self.error_name(result)));
            }
            let program = ProgramGuard {
                library: self,
                program,
            };
            let result = (self.compile)(program.program, option_count, option_ptrs.as_ptr());
            let log = self.text(program.program, self.log_size, self.log, "log")?;
            match result {
                NVRTC_SUCCESS => {
                    let ptx = self.text(program.program, self.ptx_size, self.ptx, "PTX")?;
                    Ok(RawCompile {
                        ptx: Some(ptx),
                        log,
                    })
                }
                NVRTC_ERROR_COMPILATION => Ok(RawCompile { ptx: None, log }),
                other => {
                    let mut reason = self.error_name(other);
                    let log = log.trim();
                    if !log.is_empty() {
                        reason.push_str(": ");
                        reason.push_str(log);
                    }
                    Err(reason)
                }
            }
        }
    }

    /// Reads the log or the PTX of a program (size query, then copy).
    ///
    /// # Safety
    /// `program` must be a live program of this library.
    unsafe fn text(
        &self,
        program: NvrtcProgram,
        size_fn: SizeFn,
        text_fn: TextFn,
        what: &str,
    ) -> Result<String, String> {
        let mut size = 0usize;
        let result = size_fn(program, &mut size);
        if result != NVRTC_SUCCESS {
            return Err(format!(
                "reading the {what} size: {}",
                self.error_name(result)
            ));
        }
        // NVRTC's size includes the terminating NUL; never hand it a 0-byte buffer.
        let mut buffer = vec![0u8; size.max(1)];
        let result = text_fn(program, buffer.as_mut_ptr().cast());
        if result != NVRTC_SUCCESS {
            return Err(format!("reading the {what}: {}", self.error_name(result)));
        }
        let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
        buffer.truncate(end);
        Ok(match String::from_utf8(buffer) {
            Ok(text) => text,
            Err(err) => String::from_utf8_lossy(err.as_bytes()).into_owned(),
        })
    }

    /// NVRTC's name for a result code, e.g. `NVRTC_ERROR_INVALID_OPTION`.
    fn error_name(&self, result: NvrtcResult) -> String {
        // SAFETY: nvrtcGetErrorString returns a static string (or NULL).
        let name = unsafe { (self.error_string)(result) };
        if name.is_null() {
            return format!("NVRTC error {result}");
        }
        // SAFETY: non-null, NUL-terminated, static.
        unsafe { CStr::from_ptr(name) }
            .to_string_lossy()
            .into_owned()
    }
}

/// Destroys an NVRTC program when dropped, whatever path the compile took.
struct ProgramGuard<'a> {
    library: &'a NvrtcLibrary,
    program: NvrtcProgram,
}

impl Drop for ProgramGuard<'_> {
    fn drop(&mut self) {
        // SAFETY: created by nvrtcCreateProgram, destroyed exactly once here.
        // A failure to free leaks a little memory; there is nothing to do.
        unsafe {
            (self.library.destroy)(&mut self.program);
        }
    }
}

/// # Safety
/// `T` must be the function's true type.
unsafe fn symbol<T: Copy>(library: &libloading::Library, name: &[u8]) -> Result<T, String> {
    match library.get::<T>(name) {
        Ok(symbol) => Ok(*symbol),
        Err(err) => {
            let shown = String::from_utf8_lossy(name.strip_suffix(b"\0").unwrap_or(name));
            Err(format!("not a usable libnvrtc (no {shown}: {err})"))
        }
    }
}

/// Opens a library so that its symbols are global and bound now; a later
/// `dlopen("libnvrtc.so.12")` anywhere in the process then finds this copy.
#[cfg(unix)]
fn open_global(spec: &LibrarySpec) -> Result<libloading::Library, String> {
    use libloading::os::unix::{Library, RTLD_GLOBAL, RTLD_NOW};
    let target: &std::ffi::OsStr = match spec {
        LibrarySpec::File(path) => path.as_os_str(),
        LibrarySpec::LoaderName(name) => name.as_ref(),
    };
    // SAFETY: loading NVRTC runs its initialisers, which have no preconditions.
    match unsafe { Library::open(Some(target), RTLD_NOW | RTLD_GLOBAL) } {
        Ok(library) => Ok(library.into()),
        Err(err) => Err(loader_reason(target, &err.to_string())),
    }
}

/// Windows: a DLL loaded by path finds the DLLs beside it (`LOAD_WITH_ALTERED_SEARCH_PATH`), and
/// its folder is added to the process's DLL search (`SetDllDirectoryW`), so that NVRTC's own
/// later load of `nvrtc-builtins64_129.dll` finds the copy beside it. Not run on Windows yet.
#[cfg(windows)]
fn open_global(spec: &LibrarySpec) -> Result<libloading::Library, String> {
    use libloading::os::windows::{Library, LOAD_WITH_ALTERED_SEARCH_PATH};
    use std::os::windows::ffi::OsStrExt;
    extern "system" {
        fn SetDllDirectoryW(path: *const u16) -> i32;
    }
    let (target, flags): (&std::ffi::OsStr, _) = match spec {
        LibrarySpec::File(path) => (path.as_os_str(), LOAD_WITH_ALTERED_SEARCH_PATH),
        LibrarySpec::LoaderName(name) => (name.as_ref(), 0),
    };
    // SAFETY: loading NVRTC runs its initialisers, which have no preconditions.
    let library = unsafe { Library::load_with_flags(target, flags) }.map_err(|err| {
        let why = match std::error::Error::source(&err) {
            Some(source) => format!("{err}: {source}"),
            None => err.to_string(),
        };
        loader_reason(target, &why)
    })?;
    if let LibrarySpec::File(path) = spec {
        if let Some(dir) = path.parent() {
            let wide: Vec<u16> = dir.as_os_str().encode_wide().chain([0]).collect();
            // SAFETY: `wide` is a NUL-terminated UTF-16 string that outlives the call. A failure
            // only leaves the search as it was.
            unsafe { SetDllDirectoryW(wide.as_ptr()) };
        }
    }
    Ok(library.into())
}

#[cfg(not(any(unix, windows)))]
fn open_global(spec: &LibrarySpec) -> Result<libloading::Library, String> {
    let target: &std::ffi::OsStr = match spec {
        LibrarySpec::File(path) => path.as_os_str(),
        LibrarySpec::LoaderName(name) => name.as_ref(),
    };
    // SAFETY: loading NVRTC runs its initialisers, which have no preconditions.
    unsafe { libloading::Library::new(target) }
        .map_err(|err| loader_reason(target, &err.to_string()))
}

/// dlerror() starts with the path, which the "looked in" list already shows.
fn loader_reason(target: &std::ffi::OsStr, message: &str) -> String {
    let prefix = format!("{}: ", target.to_string_lossy());
    message.strip_prefix(&prefix).unwrap_or(message).to_string()
}

/// The file a loaded symbol came from (for a library found by bare name).
#[cfg(unix)]
fn loaded_from(address: *const c_void) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStrExt;

    #[repr(C)]
    struct DlInfo {
        dli_fname: *const c_char,
        dli_fbase: *mut c_void,
        dli_sname: *const c_char,
        dli_saddr: *mut c_void,
    }
    extern "C" {
        fn dladdr(address: *const c_void, info: *mut DlInfo) -> c_int;
    }
    let mut info = DlInfo {
        dli_fname: std::ptr::null(),
        dli_fbase: std::ptr::null_mut(),
        dli_sname: std::ptr::null(),
        dli_saddr: std::ptr::null_mut(),
    };
    // SAFETY: dladdr only reads the address and fills `info`; dli_fname points
    // into the loader's own tables, valid while the library stays loaded.
    unsafe {
        if dladdr(address, &mut info) == 0 || info.dli_fname.is_null() {
            return None;
        }
        let name = CStr::from_ptr(info.dli_fname);
        Some(PathBuf::from(std::ffi::OsStr::from_bytes(name.to_bytes())))
    }
}

#[cfg(not(unix))]
fn loaded_from(_address: *const c_void) -> Option<PathBuf> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_a_short_reason() {
        let spec = LibrarySpec::File(PathBuf::from("/nonexistent/gpuzzle/libnvrtc.so.12"));
        let reason = NvrtcLibrary::open(&spec).err();
        assert_eq!(
            reason.as_deref(),
            Some("cannot open shared object file: No such file or directory")
        );
    }

    #[test]
    fn a_library_without_nvrtc_symbols_is_rejected() {
        // libc is loaded in every process and certainly has no nvrtcVersion.
        let spec = LibrarySpec::LoaderName("libc.so.6");
        let reason = NvrtcLibrary::open(&spec).err().unwrap_or_default();
        assert!(
            reason.starts_with("not a usable libnvrtc (no nvrtcVersion"),
            "{reason}"
        );
    }

    #[test]
    fn loader_reason_keeps_the_cause() {
        let target = std::ffi::OsStr::new("/x/libnvrtc.so.12");
        assert_eq!(
            loader_reason(target, "/x/libnvrtc.so.12: wrong ELF class: ELFCLASS32"),
            "wrong ELF class: ELFCLASS32"
        );
        assert_eq!(loader_reason(target, "plain"), "plain");
    }
}
