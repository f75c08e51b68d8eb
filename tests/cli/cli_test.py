#!/usr/bin/env python3
"""End-to-end tests of the sgdsim command line: exit codes, messages, output files.
Usage: cli_test.py SGDSIM_BINARY REPO_ROOT"""
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from harness import Checks  # noqa: E402

SGDSIM, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
CHECKS = Checks("cli")


def run(*args, cwd=ROOT):
    return subprocess.run([SGDSIM, *args], cwd=cwd, capture_output=True, text=True)


def write(folder, name, content):
    path = os.path.join(folder, name)
    with open(path, "w", encoding="utf-8") as out:
        out.write(content if isinstance(content, str) else json.dumps(content))
    return path


with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(ROOT, "tests", "data", "four_layers.json")
    good = {"trace": trace, "cluster": {"gpus": 4}, "network": {"bandwidth_gbps": 10}}

    # tools/run.sh takes paths from the caller's folder, not the repository's (SGDSIM: this
    # binary, nothing built): a scenario and an output named relative to another folder.
    elsewhere = os.path.join(tmp, "elsewhere")
    os.mkdir(elsewhere)
    write(elsewhere, "mine.json", good)
    r = subprocess.run([os.path.join(ROOT, "tools", "run.sh"), "mine.json", "--json", "out.json",
                        "--quiet"], cwd=elsewhere, capture_output=True, text=True,
                       env=dict(os.environ, SGDSIM=SGDSIM))
    CHECKS.check("tools/run.sh reads and writes in the caller's folder",
                 r.returncode == 0 and os.path.exists(os.path.join(elsewhere, "out.json")),
                 r.stdout + r.stderr)

    r = run("--version")
    CHECKS.check("version names the commit", r.returncode == 0 and r.stdout.startswith("sgdsim ")
                 and "(commit " in r.stdout.splitlines()[0], r.stdout + r.stderr)

    r = run()
    CHECKS.check("no subcommand is a usage error", r.returncode == 2, f"exit {r.returncode}")

    r = run("run", "scenarios/default.json")
    labels = ["WFBP", "SyncEASGD", "DDP buckets", "Horovod fusion", "MG-WFBP", "optimal"]
    CHECKS.check("default scenario compares all six policies",
          r.returncode == 0 and all(label in r.stdout for label in labels), r.stderr)

    bad = dict(good, cluster={"gpus": 0})
    path = write(tmp, "zero.json", bad)
    r = run("run", path)
    CHECKS.check("zero GPUs: exit 2 with a path-qualified message",
          r.returncode == 2 and r.stderr == f"sgdsim: error: {path}: cluster.gpus: expected an "
          "integer from 1 to 1048576, found 0\n", f"exit {r.returncode}: {r.stderr!r}")

    r = run("run", os.path.join(tmp, "missing.json"))
    CHECKS.check("missing scenario file: exit 2",
          r.returncode == 2 and "cannot open file: no such file" in r.stderr, r.stderr)

    path = write(tmp, "malformed.json", '{"trace": "x.json",\n "cluster": {"gpus": 4,}}')
    r = run("run", path)
    CHECKS.check("malformed scenario: exit 2 with line and column",
          r.returncode == 2 and "malformed JSON at line 2, column 24" in r.stderr, r.stderr)

    path = write(tmp, "good.json", good)
    out_json, out_csv = os.path.join(tmp, "r.json"), os.path.join(tmp, "r.csv")
    r = run("run", path, "--json", out_json, "--csv", out_csv, "--quiet")
    CHECKS.check("--quiet prints no table", r.returncode == 0 and r.stdout == "", r.stdout + r.stderr)
    with open(out_json, encoding="utf-8") as f:
        result = json.load(f)
    CHECKS.check("result JSON carries its schema", result.get("format") == "sgdsim-result"
          and result.get("schema_version") == 2 and len(result["policies"]) == 6, str(result)[:200])
    CHECKS.check("result JSON has the per-message breakdown",
          result["policies"][0]["message_breakdown"][0]["layers"] == "L4", "")
    with open(out_csv, encoding="utf-8") as f:
        rows = f.read().splitlines()
    CHECKS.check("CSV: a plain header and one row per policy, the schema version last",
          len(rows) == 7 and rows[0].startswith("scenario,model,batch_size,gpus,")
          and rows[0].endswith(",schema_version") and all(row.endswith(",2") for row in rows[1:]),
          "\n".join(rows[:3]))
    CHECKS.check("messages CSV written beside it", os.path.exists(os.path.join(tmp, "r_messages.csv")), "")

    first = open(out_json, encoding="utf-8").read()
    run("run", path, "--json", out_json, "--quiet")
    CHECKS.check("same scenario, byte-identical JSON", open(out_json, encoding="utf-8").read() == first, "")

    # "packet" is the flow level's old name: same result, plus a note on standard error.
    flow_json, packet_json = os.path.join(tmp, "flow.json"), os.path.join(tmp, "packet.json")
    r_flow = run("run", write(tmp, "flow_s.json", dict(good, fidelity="flow")), "--json", flow_json,
                 "--quiet")
    r = run("run", write(tmp, "packet_s.json", dict(good, fidelity="packet")), "--json",
            packet_json, "--quiet")
    CHECKS.check("fidelity packet runs as flow, with a note",
          r.returncode == 0 and r_flow.returncode == 0
          and 'note: fidelity "packet" is the old name of "flow"' in r.stderr
          and "note:" not in r_flow.stderr
          and json.load(open(packet_json, encoding="utf-8"))["policies"]
          == json.load(open(flow_json, encoding="utf-8"))["policies"], r.stderr + r_flow.stderr)

    unwritable = os.path.join(tmp, "no-such-folder", "r.json")
    r = run("run", path, "--json", unwritable, "--quiet")
    CHECKS.check("unwritable output: exit 2, nothing left behind",
          r.returncode == 2 and "cannot write output file" in r.stderr
          and not os.path.exists(unwritable + ".partial"), r.stderr)

    r = run("trace", "show", trace)
    CHECKS.check("trace show prints totals", r.returncode == 0
          and "total: 4 layers, 1250 gradient elements" in r.stdout, r.stdout + r.stderr)

    r = run("trace", "show", os.path.join(ROOT, "tests", "data", "bcaffe_small.log"))
    CHECKS.check("trace show on a non-JSON file: exit 2", r.returncode == 2
          and "malformed JSON" in r.stderr, r.stderr)

    # Sweeps: threaded and (when available) MPI runs give byte-identical CSV.
    sweep = dict(good, iterations=1, sweep={"cluster.gpus": {"from": 2, "to": 256, "times": 2},
                                            "network.bandwidth_gbps": [10, 100]})
    path = write(tmp, "sweep.json", sweep)
    threaded, serial = os.path.join(tmp, "t.csv"), os.path.join(tmp, "s.csv")
    r = run("sweep", path, "--csv", threaded, "--json", os.path.join(tmp, "t.json"))
    rows = open(threaded, encoding="utf-8").read().splitlines()
    CHECKS.check("sweep writes a header and one row per point and policy",
                 r.returncode == 0 and len(rows) == 1 + 16 * 6
                 and rows[0].startswith("cluster.gpus,network.bandwidth_gbps,"),
                 r.stderr + "\n".join(rows[:2]))
    document = json.load(open(os.path.join(tmp, "t.json"), encoding="utf-8"))
    CHECKS.check("the sweep's JSON has the same rows, then the counts",
                 len(document["rows"]) == 16 * 6 and document["finished_points"] == 16
                 and document["failed_points"] == [] and document["rows"][0]["cluster.gpus"] == 2,
                 str(list(document)))
    r = run("sweep", path, "--csv", serial, "--threads", "1")
    CHECKS.check("one thread gives the same bytes as all cores",
          open(serial, encoding="utf-8").read() == open(threaded, encoding="utf-8").read(), r.stderr)
    r = run("sweep", path)
    CHECKS.check("without --csv the rows go to stdout", r.returncode == 0
          and r.stdout == open(threaded, encoding="utf-8").read(), r.stderr)
    mpirun = shutil.which("mpirun")
    if mpirun and "MPI sweeps: yes" in run("--version").stdout:
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1")
        distributed = os.path.join(tmp, "mpi.csv")
        r = subprocess.run([mpirun, "--oversubscribe", "-n", "2", SGDSIM, "sweep", path, "--csv",
                            distributed, "--threads", "1"], cwd=ROOT, capture_output=True,
                           text=True, env=env)
        CHECKS.check("mpirun -n 2 gives the same CSV byte for byte", r.returncode == 0
              and open(distributed, encoding="utf-8").read() == open(threaded, encoding="utf-8").read()
              and "x 2 ranks" in r.stderr, r.stdout + r.stderr)
    else:
        print("SKIPPED: mpirun not found or sgdsim built without MPI; the MPI comparison did "
              "not run")

    # Signals. One thread runs the points in order: 2 and 4 GPUs finish at once (36,000
    # rank-iterations: under 0.1 s, about 1 s under ASan); 2^20 GPUs at per_rank fidelity with
    # jitter for 1,000 iterations (10^9 rank-iterations per policy) takes many minutes, so a
    # signal sent once the first two points' rows are on disk (CSV.partial, streamed as points
    # finish) always lands while the slow point runs. (100,000 iterations made the first two
    # points take 50 s under ASan, four times over.)
    slow = dict(good, iterations=1000, fidelity="per_rank", compute={"jitter_cv": 0.05},
                sweep={"cluster.gpus": [2, 4, 1 << 20]})
    slow_path = write(tmp, "slow.json", slow)
    finished_lines = 1 + 2 * 6  # header, 2 points x 6 policies

    def sweep_until_streamed(csv):
        process = subprocess.Popen([SGDSIM, "sweep", slow_path, "--csv", csv, "--threads", "1"],
                                   cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True)
        while process.poll() is None:  # the sweep is killed below once its rows are on disk
            try:
                with open(csv + ".partial", encoding="utf-8") as f:
                    if len(f.read().splitlines()) >= finished_lines:
                        break
            except FileNotFoundError:
                pass
            time.sleep(0.01)
        return process

    for signals in ([signal.SIGTERM], [signal.SIGHUP], [signal.SIGINT, signal.SIGINT]):
        csv = os.path.join(tmp, f"stopped_{signals[0].name}_{len(signals)}.csv")
        process = sweep_until_streamed(csv)
        for number in signals:
            process.send_signal(number)
        _, err = process.communicate()
        lines = open(csv, encoding="utf-8").read().splitlines() if os.path.exists(csv) else []
        CHECKS.check(f"{' then '.join(s.name for s in signals)} stops a sweep in a slow point: "
                     "exit 130, finished rows kept and marked, no partial file",
                     process.returncode == 130 and len(lines) == finished_lines + 1
                     and lines[-1] == "# interrupted: 2 of 3 points finished"
                     and not os.path.exists(csv + ".partial")
                     and ("stopped by a signal" in err or "sweep: interrupted" in err),
                     f"exit {process.returncode}: {err} {lines[-2:]}")
    csv = os.path.join(tmp, "killed.csv")
    process = sweep_until_streamed(csv)
    process.kill()
    process.communicate()
    streamed = open(csv + ".partial", encoding="utf-8").read().splitlines()
    CHECKS.check("a sweep killed outright leaves its finished rows in CSV.partial",
                 len(streamed) == finished_lines
                 and streamed[0].startswith("cluster.gpus,scenario,model,")
                 and not os.path.exists(csv), "\n".join(streamed[:3]))

    # Out of memory is a simulation that cannot finish (exit 3), not a bug. Averaging over a run
    # of 10^7 iterations holds about 110 MB (docs/guide.md, "Limits"); under a 64 MB
    # address-space limit it cannot, while the plain scenario runs. A sanitizer build reserves
    # terabytes of address space for its shadow memory, so no limit can apply there.
    if "ASAN_OPTIONS" in os.environ or "TSAN_OPTIONS" in os.environ:
        print("SKIPPED: out-of-memory check under a sanitizer")
    else:
        import resource

        def limit_memory():
            resource.setrlimit(resource.RLIMIT_AS, (64 << 20, 64 << 20))

        long_run = dict(good, communication={"averaging": {
            "run_iterations": 10_000_000, "schedules": [{"schedule": "constant", "period": 1}]}})
        for name, scenario, code in (("small", good, 0), ("long", long_run, 3)):
            path = write(tmp, f"memory_{name}.json", scenario)
            r = subprocess.run([SGDSIM, "run", path, "-q"], capture_output=True, text=True, preexec_fn=limit_memory)
            CHECKS.check(f"under a 64 MB limit the {name} scenario: exit {code}",
                         r.returncode == code and (code == 0 or "out of memory" in r.stderr),
                         f"exit {r.returncode}: {r.stderr}")

        # A sweep's memory does not grow with its grid: 72,000 points (10 GPU counts x 120
        # bandwidths x 60 latencies) write 72,000 CSV rows (about 9 MB) and JSON rows (about
        # 50 MB) in point order as they finish. Holding the points' scenarios and rows to the end took 402 MB of memory
        # (measured); under a 300 MB address-space limit the sweep must still finish.
        def limit_sweep_memory():
            resource.setrlimit(resource.RLIMIT_AS, (300 << 20, 300 << 20))

        grid = dict(good, communication={"merge": {"policy": "none"}},
                    sweep={"cluster.gpus": {"from": 4, "to": 2048, "times": 2},
                           "network.bandwidth_gbps": {"from": 1, "to": 120, "step": 1},
                           "network.latency_us": {"from": 1, "to": 60, "step": 1}})
        path, big_csv = write(tmp, "grid.json", grid), os.path.join(tmp, "grid.csv")
        big_json = os.path.join(tmp, "grid_sweep.json")
        r = subprocess.run([SGDSIM, "sweep", path, "--threads", "2", "--csv", big_csv,
                            "--json", big_json],
                           capture_output=True, text=True,
                           preexec_fn=limit_sweep_memory)
        rows = sum(1 for _ in open(big_csv, encoding="utf-8")) if r.returncode == 0 else 0
        streamed = json.load(open(big_json, encoding="utf-8")) if r.returncode == 0 else {}
        CHECKS.check("a 72,000-point sweep runs in 300 MB: its rows are streamed, not held",
                     r.returncode == 0 and rows == 72_000 + 1  # and the header
                     and streamed["finished_points"] == len(streamed["rows"]) == 72_000,
                     f"exit {r.returncode}: {r.stderr}")

    # A write that fails while a sweep streams its rows (a full disk) is bad output: exit 2 with
    # the file and the reason, the points still to run are not started, no partial file stays.
    if os.path.exists("/dev/full"):
        r = run("sweep", os.path.join(ROOT, "studies", "mgwfbp_scaling.json"), "--csv", "/dev/full")
        CHECKS.check("a sweep whose CSV cannot be written: exit 2, naming it",
                     r.returncode == 2 and "/dev/full: cannot write output file: No space left on "
                     "device" in r.stderr, f"exit {r.returncode}: {r.stderr}")

    bad_sweep = dict(good, sweep={"cluster.gpu": [4, 8]})
    path = write(tmp, "badsweep.json", bad_sweep)
    out = os.path.join(tmp, "bad.csv")
    r = run("sweep", path, "--csv", out)
    CHECKS.check("a sweep key naming no setting: exit 2, no output file",
          r.returncode == 2 and "sweep.cluster.gpu: this key does not name a valid scenario setting"
          in r.stderr and not os.path.exists(out) and not os.path.exists(out + ".partial"), r.stderr)

    timeline = os.path.join(tmp, "timeline.json")
    r = run("run", os.path.join(ROOT, "scenarios", "default.json"), "-q", "--timeline", timeline)
    with open(timeline, encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    CHECKS.check("--timeline writes Chrome-trace events", r.returncode == 0
          and any(e.get("cat") == "communication" for e in events), r.stderr)

    # Calibration from benchmark output.
    osu = write(tmp, "osu.log", "# OSU MPI Allreduce Latency Test\n# Size  Avg Latency(us)\n"
                "16384 120.0\n32768 140.0\n65536 180.0\n131072 260.0\n")
    r = run("calibrate", osu, "--gpus", "4")
    # Points on t = 100 us + 16384 B * 1.220703125 ns/B exactly: a = 100, b = 0.00122 us/B.
    CHECKS.check("calibrate fits a line and prints a scenario snippet", r.returncode == 0
          and "t = 100.000 us + 1.22070 ns/byte" in r.stdout
          and '"measured_allreduce": [{"gpus": 4, "alpha_us": 100.000' in r.stdout, r.stdout + r.stderr)
    r = run("calibrate", osu)
    CHECKS.check("calibrate without a GPU count: exit 2", r.returncode == 2
          and "give it with --gpus N" in r.stderr, r.stderr)
    r = run("calibrate", osu, "--gpus", "4", "--min-bytes", "65536")
    CHECKS.check("calibrate with too few points: exit 2", r.returncode == 2 and
          "expected at least 3 measurements between 65536 and 1048576 bytes, found 2" in r.stderr,
          r.stderr)
    # The public two-2080 Ti run without P2P, on the node it ran on: its fit's 30.916 Gbit/s
    # per hop is the rings' min(5, 6 e) GB/s at e = 30.916 / 48 = 0.644 (node_topology_test).
    pair = write(tmp, "pair.json", json.dumps({
        "format": "sgdsim-node", "version": 1, "p2p": "disabled", "cpus": [{"name": "cpu0"}],
        "switches": [{"name": "sw0", "parent": "cpu0", "pcie": "3.0 x16"}],
        "gpus": [{"name": f"gpu{i}", "parent": "sw0", "pcie": "3.0 x16", "gdr": "disabled"}
                 for i in range(2)]}))
    r = run("calibrate", os.path.join(ROOT, "tests", "data", "nccl_tests_2080ti_x2_shm.txt"),
            "--full-range", "--node", pair)
    CHECKS.check("calibrate --node gives the read fraction a run inside the node implies",
                 r.returncode == 0 and '"host_read_efficiency": 0.644' in r.stdout,
                 r.stdout + r.stderr)
    # The same run against the 4-GPU preset it came from: priced on its first two GPUs, alike.
    r = run("calibrate", os.path.join(ROOT, "tests", "data", "nccl_tests_2080ti_x2_shm.txt"),
            "--full-range", "--node", "geforce_pcie3_4gpu")
    CHECKS.check("calibrate --node on a larger node fits the run's first GPUs",
                 r.returncode == 0 and '"host_read_efficiency": 0.644' in r.stdout,
                 r.stdout + r.stderr)
    shuffled = write(tmp, "shuffled.log", "16384 120.0\n65536 180.0\n32768 140.0\n")
    r = run("calibrate", shuffled, "--gpus", "4")
    CHECKS.check("calibrate with sizes that do not increase: exit 2", r.returncode == 2 and
          "shuffled.log:3: expected message sizes that increase, found 32768 bytes after 65536"
          in r.stderr, r.stderr)

    # Two link classes: a run inside an 8-GPU node on t = 14 us + 0.0175 ns/B x S and one over
    # 4 such nodes on t = 110 us + 0.155 ns/B x S (exact points). Inside: 14 / (2 x 7) = 1 us
    # per hop; across: (110 - 2 x 28 x 1) / (2 x 3) = 9 us per node crossing, and
    # 0.155 x 32 / 62 = 0.08 ns/B = 100 Gbit/s.
    def osu_log(name, a, b):
        sizes = [16384 << i for i in range(7)]
        return write(tmp, name, "# OSU MPI Allreduce Latency Test\n# Size  Avg Latency(us)\n" +
                     "".join(f"{size} {a + b * size / 1000:.4f}\n" for size in sizes))
    intra = osu_log("intra.log", 14.0, 0.0175)
    inter = osu_log("inter.log", 110.0, 0.155)
    r = run("calibrate", inter, "--gpus", "32", "--gpus-per-node", "8", "--intra-node", intra)
    CHECKS.check("calibrate fits a node and the network apart", r.returncode == 0
                 and "in a node: 1.000 us per hop" in r.stdout
                 and "ring link: 9.000 us per node crossing (56 intra-node steps at 1.000 us), "
                 "100.000 Gbps" in r.stdout
                 and '[{"gpus": 8, "gpus_per_node": 8, "alpha_us": 14.000' in r.stdout,
                 r.stdout + r.stderr)
    r = run("calibrate", inter, "--gpus", "32", "--intra-node", intra)
    CHECKS.check("an intra-node fit without the node's GPU count: exit 2", r.returncode == 2
                 and "--intra-node needs --gpus-per-node G" in r.stderr, r.stderr)

    # nccl-tests on one host: the GPUs per node come from the rank lines; the full range fits
    # every size by relative error and --sizes prints each size's check.
    nccl = os.path.join(ROOT, "tests", "data", "nccl_tests_2080ti_x2_shm.txt")
    r = run("calibrate", nccl, "--full-range", "--sizes")
    CHECKS.check("calibrate reads a node's GPUs from nccl-tests' rank lines, fits the full range",
                 r.returncode == 0 and "2 GPUs, inside one node, from its rank lines" in r.stdout
                 and "28 of 28 measurements (the full range)" in r.stdout
                 and r.stdout.count(" B  measured ") == 28 and "check:     within 10% on" in r.stdout
                 and '"gpus_per_node": 2' in r.stdout, r.stdout + r.stderr)

    # A real node's topology: imported, shown, and used by a scenario.
    smi = os.path.join(ROOT, "tests", "data", "topology", "dgx1_v100_nvidia-smi_topo.txt")
    node_file = os.path.join(tmp, "dgx1_node.json")
    r = run("topology", "import", smi, "-o", node_file, "--name", "our DGX-1")
    shown = run("topology", "show", node_file)
    CHECKS.check("nvidia-smi topo -m imports as a node description that shows its rings",
                 r.returncode == 0 and "8 GPUs, 4 NICs; rings 960.0 Gbit/s" in r.stderr
                 and shown.returncode == 0 and "node:    our DGX-1" in shown.stdout
                 and "cluster.intra_node_bandwidth_gbps 960.0" in shown.stdout,
                 r.stderr + shown.stdout + shown.stderr)
    with_node = dict(good, cluster={"gpus": 16, "node": node_file})
    r = run("run", write(tmp, "with_node.json", with_node), "--json", "-")
    result = json.loads(r.stdout) if r.returncode == 0 else {}
    CHECKS.check("a scenario names the imported node: 8 GPUs per node from it",
                 result.get("gpus_per_node") == 8
                 and result.get("provenance", {}).get("resolved", {}).get("cluster", {})
                 .get("node") == node_file
                 and any(i.get("path", "").endswith("dgx1_node.json")
                         for i in result.get("provenance", {}).get("inputs", [])),
                 r.stdout[:300] + r.stderr)
    # GeForce cards: --no-p2p --no-gdr; the NIC's traffic is then read from host memory, at
    # 24 GB/s x 35.19 / 52.77 (nvbandwidth #24) = 128.04 Gbit/s over sw0's PCIe 4.0 uplink.
    smi4090 = os.path.join(ROOT, "tests", "data", "topology",
                           "rtx4090x8_2socket_pcie_switch_nvidia-smi_topo.txt")
    geforce_file = os.path.join(tmp, "geforce_node.json")
    r = run("topology", "import", smi4090, "-o", geforce_file, "--pcie", "4.0 x16", "--sm", "89",
            "--no-p2p", "--no-gdr")
    shown = run("topology", "show", geforce_file)
    with open(geforce_file, encoding="utf-8") as f:
        geforce_gpus = json.load(f).get("gpus", []) if r.returncode == 0 else []
    CHECKS.check("topology import --no-gdr writes GPUs without GPUDirect RDMA, and show caps "
                 "the NIC at their reads of host memory",
                 r.returncode == 0 and geforce_gpus
                 and all(g.get("gdr") == "disabled" for g in geforce_gpus)
                 and "paths cap it at 128.0" in shown.stdout
                 and "GPUDirect RDMA                    no" in shown.stdout,
                 r.stderr + shown.stdout + shown.stderr)
    # A DGX-1's GPUDirect NICs over sockets: four NICs, each at one GPU's reads of host memory
    # over its 12 GB/s switch link, 4 x 12 x 35.19 / 52.77 x 8 = 256.1 Gbit/s (384 with GDR).
    shown = run("topology", "show", "dgx1_v100")
    CHECKS.check("topology show gives a GPUDirect node's NIC cap over sockets too",
                 shown.returncode == 0 and "paths cap it at 384.0" in shown.stdout
                 and "over sockets (tcp, ipoib)         256.1" in shown.stdout,
                 shown.stdout + shown.stderr)
    # Its first two GPUs alone: the one NVLink between GPU 0 and 1, 20 GB/s, 160 Gbit/s.
    shown = run("topology", "show", "dgx1_v100", "--gpus", "2")
    CHECKS.check("topology show --gpus gives the rings of the node's first GPUs",
                 shown.returncode == 0 and "20.00 GB/s  0 1" in shown.stdout
                 and "intra_node_bandwidth_gbps 160.0" in shown.stdout,
                 shown.stdout + shown.stderr)
    # BytePS's two groups on the server of two PCIe 3.0 switches of four: each rings under its
    # switch (P2P, 12 GB/s: 96 Gbit/s) and copies through its 12 GB/s uplink (96).
    shown = run("topology", "show", "pcie3_2socket_2switch_8gpu")
    CHECKS.check("topology show gives BytePS's two groups",
                 shown.returncode == 0
                 and "BytePS in two groups of 4 GPUs (communication.collective.pcie_switch_size "
                 "4): rings 96.0 Gbit/s a GPU, copies to host memory 96.0 Gbit/s a group"
                 in shown.stdout,
                 shown.stdout + shown.stderr)
    # A job inside one node leaves the network out: the table says so, the result's network
    # figures are null and the CSV's cells empty (tests/plots_test.py draws such a result).
    one_node = dict(good, cluster={"gpus": 4, "node": "geforce_pcie3_4gpu"})
    one_node.pop("network", None)
    one_json, one_csv = os.path.join(tmp, "one.json"), os.path.join(tmp, "one.csv")
    r = run("run", write(tmp, "one_node.json", one_node), "--json", one_json, "--csv", one_csv)
    one = {}
    if r.returncode == 0:
        with open(one_json, encoding="utf-8") as f:
            one = json.load(f)
        with open(one_csv, encoding="utf-8") as f:
            one_rows = f.read().splitlines()
    CHECKS.check("a one-node job without a network: 'network none', null figures, empty cells",
                 r.returncode == 0
                 and "network    none: one node, whose collectives never leave it" in r.stdout
                 and one.get("bandwidth_gbps", 0) is None and one.get("goodput_gbps", 0) is None
                 and one["provenance"]["resolved"]["network"] is None
                 and len(one_rows) == 7  # the header, then the six policies
                 and all(",4,,,\"ring_allreduce\"," in row for row in one_rows[1:]),
                 r.stdout + r.stderr)
    # One GPU: nothing to communicate, every policy ByteScheduler's included at compute alone
    # (speedup 1.00; ByteScheduler stopped on an internal check there once).
    single = dict(good, cluster={"gpus": 1})
    single.pop("network", None)
    single["communication"] = {"merge": {"policy": ["none", "bytescheduler"]}}
    r = run("run", write(tmp, "single.json", single))
    rows = [line for line in r.stdout.splitlines() if line.startswith(("WFBP", "ByteScheduler"))]
    CHECKS.check("one GPU runs every policy, ByteScheduler's too, at compute alone",
                 r.returncode == 0 and len(rows) == 2
                 and all(row.split()[4] == "1.00" for row in rows), r.stdout + r.stderr)
    # per_rank's GPUs faster than the trace's, one of them alone: an iteration of half the
    # trace's compute, nothing exposed (sgdsim stopped on an internal check there once).
    fast = dict(single, fidelity="per_rank",
                compute={"groups": [{"first_rank": 0, "last_rank": 0, "scale": 0.5}]})
    fast["communication"] = {"merge": {"policy": "none"}}
    r = run("run", write(tmp, "fast.json", fast))
    rows = [line.split() for line in r.stdout.splitlines()
            if line.startswith("WFBP") and len(line.split()) == 9]  # the policies' table
    CHECKS.check("per_rank GPUs faster than the trace: twice the one-GPU speed, nothing exposed",
                 r.returncode == 0 and len(rows) == 1 and rows[0][4] == "2.00"
                 and rows[0][7] == "0.000", r.stdout + r.stderr)
    r = run("topology", "list")
    CHECKS.check("topology list names every preset with its source",
                 r.returncode == 0 and "pcie3_2socket_8gpu" in r.stdout
                 and r.stdout.count("source: ") >= 17, r.stdout + r.stderr)
    # A node left unstated: the range over the presets of its size, after the table and in JSON.
    unstated = dict(good, cluster={"gpus": 8, "gpus_per_node": 4})
    r = run("run", write(tmp, "unstated.json", unstated), "--json", os.path.join(tmp, "u.json"))
    with open(os.path.join(tmp, "u.json"), encoding="utf-8") as f:
        node_range = json.load(f).get("node_range") or {}
    CHECKS.check("an unstated node gets a range over the 4-GPU presets",
                 r.returncode == 0 and "over the 4-GPU node presets" in r.stderr
                 and node_range.get("low_preset") == "geforce_pcie3_4gpu"
                 and node_range.get("gpus_per_node") == 4, r.stderr)
    # A transport's default cap per connection deciding the network: the range as a note.
    r = run("run", "-q", os.path.join(ROOT, "scenarios", "resnet50_geforce_ipoib_100gb.json"))
    CHECKS.check("a transport's default cap gets a range note naming the key that narrows it",
                 r.returncode == 0 and "one connection plausibly reaches 7.19 to 35.00 Gbit/s"
                 in r.stderr and "network.flow_cap_gbps" in r.stderr, r.stderr)

    # A node that copies through host memory: the range over the GPUs' read rates, as a note
    # and in JSON (rings 12 to 20 Gbit/s, tests/unit/node_range_test.cpp).
    through_host = dict(good, cluster={"gpus": 8, "node": "geforce_pcie3_4gpu"},
                        network={"bandwidth_gbps": 100, "transport": "rdma"})
    r = run("run", write(tmp, "through_host.json", through_host), "--json",
            os.path.join(tmp, "h.json"))
    with open(os.path.join(tmp, "h.json"), encoding="utf-8") as f:
        host_read = json.load(f).get("host_read_range") or {}
    CHECKS.check("a node copying through host memory gets a range over its GPUs' read rates",
                 r.returncode == 0 and "cluster.host_read_efficiency" in r.stderr
                 and abs(host_read.get("intra_node_low_gbps", 0) - 12.0) < 1e-6
                 and abs(host_read.get("intra_node_high_gbps", 0) - 20.0) < 1e-6, r.stderr)

    # Importers.
    imported = os.path.join(tmp, "imported.json")
    r = run("trace", "import", os.path.join(ROOT, "tests", "data", "bcaffe_small.log"), "--from",
            "bcaffe", "--batch", "64", "-o", imported)
    CHECKS.check("a B-Caffe log imports into a valid trace", r.returncode == 0
          and run("trace", "show", imported).returncode == 0, r.stderr)
    truncated = write(tmp, "graph.txt", "node1 -- Conv2d(3, 8) -- forward_compute_time=1.0, "
                      "backward_compute_time=2.0, activation_size=10.0, parameter_size=864.0\n"
                      "\tnode1 -- node2\n")
    r = run("trace", "import", truncated, "--from", "pipedream", "--batch", "8", "-o", imported + "2")
    CHECKS.check("a truncated PipeDream graph: exit 2, one line, no file", r.returncode == 2
          and "edge node1 -- node2 names a node that is not defined" in r.stderr
          and len(r.stderr.strip().splitlines()) == 1 and not os.path.exists(imported + "2"), r.stderr)
    r = run("trace", "import", os.path.join(ROOT, "tests", "data", "four_layers.json"), "--from",
            "pipedream", "--batch", "8", "-o", imported + "3")
    CHECKS.check("a foreign file given to an importer: exit 2", r.returncode == 2
          and "expected a PipeDream node" in r.stderr, r.stderr)

    # ASTRA-sim's ResNet-50 example as ASTRA-sim 2.0 ran it (durations as 1 ns cycles): the
    # committed trace is what the importer writes from the committed ET.
    et = "tests/data/astra_resnet50_data_parallel.et"  # relative: the trace names it so
    cycles = os.path.join(tmp, "cycles.json")
    r = run("trace", "import", et, "--from", "chakra", "--time-unit", "ns", "--model", "resnet50",
            "-o", cycles)
    with open(os.path.join(ROOT, "traces", "astra_resnet50_cycles.json"), encoding="utf-8") as f:
        committed = f.read()
    CHECKS.check("the cycles trace is the ET imported with --time-unit ns", r.returncode == 0
          and open(cycles, encoding="utf-8").read() == committed, r.stderr)
    r = run("trace", "import", os.path.join(ROOT, "tests", "data", "bcaffe_small.log"), "--from",
            "bcaffe", "--batch", "64", "--time-unit", "ns", "-o", imported + "4")
    CHECKS.check("--time-unit for a format with its own unit: exit 2, no file", r.returncode == 2
          and "--time-unit: a bcaffe profile states its own time unit" in r.stderr
          and not os.path.exists(imported + "4"), r.stderr)

    # ASTRA-sim's published totals for that workload (its README at commit 916a120: 6,749,042
    # cycles; at 3390ecf: 187,442,108 cycles, 1 cycle = 1 ns) reproduced within 0.1% at both
    # fidelities: the first issue at 389,258 ns plus every chunk's collective back to back
    # (the stream never idles after it), 4 chunks of halving-doubling / 1 chunk of ring.
    def astra_ns(name, fidelity, chunks=None):
        """Iteration time in ns of scenarios/NAME.json at a fidelity (and chunk count)."""
        with open(os.path.join(ROOT, "scenarios", name + ".json"), encoding="utf-8") as f:
            scenario = json.load(f)
        scenario["trace"] = os.path.join(ROOT, "traces", "astra_resnet50_cycles.json")
        scenario["fidelity"] = fidelity
        if chunks is not None:
            scenario["communication"]["collective"]["chunks"] = chunks
        path = write(tmp, f"{name}_{fidelity}_{chunks}.json", scenario)
        r = run("run", "-q", "--json", path + ".out", path)
        if r.returncode != 0:
            return None, r.stderr
        return json.load(open(path + ".out"))["policies"][0]["iteration_us"] * 1e3, ""

    ns = {}
    for name, published in (("astra_resnet50_switch_hd", 6_749_042),
                            ("astra_resnet50_ring", 187_442_108)):
        for fidelity in ("analytic", "flow"):
            ns[name, fidelity], error = astra_ns(name, fidelity)
            CHECKS.check(f"{name} at {fidelity} fidelity within 0.1% of ASTRA-sim's {published:,}",
                         ns[name, fidelity] is not None
                         and abs(ns[name, fidelity] - published) <= 1e-3 * published,
                         f"{ns[name, fidelity]} ns; {error}")
    # Without the chunks (one halving-doubling per tensor) 3 of every 4 chunks' 12 step latencies
    # of 1.01 us go, and nothing else (the stream is never idle, so the total is the first issue
    # plus every collective): 54 x 3 x 12 x 1.01 us = 1,963,440 ns less.
    unchunked, error = astra_ns("astra_resnet50_switch_hd", "analytic", chunks=1)
    chunked = ns["astra_resnet50_switch_hd", "analytic"]
    CHECKS.check("without chunks the switch run is 54 x 3 x 12 x 1.01 us shorter",
                 unchunked is not None and chunked is not None
                 and abs((chunked - unchunked) - 1_963_440) < 1.0, f"{unchunked} ns; {error}")

    # On a terminal a run draws its progress line from a watcher thread, which must end with the
    # run (it once waited for ever). Whether a line is drawn at all depends on the machine's speed
    # (after 2 s), so only this is asserted: the run ends, and a line drawn is erased at the end.
    leader, follower = pty.openpty()
    process = subprocess.Popen([SGDSIM, "run", "scenarios/default.json", "-q"], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=follower)
    os.close(follower)
    drawn = b""
    while True:  # until the run closes the terminal or ends
        if select.select([leader], [], [], 1.0)[0]:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the run ended and closed the terminal
                chunk = b""
            drawn += chunk
            if not chunk:
                break
        elif process.poll() is not None:
            break
    os.close(leader)
    code = process.wait()
    CHECKS.check("a run with standard error on a terminal ends, its progress line erased",
                 code == 0 and (b"iterations simulated" not in drawn
                                or drawn.rindex(b"\r\x1b[K") > drawn.rindex(b"iterations simulated")),
                 f"exit {code}: {drawn[-300:]!r}")

    # A measured curve as Excel's "CSV UTF-8" writes it (a byte-order mark, quoted names, CRLF)
    # is read; a value the CSV lacks (no train_loss column, a loss target's accuracy) stays
    # missing: no "loss" in its points and a null final accuracy, never 0.0.
    with open(os.path.join(tmp, "excel.csv"), "w", encoding="utf-8-sig", newline="") as out:
        out.write('"iteration","loss"\r\n100,"0.9"\r\n200,0.45\r\n')
    measured = dict(good, convergence={"task": "measured", "target": {"loss": 0.5},
                                       "curves": {"none": "excel.csv"}})
    path = write(tmp, "measured.json", measured)
    result_path = os.path.join(tmp, "measured_result.json")
    r = run("run", path, "-q", "--json", result_path)
    configurations = (json.load(open(result_path, encoding="utf-8"))["convergence"]["configurations"]
                      if r.returncode == 0 else [])
    CHECKS.check("a curve with a byte-order mark, quoted names and CRLF is read",
                 r.returncode == 0 and [c["iterations_to_target"] for c in configurations] == [200],
                 r.stderr)
    CHECKS.check("values a curve lacks stay missing",
                 configurations and configurations[0]["final_test_accuracy"] is None
                 and configurations[0]["final_test_loss"] == 0.45
                 and all("loss" not in p and "variance" not in p
                         for p in configurations[0]["curve"]), configurations)

    # The probe (CPU timing here) writes a profile that a scenario can use.
    probe = os.path.join(os.path.dirname(SGDSIM), "..", "tools", "gpu_probe", "gpu_probe")
    if os.path.exists(probe):
        profile = os.path.join(tmp, "profile.json")
        r = subprocess.run([probe, "--device", "cpu", "--max-log2", "14", "--repeats", "2", "-o",
                            profile], capture_output=True, text=True)
        CHECKS.check("gpu_probe writes a CPU profile", r.returncode == 0 and os.path.exists(profile), r.stderr)
        scenario = dict(good, communication={"compression": {"name": "topk", "density": 0.01},
                                             "compression_profile": profile})
        path = write(tmp, "profiled.json", scenario)
        r = run("run", path, "-q")
        CHECKS.check("a scenario prices compression with the probe's profile", r.returncode == 0, r.stderr)
        r = subprocess.run([probe, "--device", "cpu", "--min-log2", "20", "--max-log2", "12", "-o",
                            profile], capture_output=True, text=True)
        CHECKS.check("gpu_probe with an empty size range: exit 2", r.returncode == 2, r.stderr)
    else:
        print("SKIPPED: gpu_probe was not built")

CHECKS.finish()
