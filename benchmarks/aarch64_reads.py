"""Does the shipped recognizer read the same cards on 64-bit ARM, a Raspberry Pi's CPU?

    sudo python benchmarks/aarch64_reads.py [--scenes 24] [--seed 17] [--root DIR]

Needs root (chroot), Debian's `debootstrap` and `qemu-user-static` (`--install`
installs them with apt-get), and Debian's and the Python package index's
servers reachable. What it does:

1. Makes a minimal Debian bookworm arm64 root with Python 3.11 in `--root`
   (default `var/aarch64-root`): debootstrap's first stage, its packages
   unpacked, not configured, so nothing for arm64 has to run to make it.
2. Unpacks the aarch64 wheels of numpy, opencv-python-headless and onnxruntime
   for Python 3.11 into it (pip's `--platform`), beside copies of `vision` and
   `foundation` and of this script.
3. Draws `--scenes` table scenes of the held-out decks (PNG) and reads them
   here, on onnxruntime (the int8 verifiers) and on OpenCV's dnn module.
4. Reads them again inside the root with its aarch64 Python, run by
   `qemu-aarch64-static`. No /proc or /sys is mounted there: onnxruntime's
   CPU detection then finds nothing (it warns so) and runs its generic ARM
   kernels, not the host's x86 description.
5. Prints, per runtime, how many frames gave the same cards, places and
   confidences.

The emulator's times say nothing about a Pi's speed and are not printed;
`tablectl vision check` on the Pi does that.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PYTHON_PACKAGES = ["python3.11", "python3.11-minimal", "libpython3.11-minimal",
                   "libpython3.11-stdlib", "zlib1g", "libexpat1", "libffi8", "libstdc++6",
                   "libgcc-s1"]
WHEELS = ["numpy>=1.26", "opencv-python-headless>=4.9", "onnxruntime>=1.17"]
AARCH64_TAGS = ["manylinux2014_aarch64", "manylinux_2_17_aarch64", "manylinux_2_27_aarch64",
                "manylinux_2_28_aarch64"]
RUNTIMES = ("onnxruntime", "opencv")
INSIDE = "/opt/tablectl"  # the copies of the code, the wheels and the frames, in the root


def read_frames(folder: Path) -> dict[str, dict[str, list[list[Any]]]]:
    """Every frame of `folder` read on each runtime: [card, x, y, confidence] per read
    and unknown corner."""
    import cv2

    from vision.recognizer import Recognizer

    cv2.setNumThreads(1)
    readers = {runtime: Recognizer(runtime=runtime) for runtime in RUNTIMES}
    found: dict[str, dict[str, list[list[Any]]]] = {}
    for path in sorted(folder.glob("scene_*.png")):
        image = cv2.imread(str(path))
        found[path.name] = {
            runtime: sorted([d.card, round(d.x, 2), round(d.y, 2), round(d.confidence, 4)]
                            for group in reader.detect_all(image) for d in group)
            for runtime, reader in readers.items()}
    return found


def ensure_tools(install: bool) -> None:
    missing = [tool for tool in ("debootstrap", "qemu-aarch64-static")
               if shutil.which(tool) is None]
    if missing and install:
        subprocess.run(["apt-get", "install", "-y", "-q", "debootstrap", "qemu-user-static"],
                       check=True, env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    elif missing:
        raise SystemExit(f"missing {', '.join(missing)}: apt-get install debootstrap "
                         "qemu-user-static, or run with --install")


def make_root(root: Path) -> None:
    """The arm64 root with Python 3.11, made once."""
    if (root / "usr/bin/python3.11").exists():
        return
    subprocess.run(["debootstrap", "--foreign", "--arch=arm64", "--variant=minbase",
                    f"--include={','.join(PYTHON_PACKAGES)}", "bookworm", str(root)],
                   check=True, stdout=subprocess.DEVNULL)
    # The first stage unpacks only the essential packages; the rest wait in the cache.
    for deb in sorted((root / "var/cache/apt/archives").glob("*.deb")):
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)


def fill_root(root: Path) -> None:
    """The wheels, the code and the emulator, put in the root afresh."""
    inside = root / INSIDE.lstrip("/")
    shutil.rmtree(inside, ignore_errors=True)
    platform_args = [arg for tag in AARCH64_TAGS for arg in ("--platform", tag)]
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--target",
                    str(inside / "site"), "--only-binary=:all:", *platform_args,
                    "--python-version", "3.11", "--implementation", "cp", *WHEELS], check=True)
    for package in ("vision", "foundation"):
        shutil.copytree(ROOT / package, inside / package,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(Path(__file__), inside / Path(__file__).name)
    emulator = shutil.which("qemu-aarch64-static")
    assert emulator is not None
    shutil.copy2(emulator, root / "usr/bin/qemu-aarch64-static")


def draw_frames(folder: Path, scenes: int, seed: int) -> None:
    import cv2

    sys.path[:0] = [str(ROOT / "hw-sim"), str(ROOT / "benchmarks")]
    from bench_vision import rendered_scenes
    from hwsim.camera.artwork import HELD_OUT_DECKS

    folder.mkdir(parents=True, exist_ok=True)
    for i, scene in enumerate(rendered_scenes(scenes, seed, list(HELD_OUT_DECKS))):
        cv2.imwrite(str(folder / f"scene_{i:03d}.png"), scene.image)


def compare(here: dict[str, Any], there: dict[str, Any]) -> bool:
    alike = True
    for runtime in RUNTIMES:
        same_cards = sum(1 for name in here
                         if [r[0] for r in here[name][runtime]]
                         == [r[0] for r in there.get(name, {}).get(runtime, [])])
        same = sum(1 for name in here if here[name][runtime] == there.get(name, {}).get(runtime))
        print(f"  {runtime}: {same_cards} of {len(here)} frames read the same cards on aarch64, "
              f"{same} the same cards, places and confidences (to 4 decimals)")
        for name in sorted(here):
            if here[name][runtime] != there.get(name, {}).get(runtime):
                print(f"    {name}: x86-64 {here[name][runtime]}\n"
                      f"    {' ' * len(name)}  aarch64 {there.get(name, {}).get(runtime)}")
        alike &= same_cards == len(here)
    return alike


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenes", type=int, default=24)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--root", type=Path, default=ROOT / "var/aarch64-root")
    parser.add_argument("--install", action="store_true",
                        help="apt-get install debootstrap and qemu-user-static if missing")
    parser.add_argument("--inside", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.scenes < 1:
        parser.error("--scenes must be 1 or more")
    if args.inside:  # in the root, under the emulator: read and print JSON
        print(json.dumps(read_frames(Path(INSIDE) / "frames")))
        return 0
    if os.geteuid() != 0:
        raise SystemExit("run as root: the arm64 root is entered with chroot")
    sys.path.insert(0, str(ROOT))
    root = args.root.resolve()
    frames = root / INSIDE.lstrip("/") / "frames"
    try:
        ensure_tools(args.install)
        make_root(root)
        fill_root(root)
        draw_frames(frames, args.scenes, args.seed)
    except subprocess.CalledProcessError as error:
        raise SystemExit(f"{Path(str(error.cmd[0])).name} failed (exit status "
                         f"{error.returncode}): is the network up and {root} writable?") from None
    except OSError as error:
        raise SystemExit(f"cannot prepare the arm64 root in {root}: {error}") from None
    here = read_frames(frames)
    chroot = shutil.which("chroot") or "/usr/sbin/chroot"  # sbin: not always on PATH
    done = subprocess.run(
        [chroot, str(root), "/usr/bin/qemu-aarch64-static", "/usr/bin/python3.11",
         f"{INSIDE}/{Path(__file__).name}", "--inside"],
        capture_output=True, text=True, env={"PYTHONPATH": f"{INSIDE}/site:{INSIDE}",
                                             "PATH": "/usr/bin:/bin"})
    if done.returncode != 0:
        print(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "no output",
              file=sys.stderr)
        raise SystemExit(f"the aarch64 run failed (exit status {done.returncode})")
    there = json.loads(done.stdout)
    print(f"{len(here)} scenes of the held-out decks (seed {args.seed}), read on x86-64 here "
          "and on aarch64 (emulated, generic ARM kernels):")
    return 0 if compare(here, there) else 1


if __name__ == "__main__":
    sys.exit(main())
