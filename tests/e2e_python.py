#!/usr/bin/python3
"""The Python module (python/, docs/python.md) from Python itself.

- gridvec.train on a slice of the dev corpus, in this process: the vectors'
  shape and words agree with the vectors file, they score on WordSim-353
  above a floor that random vectors fail, gensim's KeyedVectors get the
  same vectors; a bad option raises ValueError with the CLI's line.
- gridvec.Cluster against a real loopback cluster of `gridvec node`
  processes (a coordinator, two shard nodes, a learner node, the cluster
  secret on every connection): a job started, paused, resumed and
  cancelled; a job submitted to its end, its vectors file and report; the
  live shards' nearest and analogy; the nodes' list; shutdown stops them.
- The tables client on the same cluster: put/get with numpy arrays and
  string keys, push with Adagrad (the value and G checked against the
  formula), fetch, a columns matrix's dot, save, drop.
- `cmake --install` into a temporary prefix: the installed package imports
  from outside the checkout and trains.

Run by ctest (tests/CMakeLists.txt) with PYTHONPATH at the build tree's
python/ and GRIDVEC_BINARY, GRIDVEC_BUILD_DIR and CMAKE_COMMAND set. A
module that was not built is a failure, not a skip.
"""
import gzip
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")

try:
    import numpy as np
    import gridvec
except ImportError as e:
    sys.exit(f"FAIL: cannot import the gridvec Python module ({e}); it is built where pybind11-dev and "
             f"python3-dev are installed (scripts/install-deps.sh), into BUILD/python: PYTHONPATH="
             f"{os.environ.get('PYTHONPATH', '')}")

GRIDVEC = os.environ.get("GRIDVEC_BINARY", "")
if not os.access(GRIDVEC, os.X_OK):
    sys.exit(f"FAIL: GRIDVEC_BINARY ({GRIDVEC!r}) is not the gridvec binary")


def corpus_slice(path, lines):
    """The first `lines` lines of the dev corpus, written to `path`."""
    with gzip.open(os.path.join(DATA, "dev-corpus.txt.gz"), "rt", encoding="utf-8") as f, \
            open(path, "w", encoding="utf-8") as out:
        for i, line in enumerate(f):
            if i >= lines:
                break
            out.write(line)
    return path


def wordsim_spearman(words, vectors):
    """Spearman's rho of cosine similarity against WordSim-353's scores,
    over the pairs both in the vocabulary (case-insensitive, as gensim)."""
    index = {w.lower(): i for i, w in reversed(list(enumerate(words)))}
    unit = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    human, ours = [], []
    with open(os.path.join(DATA, "wordsim353.tsv"), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            a, b, score = line.rstrip("\n").split("\t")[:3]
            a, b = a.lower(), b.lower()
            if a in index and b in index:
                human.append(float(score))
                ours.append(float(unit[index[a]] @ unit[index[b]]))
    rank = lambda xs: np.argsort(np.argsort(np.array(xs)))
    return float(np.corrcoef(rank(human), rank(ours))[0, 1]), len(human)


def free_port(taken):
    """A port no one listens on, below the ephemeral range (as tests/cluster_lib.sh picks them)."""
    low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    for _ in range(200):
        port = random.randint(max(1024, low - 12000), low - 1)
        if port in taken:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        taken.add(port)
        return port
    raise RuntimeError("no free port")


def wait_until(what, predicate, seconds):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"not within {seconds} s: {what}")


