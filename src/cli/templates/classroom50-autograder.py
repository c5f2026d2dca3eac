#!/usr/bin/env python3
"""Classroom 50 autograder for gpuzzle, written by `gpuzzle init --ci classroom50`.

Classroom 50's runner calls it once per submission, in the student's checkout (a gpuzzle
workspace), with CLASSROOM, ASSIGNMENT, SUBMISSION_TAG, COMMIT_URL, RELEASE_URL and REVIEW_URL
set. It grades every puzzle with `gpuzzle check --all --pack PACK --format classroom50` (one
test per puzzle, worth its `points`) and writes that result to ./result.json
(`classroom50/result/v1`). Exit 0 whenever it graded, whatever the score; non-zero only when it
could not grade (an infrastructure error: the runner then records `status=error`).

gpuzzle: the one on PATH (a self-hosted runner's image), else installed into ~/.gpuzzle-venv:
NVIDIA's wheels, then the gpuzzle release GPUZZLE_VERSION prebuilt (a wheel: seconds), and only
when no such release exists `cargo install --locked GPUZZLE_INSTALL` (runtime.json asks for
Rust for that case).

Install it in the organisation's classroom50 repository, for every assignment of a classroom:
    gh teacher autograder set-default ORG CLASSROOM --from classroom50/autograder.py
or for one assignment, as CLASSROOM/autograders/ASSIGNMENT/autograder.py.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

# The gpuzzle release every submission is graded by: set once, here, for the whole classroom.
GPUZZLE_VERSION = "@GPUZZLE_VERSION@"
# Only when no release of GPUZZLE_VERSION exists: the arguments of `cargo install --locked`
# that build gpuzzle, e.g. "--git https://github.com/you/gpuzzle --rev 1a2b3c4 gpuzzle".
GPUZZLE_INSTALL = "@GPUZZLE_INSTALL@"
# The puzzle definitions grading uses: "builtin" (those built into gpuzzle: a puzzle file a
# student edits is reported and not used), or for your own pack what
# `gpuzzle check --print-pin` prints in the template repository ("sha256:...").
GPUZZLE_PACK = "builtin"
# NVIDIA's wheels the pack needs (nvidia-cuda-nvcc-cu12 holds crt/mma.h, for <mma.h>).
NVIDIA_WHEELS = "@NVIDIA_WHEELS@".split()

VENV = Path.home() / ".gpuzzle-venv"


def say(text):
    print(text, flush=True)


def infrastructure_error(text):
    print(f"::error title=gpuzzle autograder::{text}", file=sys.stderr, flush=True)
    sys.exit(1)


def run(args, **kwargs):
    say("$ " + " ".join(str(a) for a in args))
    return subprocess.run(args, check=False, **kwargs).returncode == 0


def install_gpuzzle():
    """Install NVIDIA's wheels and gpuzzle into ~/.gpuzzle-venv; the path of gpuzzle."""
    if not (VENV / "bin" / "python").exists():
        if not run([sys.executable, "-m", "venv", str(VENV)]):
            infrastructure_error(f"could not create the venv {VENV} (python3 -m venv)")
    pip = [str(VENV / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check"]
    if not run(pip + NVIDIA_WHEELS):
        infrastructure_error("could not pip install " + " ".join(NVIDIA_WHEELS))
    gpuzzle = VENV / "bin" / "gpuzzle"
    if GPUZZLE_VERSION and run(pip + ["--only-binary=:all:", f"gpuzzle=={GPUZZLE_VERSION}"]):
        return str(gpuzzle)
    if not GPUZZLE_INSTALL:
        infrastructure_error(
            f"no release wheel of gpuzzle {GPUZZLE_VERSION!r}: set GPUZZLE_VERSION to a released "
            "version, or GPUZZLE_INSTALL to the cargo install arguments that build it"
        )
    say(f"No release wheel of gpuzzle {GPUZZLE_VERSION!r}: building it (minutes).")
    cargo = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    # Into the venv's bin: gpuzzle finds NVIDIA's wheels in the site-packages beside it.
    if not run([cargo, "install", "--locked", "--root", str(VENV)] + GPUZZLE_INSTALL.split()):
        infrastructure_error("cargo install --locked " + GPUZZLE_INSTALL + " failed")
    return str(gpuzzle)


def main():
    gpuzzle = shutil.which("gpuzzle")
    if gpuzzle:
        say(f"gpuzzle: {gpuzzle} (on PATH)")
    else:
        gpuzzle = install_gpuzzle()
    args = [gpuzzle, "check", "--all", "--pack", GPUZZLE_PACK, "--format", "classroom50"]
    say("$ " + " ".join(args))
    # The emulator: the same verdicts on a runner with or without a GPU.
    env = dict(os.environ, GPUZZLE_BACKEND=os.environ.get("GPUZZLE_BACKEND", "emu"))
    done = subprocess.run(args, check=False, stdout=subprocess.PIPE, env=env)
    if done.returncode != 0:
        infrastructure_error(f"gpuzzle check could not grade (exit {done.returncode}): see above")
    try:
        result = json.loads(done.stdout)
    except ValueError as e:
        infrastructure_error(f"gpuzzle check printed no result JSON ({e})")
    Path("result.json").write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    for test in result["tests"]:
        mark = "PASS" if test["passed"] else "FAIL"
        say(f"{mark} {test['score']}/{test['max-score']}  {test['test-name']}: {test['message']}")
    say(f"Score: {result['score']}/{result['max-score']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
