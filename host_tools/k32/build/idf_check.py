"""`k32 build firmware --board c3 --compile-only --idf DIR`: compile the board firmware for the
ESP32-C3 against a real ESP-IDF checkout, without Espressif's toolchain.

ESP-IDF's own build system configures the firmware (firmware/CMakeLists.txt, the component
idf/kube32 with the same sources and generators as every other build; sdkconfig.h generated
by esp-idf-kconfig from firmware/sdkconfig.defaults and the board's lines). The compiler is
Debian's riscv64-unknown-elf-gcc for rv32imc_zicsr_zifencei/ilp32, reached through shims named
as ESP-IDF's toolchain file expects (riscv32-esp-elf-*). Then the firmware component's compile
commands (compile_commands.json) run: nothing links, and ESP-IDF's own sources are not
compiled (ninja would build every library the component links with first).

The C library headers are newlib's (Debian's libnewlib-arm-none-eabi installs newlib's
generic include tree, whose machine/ headers cover RISC-V): ESP-IDF is built on newlib, and
its FreeRTOS port includes <sys/reent.h>, which picolibc does not have. The C++ headers are
libstdc++'s from the same GCC release (12.2) as configured for arm-none-eabi with that newlib
(libstdc++-arm-none-eabi-dev). Their generic part is target-independent; their bits/ folder
and newlib.h describe an Arm target (for example: no thread support behind std::mutex, long
double as double), which changes generated code, not whether portable sources compile. So
the check proves that every source compiles for the C3's 32-bit RISC-V (int32_t is long) with
ESP-IDF's headers and configuration; it does not produce a firmware image."""
from __future__ import annotations

import glob
import json
import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

from k32 import REPO_ROOT

FIRMWARE_DIR = REPO_ROOT / "firmware"
TARGETS = {"c3": "esp32c3"}          # boards with a RISC-V core Debian's compiler can target
IDF_PREFIX = "riscv32-esp-elf-"
HOST_PREFIX = "riscv64-unknown-elf-"
COMPONENT_OBJ_DIR = "esp-idf/kube32/CMakeFiles/__idf_kube32.dir"
GET_IDF = ("get one with: git clone --recursive --branch v5.3.1 https://github.com/espressif/esp-idf "
           "(or any v5.x checkout whose components/lwip/lwip and components/mbedtls/mbedtls "
           "submodules are present)")
NEEDED = ("tools/cmake/project.cmake", "components/freertos", "components/lwip/lwip/src/include/lwip",
          "components/mbedtls/mbedtls/include/mbedtls")
LOG_TAIL = 40


class CheckError(RuntimeError):
    """The check could not run or found errors; the message says which and what to do."""


def _check_idf(idf: Path | None) -> Path:
    if idf is None:
        env = os.environ.get("IDF_PATH")
        if not env:
            raise CheckError(f"no ESP-IDF checkout: pass --idf DIR or set IDF_PATH; {GET_IDF}")
        idf = Path(env)
    idf = idf.resolve()
    missing = [n for n in NEEDED if not (idf / n).exists()]
    if missing:
        raise CheckError(f"{idf} is not a complete ESP-IDF checkout (missing {', '.join(missing)}); {GET_IDF}")
    return idf


def _littlefs_dir(idf: Path, given: Path | None) -> Path:
    cands = [given] if given else [idf / "components" / "esp_littlefs", idf.parent / "esp_littlefs",
                                   idf.parent / "idf-extra" / "esp_littlefs"]
    for c in cands:
        if c and (c / "include" / "esp_littlefs.h").is_file():
            return c.resolve()
    raise CheckError("no esp_littlefs component (the LittleFS driver): pass --littlefs DIR; get it with: "
                     "git clone --recursive https://github.com/joltwallet/esp_littlefs")


# Components the firmware needs even when one of their optional submodules is absent.
REQUIRED_COMPONENTS = {"lwip", "mbedtls", "esp_wifi", "esp_phy", "esp_coex", "heap", "freertos", "bootloader"}