class LoopbackCluster:
    """`gridvec node` processes on 127.0.0.1, as tests/cluster_lib.sh starts them."""

    NODES = [
        ("coord", ["roles = coordinator, vocabulary, exporter"]),
        ("shard-a", ["roles = shard", "shards = 1"]),
        ("shard-b", ["roles = shard", "shards = 1"]),
        ("learn-a", ["roles = learner", "learners = 1"]),
    ]

    def __init__(self, work):
        self.work = work
        self.config = os.path.join(work, "cluster.conf")
        self.procs = {}
        secret = os.path.join(work, "cluster.key")
        subprocess.run([GRIDVEC, "keygen", secret], check=True, stdout=subprocess.DEVNULL)
        taken = set()
        self.ports = {name: free_port(taken) for name, _ in self.NODES}
        lines = ["[cluster]", "heartbeat-ms = 300", "connect-timeout-ms = 3000", f"secret = {secret}",
                 "allow-read = /", "allow-write = /", f"table-dir = {work}/tables"]
        for name, spec in self.NODES:
            lines += [f"[node {name}]", "host = 127.0.0.1", f"port = {self.ports[name]}"] + spec
        with open(self.config, "w") as f:
            f.write("\n".join(lines) + "\n")

    def start(self):
        for name, _ in self.NODES:
            log = open(os.path.join(self.work, f"{name}.log"), "ab")
            self.procs[name] = subprocess.Popen([GRIDVEC, "node", "--config", self.config, "--name", name],
                                                stdout=log, stderr=subprocess.STDOUT)
            log.close()
        for name, _ in self.NODES:
            def listening():
                if self.procs[name].poll() is not None:
                    raise AssertionError(f"node {name} exited: {self.log_tail(name)}")
                with socket.socket() as s:
                    return s.connect_ex(("127.0.0.1", self.ports[name])) == 0
            wait_until(f"node {name} listens", listening, 20)

    def log_tail(self, name, lines=15):
        try:
            with open(os.path.join(self.work, f"{name}.log"), errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except OSError:
            return ""

    def logs(self):
        return "\n".join(f"--- {name}.log\n{self.log_tail(name)}" for name, _ in self.NODES)

    def stop(self):
        for proc in self.procs.values():
            if proc.poll() is None:
                proc.kill()
        for proc in self.procs.values():
            proc.wait()


class TrainInProcess(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="gridvec-python-")
        # 12000 lines: about 630k words, 13 s on 2 busy cores.
        cls.corpus = corpus_slice(os.path.join(cls.work, "corpus.txt"), 12000)
        cls.output = os.path.join(cls.work, "vectors.txt")
        started = time.monotonic()
        cls.model = gridvec.train(cls.corpus, output=cls.output, size=100, window=5, negative=5, min_count=5,
                                  iter=5, threads=2, sample=1e-3, shards=2, debug=0)
        cls.seconds = time.monotonic() - started

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.work, ignore_errors=True)

    def test_vectors_match_the_file(self):
        m = self.model
        self.assertEqual(m.vectors.dtype, np.float32)
        with open(self.output, encoding="utf-8") as f:
            count, dim = map(int, f.readline().split())
            first = f.readline().split(" ")
        self.assertEqual(m.vectors.shape, (count, 100))
        self.assertEqual(dim, 100)
        self.assertEqual(len(m.words), count)
        self.assertEqual(len(set(m.words)), count)
        self.assertEqual(m.words[0], first[0])  # the most frequent word first, as in the file
        np.testing.assert_allclose(m.vectors[0], np.array(first[1:101], dtype=np.float32), rtol=1e-5, atol=1e-6)
        self.assertEqual(m.summary["vocab_size"], count)
        self.assertEqual(m.summary["dim"], 100)
        self.assertEqual(m.summary["shards"], 2)
        self.assertGreater(m.summary["raw_words"], 500_000)
        self.assertTrue(np.isfinite(m.vectors).all())
        self.assertIn("the", m)

    def test_quality_above_a_floor(self):
        rho, pairs = wordsim_spearman(self.model.words, self.model.vectors)
        rng = np.random.default_rng(7)
        noise, _ = wordsim_spearman(self.model.words, rng.standard_normal(self.model.vectors.shape))
        print(f"\nin-process train: {self.seconds:.1f} s, {len(self.model)} words, wordsim353 rho {rho:.3f} "
              f"over {pairs} pairs (random vectors {noise:.3f})", file=sys.stderr)
        self.assertGreater(pairs, 100)
        # 0.24 with these flags (three runs); e2e_quality's floor for the
        # whole corpus is 0.18, random vectors score about 0 +- 0.06.
        self.assertGreater(rho, 0.18)
        self.assertLess(abs(noise), 0.1)
        # Neighbours that make sense: a number's nearest words include numbers.
        near = [w for w, _ in self.model.most_similar("two", topn=10)]
        self.assertTrue({"three", "four", "five", "one", "six", "seven", "eight"} & set(near), near)

    def test_keyedvectors(self):
        kv = self.model.to_keyedvectors()
        self.assertEqual(kv.index_to_key, self.model.words)
        np.testing.assert_array_equal(kv[self.model.words[5]], self.model.vectors[5])
        ours = self.model.most_similar("two", topn=5)
        theirs = kv.most_similar("two", topn=5)
        self.assertEqual([w for w, _ in ours], [w for w, _ in theirs])

    def test_temporary_output_and_a_list_of_files(self):
        # Two files as one corpus, no output file: the vectors come back all the same.
        half = os.path.join(self.work, "half.txt")
        corpus_slice(half, 1500)
        m = gridvec.train([half, half], size=16, iter=1, min_count=3, threads=2, debug=0)
        self.assertEqual(m.vectors.shape, (len(m.words), 16))
        self.assertGreater(m.summary["raw_words"], 2 * 50_000)

    def test_bad_flags_raise_value_error(self):
        with self.assertRaises(ValueError) as e:
            gridvec.train(self.corpus, sizee=10)
        line = str(e.exception)
        self.assertNotIn("\n", line)
        cli = subprocess.run([GRIDVEC, "train", "-train", self.corpus, "-output", os.path.join(self.work, "x"),
                              "--sizee=10"], capture_output=True, text=True)
        self.assertNotEqual(cli.returncode, 0)
        self.assertEqual(cli.stderr.strip(), "gridvec train: " + line)
        with self.assertRaises(ValueError) as e:
            gridvec.train(self.corpus, window=-3)
        self.assertIn("window", str(e.exception))

    def test_gil_released_and_ctrl_c(self):
        # In a process of its own: Python threads run while a job trains;
        # SIGINT (Ctrl-C) stops a long job with KeyboardInterrupt, nothing
        # written, and the next job in the same process runs.
        script = r"""
import os, sys, threading, time, gridvec
corpus, out = sys.argv[1], sys.argv[2]
ticks, stop = [0], threading.Event()
def count():
    while not stop.is_set():
        ticks[0] += 1
        time.sleep(0.01)
counter = threading.Thread(target=count)
counter.start()
started = time.monotonic()
gridvec.train(corpus, size=32, iter=2, min_count=5, threads=2, debug=0)
stop.set(); counter.join()
print("ticks", ticks[0], "in", round(time.monotonic() - started, 1), "s", flush=True)
print("ready", flush=True)
try:
    gridvec.train(corpus, output=out, size=32, iter=500, min_count=5, threads=2, debug=0)
    print("not interrupted", flush=True)
except KeyboardInterrupt:
    print("interrupted", os.path.exists(out), flush=True)
m = gridvec.train(corpus, size=16, iter=1, min_count=5, threads=2, debug=0)
print("trained again", m.vectors.shape[1], flush=True)
"""
        out = os.path.join(self.work, "interrupted.txt")
        proc = subprocess.Popen([sys.executable, "-c", script, self.corpus, out], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        try:
            ticks = proc.stdout.readline().split()
            self.assertEqual(proc.stdout.readline().strip(), "ready", proc.stderr.read() if proc.poll() else "")
            time.sleep(2)
            proc.send_signal(signal.SIGINT)
            rest, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        # A 100 Hz counter while the job trained (seconds): it ran beside it.
        self.assertEqual(ticks[0], "ticks", ticks)
        self.assertGreater(int(ticks[1]), 20 * float(ticks[3]), ticks)
        self.assertEqual(rest.splitlines(), ["interrupted False", "trained again 16"], err)

    def test_a_failing_job_raises(self):
        with self.assertRaises(gridvec.GridvecError) as e:
            gridvec.train(os.path.join(self.work, "no-such-corpus.txt"), debug=0)
        self.assertIn("no-such-corpus.txt", str(e.exception))


class ClusterAndTables(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.work = tempfile.mkdtemp(prefix="gridvec-python-cluster-")
        cls.corpus = corpus_slice(os.path.join(cls.work, "corpus.txt"), 4000)
        cls.nodes = LoopbackCluster(cls.work)
        try:
            cls.nodes.start()
            cls.cluster = gridvec.Cluster(cls.nodes.config)
        except BaseException:
            cls.nodes.stop()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.cluster = None
        cls.nodes.stop()
        shutil.rmtree(cls.work, ignore_errors=True)

    def fail_with_logs(self, message):
        self.fail(f"{message}\n{self.nodes.logs()}")

    def test_1_pause_resume_cancel(self):
        c = self.cluster
        # Long enough (40 epochs) to be caught in training.
        job = c.start(self.corpus, output=os.path.join(self.work, "long.txt"), size=32, iter=40, min_count=5,
                      debug=0)
        self.assertGreaterEqual(job, 1)
        wait_until("the job trains", lambda: c.status()["phase"] == "training", 60)
        self.assertTrue(c.pause())
        wait_until("the job is paused", lambda: c.status()["phase"] == "paused", 30)
        before = c.status()["processed_words"]
        time.sleep(1.0)
        self.assertEqual(c.status()["processed_words"], before, "words were trained while paused")
        self.assertTrue(c.resume())
        wait_until("the job trains again", lambda: c.status()["processed_words"] > before, 30)
        self.assertTrue(c.cancel())
        wait_until("the job is cancelled", lambda: c.status()["phase"] == "cancelled", 30)
        self.assertFalse(os.path.exists(os.path.join(self.work, "long.txt")))

    def test_2_submit_and_query(self):
        c = self.cluster
        output = os.path.join(self.work, "vectors.txt")
        report = os.path.join(self.work, "report.json")
        lines = []
        summary = c.submit(self.corpus, output=output, report=report, size=48, iter=3, min_count=5,
                           on_progress=lines.append)
        self.assertEqual(summary["dim"], 48)
        self.assertEqual(summary["shards"], 2)
        self.assertGreater(summary["vocab_size"], 1000)
        self.assertGreater(summary["raw_words"], 150_000)
        self.assertTrue(lines, "no progress lines came")
        with open(output, encoding="utf-8") as f:
            self.assertEqual(f.readline().split(), [str(summary["vocab_size"]), "48"])
        with open(report) as f:
            self.assertEqual(json.load(f)["vocab_size"], summary["vocab_size"])
        status = c.status()
        self.assertEqual(status["phase"], "done")
        # The live shards answer, with the nodes still up (submit keeps them).
        near = c.nearest("two", 8)
        self.assertEqual(len(near), 8)
        self.assertNotIn("two", [w for w, _ in near])
        scores = [s for _, s in near]
        self.assertEqual(scores, sorted(scores, reverse=True))
        self.assertTrue(all(-1.0 <= s <= 1.0001 for s in scores), scores)
        # The same neighbours as the vectors file gives (cosine over the same vectors).
        words, vectors = [], []
        with open(output, encoding="utf-8") as f:
            f.readline()
            for line in f:
                parts = line.rstrip("\n").split(" ")
                words.append(parts[0])
                vectors.append([float(x) for x in parts[1:49]])
        local = gridvec.Vectors(words, np.array(vectors, dtype=np.float32)).most_similar("two", topn=8)
        self.assertEqual([w for w, _ in near][:3], [w for w, _ in local][:3])
        analogy = c.analogy("one", "two", "three", 5)
        self.assertEqual(len(analogy), 5)
        self.assertFalse({"one", "two", "three"} & {w for w, _ in analogy})
        nodes = {n["name"]: n for n in c.nodes()}
        self.assertEqual(set(nodes), {"coord", "shard-a", "shard-b", "learn-a"})
        self.assertTrue(all(n["up"] for n in nodes.values()))
        with self.assertRaises(ValueError):
            c.submit(self.corpus, output=output, negative="many")
        with self.assertRaises(gridvec.GridvecError):
            c.nearest("no-such-word-in-the-vocabulary", 5)

    def test_3_tables(self):
        t = self.cluster.tables()
        self.assertEqual(t.shards, 2)
        emb = t.open("pyemb", 4, optimizer="adagrad", lr=0.5, init="zeros")
        self.assertEqual(emb.dim, 4)
        keys = ["apple", "pear", 7, 2**63 + 5]
        values = np.arange(16, dtype=np.float32).reshape(4, 4) / 4
        emb.put(keys, values)
        np.testing.assert_array_equal(emb.get(keys), values)
        np.testing.assert_array_equal(emb.get(np.array([7], dtype=np.uint64)), values[2:3])
        self.assertEqual(emb.get(["never-written"]).tolist(), [[0, 0, 0, 0]])
        # The same keys and rows as the command line's (a string key is hashed alike).
        cli = subprocess.run([GRIDVEC, "table", "--config", self.nodes.config, "--timeout", "20", "get", "pyemb",
                              "apple", "7"], capture_output=True, text=True, timeout=60)
        self.assertEqual(cli.returncode, 0, cli.stderr)
        self.assertEqual(cli.stdout.splitlines(), ["apple 0 0.25 0.5 0.75", "7 2 2.25 2.5 2.75"])
        # Two Adagrad steps on the shards: G = g1^2 + g2^2, v -= lr g / (sqrt(G) + eps).
        g1 = np.array([[1, -2, 0.5, 0]], dtype=np.float32)
        g2 = np.array([[0.5, 1, -1, 2]], dtype=np.float32)
        emb.push(["fresh"], g1)
        emb.push(["fresh"], g2)
        value, slots, steps = emb.fetch(["fresh"])
        G1 = g1 ** 2
        expected = -0.5 * g1 / (np.sqrt(G1) + 1e-8)
        G = G1 + g2 ** 2
        expected = expected - 0.5 * g2 / (np.sqrt(G) + 1e-8)
        self.assertEqual(slots.shape, (1, 1, 4))
        np.testing.assert_allclose(slots[0, 0], G[0], rtol=1e-6)
        np.testing.assert_allclose(value[0], expected[0], rtol=1e-5, atol=1e-6)
        self.assertEqual(steps.shape, (1,))
        with self.assertRaises(ValueError):
            emb.put(["apple"], np.zeros((1, 3)))
        self.assertEqual(emb.remove(["apple", "not-there"]).tolist(), [True, False])
        # pear, 7, 2^63+5, fresh, and never-written: a read makes the row.
        self.assertEqual(sum(i["rows"] for i in emb.info()), 5)
        emb.save()
        self.assertTrue(os.path.exists(os.path.join(self.work, "tables", "pyemb", "shard-0-of-2.slice")))
        # A matrix split by columns: row arithmetic on the shards.
        mat = t.open("pymat", 6, rows=10, layout="columns")
        rows = np.array([[1, 2, 3, 4, 5, 6], [1, 0, 1, 0, 1, 0]], dtype=np.float32)
        mat.put([0, 1], rows)
        np.testing.assert_allclose(mat.dot([0], [1]), [9.0])
        mat.axpy(2.0, [1], [0])
        np.testing.assert_array_equal(mat.get([0])[0], rows[0] + 2 * rows[1])
        self.assertIn("pymat", {i["name"] for i in t.list()})
        found = t.find("pyemb")
        self.assertEqual(found.spec["optimizer"], "adagrad")
        mat.drop()
        with self.assertRaises(gridvec.GridvecError):
            t.find("pymat")
        with self.assertRaises(ValueError):
            t.open("bad name!", 4)

    def test_4_shutdown(self):
        self.cluster.shutdown()
        for name, proc in self.nodes.procs.items():
            try:
                self.assertEqual(proc.wait(timeout=30), 0, f"node {name} exited with an error")
            except subprocess.TimeoutExpired:
                self.fail_with_logs(f"node {name} still runs after shutdown")


class InstalledPackage(unittest.TestCase):
    def test_cmake_install_puts_an_importable_package(self):
        build = os.environ.get("GRIDVEC_BUILD_DIR")
        cmake = os.environ.get("CMAKE_COMMAND", "cmake")
        self.assertTrue(build and os.path.isdir(build), "GRIDVEC_BUILD_DIR is not the build directory")
        with tempfile.TemporaryDirectory(prefix="gridvec-python-install-") as prefix:
            subprocess.run([cmake, "--install", build, "--prefix", prefix], check=True, stdout=subprocess.DEVNULL)
            minor = sys.version_info.minor
            site = os.path.join(prefix, "lib", f"python3.{minor}", "dist-packages")
            corpus = corpus_slice(os.path.join(prefix, "corpus.txt"), 1000)
            script = ("import gridvec, sys; m = gridvec.train(sys.argv[1], size=8, iter=1, min_count=2, "
                      "threads=1, debug=0); print(gridvec.__file__, m.vectors.shape)")
            env = dict(os.environ, PYTHONPATH=site)
            run = subprocess.run([sys.executable, "-c", script, corpus], cwd=prefix, env=env,
                                 capture_output=True, text=True, timeout=120)
            self.assertEqual(run.returncode, 0, run.stderr)
            where, shape = run.stdout.split(" ", 1)
            self.assertTrue(where.startswith(site), where)
            self.assertIn(", 8)", shape)


if __name__ == "__main__":
    unittest.main(verbosity=2)
