#!/usr/bin/env python3
"""Regenerates the PTX fixtures of this folder with NVRTC 13 (not needed to run the tests).

The fixtures are what NVRTC 13 emits for a few kernels of tests/kernels/instrument and of the
engine corpus (with the options gpuzzle itself passes: -lineinfo, compute_80; `atomics` has an
inlined device function, so `.loc ... inlined_at` lines and a `.debug_str` section), so that the `.version`/`.target` lowering
in src/gpu/driver.rs and the instrumenter are tested against real CUDA 13 PTX on machines that
have no NVRTC 13. Usage, from the project's root:

    python3 tests/ptx/nvrtc13/make.py /path/to/libnvrtc.so.13

(`pip install nvidia-cuda-nvrtc` puts it under site-packages/nvidia/cu13/lib/.)
"""
import ctypes
import pathlib
import sys

# (source under the project's root, fixture name)
KERNELS = [
    ("tests/kernels/instrument/map.cu", "map"),
    ("tests/kernels/instrument/device_func.cu", "device_func"),
    ("tests/kernels/instrument/reduce_shared.cu", "reduce_shared"),
    ("tests/kernels/instrument/device_var.cu", "device_var"),
    ("tests/kernels/atomics.cu", "corpus_atomics"),
    ("tests/kernels/warp.cu", "corpus_warp"),
]
OPTIONS = [b"-lineinfo", b"--gpu-architecture=compute_80"]


def compile_one(nvrtc, name, source):
    prog = ctypes.c_void_p()
    check(nvrtc, nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source, f"{name}.cu".encode(), 0, None, None))
    opts = (ctypes.c_char_p * len(OPTIONS))(*OPTIONS)
    rc = nvrtc.nvrtcCompileProgram(prog, len(OPTIONS), opts)
    if rc != 0:
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetProgramLog(prog, log)
        sys.exit(f"{name}.cu: {log.value.decode()}")
    size = ctypes.c_size_t()
    check(nvrtc, nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size)))
    ptx = ctypes.create_string_buffer(size.value)
    check(nvrtc, nvrtc.nvrtcGetPTX(prog, ptx))
    nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))
    return ptx.value.decode()


def check(nvrtc, rc):
    if rc != 0:
        nvrtc.nvrtcGetErrorString.restype = ctypes.c_char_p
        sys.exit(f"NVRTC error {rc}: {nvrtc.nvrtcGetErrorString(rc).decode()}")


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    nvrtc = ctypes.CDLL(sys.argv[1])
    major, minor = ctypes.c_int(), ctypes.c_int()
    check(nvrtc, nvrtc.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)))
    if major.value != 13:
        sys.exit(f"{sys.argv[1]} is NVRTC {major.value}.{minor.value}, not 13")
    here = pathlib.Path(__file__).resolve().parent
    root = here.parents[2]
    for path, name in KERNELS:
        source = (root / path).read_bytes()
        ptx = compile_one(nvrtc, name, source)
        (here / f"{name}.ptx").write_text(ptx)
        print(f"{name}.ptx from {path}: NVRTC {major.value}.{minor.value}")


if __name__ == "__main__":
    main()