def absent_submodule_components(idf: Path) -> list[str]:
    """Components whose git submodules are not checked out (a checkout without
    --recursive, or a trimmed one): left out of the configure, as nothing here needs them."""
    gm = idf / ".gitmodules"
    if not gm.is_file():
        return []
    out = set()
    for m in re.finditer(r"^\s*path\s*=\s*(\S+)", gm.read_text(encoding="utf-8"), re.M):
        path = idf / m.group(1)
        parts = Path(m.group(1)).parts
        if len(parts) < 2 or parts[0] != "components":
            continue
        if not path.is_dir() or not any(path.iterdir()):
            if parts[1] not in REQUIRED_COMPONENTS:
                out.add(parts[1])
    return sorted(out)


def _component_dirs(idf: Path) -> list[str]:
    absent = set(absent_submodule_components(idf))
    return [str(d) for d in sorted((idf / "components").iterdir())
            if d.is_dir() and (d / "CMakeLists.txt").is_file() and d.name not in absent]


def libstdcxx_include() -> Path:
    found = sorted(glob.glob("/usr/include/newlib/c++/*"))
    if not found:
        raise CheckError("no libstdc++ headers: apt-get install libstdc++-arm-none-eabi-dev")
    return Path(found[-1])


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if not path:
        raise CheckError(f"{tool} not found: apt-get install gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf "
                         "libstdc++-arm-none-eabi-dev ninja-build")
    return path


NEWLIB_INCLUDE = Path("/usr/include/newlib")


def _gcc_include_dirs() -> list[str]:
    out = subprocess.run([_need(HOST_PREFIX + "gcc"), "-print-file-name=include"], capture_output=True,
                         text=True, check=False).stdout.strip()
    dirs = [out] if out and Path(out).is_dir() else []
    fixed = Path(out).parent / "include-fixed" if out else None
    if fixed and fixed.is_dir():
        dirs.append(str(fixed))
    return dirs


def write_shims(shim_dir: Path) -> None:
    """riscv32-esp-elf-* commands that run Debian's riscv64-unknown-elf-* for rv32, with
    newlib's C headers and libstdc++'s C++ headers in GCC's usual search order."""
    shim_dir.mkdir(parents=True, exist_ok=True)
    cxx = libstdcxx_include()
    if not (NEWLIB_INCLUDE / "sys" / "reent.h").is_file():
        raise CheckError("no newlib headers: apt-get install libnewlib-arm-none-eabi")
    # ESP-IDF passes -march itself when compiling, but not when it preprocesses linker scripts.
    arch = ["-march=rv32imc_zicsr_zifencei", "-mabi=ilp32"]
    c_inc = [f for d in _gcc_include_dirs() + [str(NEWLIB_INCLUDE)] for f in ("-isystem", d)]
    cxx_inc = [f for d in (cxx, cxx / "arm-none-eabi", cxx / "backward") for f in ("-isystem", str(d))]
    tools = {"gcc": arch + ["-nostdinc"] + c_inc, "cpp": arch + ["-nostdinc"] + c_inc,
             "g++": arch + ["-nostdinc"] + cxx_inc + c_inc}
    for t in ("ar", "ranlib", "objcopy", "objdump", "nm", "size", "strip", "readelf", "ld",
              "gcc-ar", "gcc-nm", "gcc-ranlib"):
        tools[t] = []
    for name, flags in tools.items():
        real = _need(HOST_PREFIX + name) if name in ("gcc", "g++") else (shutil.which(HOST_PREFIX + name) or "")
        if not real:
            continue
        script = shim_dir / (IDF_PREFIX + name)
        script.write_text("#!/bin/sh\nexec " + " ".join([real] + flags) + ' "$@"\n', encoding="utf-8")
        script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def _tail(text: str) -> str:
    lines = text.strip().splitlines()
    errors = [i for i, line in enumerate(lines) if re.search(r"\berror\b", line)]
    picked = []
    for i in errors[:8]:
        picked += lines[i:i + 2]
    return "\n".join(picked + (["..."] if picked else []) + lines[-LOG_TAIL:])


def _run(cmd: list[str], env: dict, what: str) -> str:
    proc = subprocess.run(cmd, cwd=REPO_ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          text=True, errors="replace")
    if proc.returncode != 0:
        raise CheckError(f"{what} failed (exit {proc.returncode}):\n{_tail(proc.stdout)}")
    return proc.stdout


