#!/usr/bin/env python3
"""Installs work: `meson install` into a staging folder puts the binary, the Python module, the
plot scripts, the example scenarios and traces, the docs and the man page where a Linux user
expects them, and the installed binary runs its examples and finds its own plot scripts; `pip
install .` into a virtual environment gives that Python `import sgdsim` and the `sgdsim`
command. Run by tools/test.sh after the Meson tests, on their build folder (pip builds in it,
saved and put back around the build, so almost nothing is compiled twice).
Usage: install_test.py BUILD_DIR REPO_ROOT"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Checks  # noqa: E402

BUILD, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHECKS = Checks("install")
try:
    import matplotlib  # noqa: F401 (the installed plot scripts need it)
    import mesonpy  # noqa: F401 (pip's build backend, Debian's python3-mesonpy)
except ImportError as missing:
    print(f"{missing}: skipped (tools/test.sh installs python3-matplotlib and python3-mesonpy)")
    sys.exit(77)


def run(*args, cwd, env=None):
    return subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          env=env)


def installed_at(data):
    """What the data folder must hold, relative to it."""
    return ["sgdsim/plots/scaling.py", "sgdsim/plots/common.py", "sgdsim/tools/tool_io.py",
            "sgdsim/scenarios/default.json", "sgdsim/scenarios/sweep_resnet50_gpus.json",
            "sgdsim/traces/resnet50_b32_v100_estimated.json"]


def check_prefix(label, prefix, data, work):
    """The installed binary (PREFIX/bin) runs an installed example (DATA/sgdsim: PREFIX/share
    for meson install, PREFIX for a wheel) from another folder and draws a sweep with the
    installed plot script; moved away, the script is missed by name."""
    missing = [p for p in installed_at(data) if not os.path.exists(os.path.join(data, p))]
    missing += [] if os.access(os.path.join(prefix, "bin", "sgdsim"), os.X_OK) else ["bin/sgdsim"]
    CHECKS.check(f"{label}: binary, plot scripts, scenarios and traces installed", not missing,
                 str(missing))
    if label == "meson install":  # meson-python 0.12 copies folders whole, caches included
        cached = glob.glob(os.path.join(data, "sgdsim", "**", "__pycache__"), recursive=True)
        CHECKS.check(f"{label}: no __pycache__ installed", not cached, str(cached))
    sgdsim = os.path.join(prefix, "bin", "sgdsim")
    scenarios = os.path.join(data, "sgdsim", "scenarios")
    r = run(sgdsim, "--version", cwd=work)
    CHECKS.check(f"{label}: sgdsim --version names the commit",
                 r.returncode == 0 and "(commit " in r.stdout, r.stdout + r.stderr)
    r = run(sgdsim, "run", os.path.join(scenarios, "default.json"), "--json", "d.json", cwd=work)
    CHECKS.check(f"{label}: the installed default scenario runs with its installed trace",
                 r.returncode == 0 and "MG-WFBP" in r.stdout, r.stderr)
    # A small sweep: 4 and 8 GPUs, one policy.
    with open(os.path.join(scenarios, "default.json"), encoding="utf-8") as f:
        text = f.read().rstrip().rstrip("}")
    sweep = os.path.join(scenarios, "..", "install_test_sweep.json")
    with open(sweep, "w", encoding="utf-8") as f:
        f.write(text.replace('"../traces/', '"traces/') + ', "sweep": {"cluster.gpus": [4, 8], '
                '"communication.merge.policy": ["mgwfbp"]}}')
    r = run(sgdsim, "sweep", sweep, "--csv", "s.csv", "--plot", "s.png", cwd=work)
    CHECKS.check(f"{label}: sweep --plot uses the installed plots/scaling.py",
                 r.returncode == 0 and os.path.exists(os.path.join(work, "s.png"))
                 and os.path.getsize(os.path.join(work, "s.png")) > 1000,
                 r.stdout + r.stderr)
    plots = os.path.join(data, "sgdsim", "plots")
    os.rename(plots, plots + ".away")
    r = run(sgdsim, "sweep", sweep, "--csv", "t.csv", "--plot", "t.png", cwd=work)
    os.rename(plots + ".away", plots)
    os.remove(sweep)
    expected = os.path.normpath(os.path.join(plots, "scaling.py"))
    CHECKS.check(f"{label}: without them, sweep --plot names where it looked, before running",
                 r.returncode == 2 and "--plot: no plot script at " in r.stderr
                 and expected in r.stderr
                 and not os.path.exists(os.path.join(work, "t.csv")), r.stderr)


with tempfile.TemporaryDirectory() as tmp:
    # meson install, as a distribution package or `sudo meson install` would, into a stage.
    stage = os.path.join(tmp, "stage")
    r = run("meson", "install", "-C", BUILD, "--destdir", stage, "--quiet", cwd=ROOT)
    CHECKS.check("meson install succeeds", r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:])
    options = json.loads(run("meson", "introspect", "--buildoptions", BUILD, cwd=ROOT).stdout)
    prefix = os.path.join(stage, next(o["value"] for o in options
                                      if o["name"] == "prefix").lstrip("/"))
    for doc in ("share/doc/sgdsim/README.md", "share/doc/sgdsim/LICENSE",
                "share/doc/sgdsim/docs/guide.md", "share/doc/sgdsim/docs/result.schema.json",
                "share/man/man1/sgdsim.1"):
        CHECKS.check(f"meson install: {doc}", os.path.exists(os.path.join(prefix, doc)))
    work = os.path.join(tmp, "work")
    os.mkdir(work)
    check_prefix("meson install", prefix, os.path.join(prefix, "share"), work)
    modules = glob.glob(os.path.join(prefix, "lib", "**", "sgdsim*.so"), recursive=True)
    CHECKS.check("meson install: the Python module", len(modules) == 1, str(modules))
    if modules:
        env = dict(os.environ, PYTHONPATH=os.path.dirname(modules[0]))
        r = run(sys.executable, "-c", "import sgdsim, sys; r = sgdsim.run_file(sys.argv[1]); "
                "print(len(r['policies']))", os.path.join(prefix, "share", "sgdsim", "scenarios",
                                                          "default.json"), cwd=work, env=env)
        CHECKS.check("meson install: the installed module runs a scenario",
                     r.returncode == 0 and r.stdout.strip() == "6", r.stderr)

    # pip install . into a virtual environment, built in the Meson tests' own folder so that
    # almost nothing is compiled again: the unity sources name their folder by its absolute
    # path, so a copy elsewhere would compile everything anew. pip reconfigures the folder it is
    # given (its prefix, the venv's Python), so the folder is saved first and put back after.
    venv = os.path.join(tmp, "venv")
    r = run(sys.executable, "-m", "venv", "--system-site-packages", venv, cwd=tmp)
    pip = os.path.join(venv, "bin", "pip")
    saved = BUILD.rstrip("/") + "-saved"
    shutil.rmtree(saved, ignore_errors=True)
    shutil.copytree(BUILD, saved, symlinks=True)
    try:
        # Debian's meson-python (0.12) did not apply pyproject.toml's setup arguments to the
        # folder it was given (the networks' module stayed in the install plan, and the wheel
        # failed): the one that changes what is installed, -Dtorch=disabled, is set here, as a
        # fresh pip build gets it from pyproject.toml.
        if r.returncode == 0:
            r = run("meson", "setup", "--reconfigure", BUILD, ROOT, "-Dtorch=disabled", cwd=tmp)
        r = run(pip, "install", "--no-build-isolation", "--no-index", "--quiet",
                f"--config-settings=builddir={BUILD}", ROOT, cwd=tmp) if r.returncode == 0 else r
    finally:
        shutil.rmtree(BUILD, ignore_errors=True)
        os.rename(saved, BUILD)
    CHECKS.check("pip install . into a venv", r.returncode == 0,
                 r.stdout[-3000:] + r.stderr[-3000:])
    if r.returncode == 0:
        python = os.path.join(venv, "bin", "python")
        r = run(python, "-c", "import sgdsim, sys; print(sgdsim.__file__.startswith(sys.prefix), "
                "len(sgdsim.run_file(sys.argv[1])['policies']))",
                os.path.join(venv, "sgdsim", "scenarios", "default.json"), cwd=work)
        CHECKS.check("pip install: that Python imports sgdsim from the venv and runs a scenario",
                     r.returncode == 0 and r.stdout.split() == ["True", "6"], r.stdout + r.stderr)
        pip_work = os.path.join(tmp, "pip_work")
        os.mkdir(pip_work)
        check_prefix("pip install", venv, venv, pip_work)
    native = os.path.join(ROOT, ".mesonpy-native-file.ini")
    if os.path.exists(native):  # meson-python's, written into the source folder
        os.remove(native)

CHECKS.finish()