def configure(board: str, idf: Path | None, build_dir: Path, littlefs: Path | None = None,
              echo=print) -> dict:
    """Configure the board firmware with ESP-IDF in build_dir (once; later calls re-run CMake);
    returns the environment its compile commands run in."""
    if board not in TARGETS:
        raise CheckError(f"--compile-only supports {', '.join(TARGETS)} (Debian's compilers target RISC-V, "
                         f"not the Xtensa cores of the other boards); got {board!r}")
    idf = _check_idf(idf)
    lfs = _littlefs_dir(idf, littlefs)
    cmake = _need("cmake")
    _need("ninja")  # the generator ESP-IDF configures for
    build_dir = Path(build_dir).resolve()
    shim_dir = build_dir / "toolchain-shims"
    write_shims(shim_dir)
    env = dict(os.environ)
    env.update(IDF_PATH=str(idf), IDF_COMPONENT_MANAGER="0", IDF_TARGET=TARGETS[board],
               K32_LITTLEFS_COMPONENT=lfs.name,
               PATH=f"{shim_dir}{os.pathsep}{env.get('PATH', '')}")
    if not (build_dir / "build.ninja").is_file():
        cfg = [cmake, "-S", str(FIRMWARE_DIR), "-B", str(build_dir), "-G", "Ninja",
               f"-DIDF_TARGET={TARGETS[board]}", f"-DK32_BOARD={board}", "-DPYTHON_DEPS_CHECKED=1",
               f"-DPYTHON={sys.executable}", f"-DSDKCONFIG={build_dir / 'sdkconfig'}",
               # Every ESP-IDF component but those whose submodules are absent, the firmware's
               # component and LittleFS: ESP-IDF reads every known component's CMakeLists.
               f"-DCOMPONENT_DIRS={';'.join(_component_dirs(idf) + [str(FIRMWARE_DIR / 'idf' / 'kube32'), str(lfs)])}",
               # Nothing links (there is no C library to link with): compiler probes stop at objects.
               "-DCMAKE_TRY_COMPILE_TARGET_TYPE=STATIC_LIBRARY"]
        echo(f"configuring with ESP-IDF at {idf} for {TARGETS[board]} ...")
        _run(cfg, env, "ESP-IDF configure")
    else:
        _run([cmake, str(build_dir)], env, "ESP-IDF re-configure")
    return env


def compile_check(board: str, idf: Path | None, build_dir: Path, littlefs: Path | None = None,
                  jobs: int = 2, echo=print) -> list[str]:
    """Configure with ESP-IDF and compile every source of the board firmware; returns them."""
    build_dir = Path(build_dir).resolve()
    env = configure(board, idf, build_dir, littlefs, echo)
    commands = component_commands(build_dir)
    if not commands:
        raise CheckError("ESP-IDF configured, but the firmware component has no sources to compile")
    echo(f"compiling {len(commands)} sources of the firmware for {TARGETS[board]} ...")
    failed = _compile_all(commands, env, jobs)
    if failed:
        raise CheckError(f"{len(failed)} of {len(commands)} sources do not compile for {TARGETS[board]}:\n"
                         + "\n".join(failed))
    return [c["file"] for c in commands]


def component_commands(build_dir: Path) -> list[dict]:
    """The compile commands of the firmware component (ESP-IDF writes compile_commands.json).
    Ninja would first build every ESP-IDF library the component links with (its objects
    are ordered after them), and those are written for Espressif's newlib, so the
    component's commands are run directly."""
    db = build_dir / "compile_commands.json"
    try:
        entries = json.loads(db.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise CheckError(f"{db}: not readable ({e})") from None
    return [e for e in entries if COMPONENT_OBJ_DIR in e.get("command", "")]


def _compile_all(commands: list[dict], env: dict, jobs: int) -> list[str]:
    import shlex
    from concurrent.futures import ThreadPoolExecutor

    def one(entry: dict) -> str | None:
        argv = shlex.split(entry["command"])
        proc = subprocess.run(argv, cwd=entry["directory"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace")
        if proc.returncode == 0:
            return None
        return f"--- {entry['file']}\n{_tail(proc.stdout)}"

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return [r for r in pool.map(one, commands) if r]
