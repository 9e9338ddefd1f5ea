"""gridvec from Python: train word2vec in this process, drive a running
cluster, and use its shards' tables as a parameter server (docs/python.md).

    import gridvec
    model = gridvec.train("corpus.txt", size=100, window=5, negative=5,
                          min_count=5, iter=5, threads=2, sample=1e-3)
    model.words, model.vectors            # list of str, float32 (V, size)
    kv = model.to_keyedvectors()          # gensim's KeyedVectors

    cluster = gridvec.Cluster("cluster.conf")
    cluster.submit("/shared/corpus.txt", output="/shared/vectors.txt", size=100)
    cluster.nearest("king")
    table = cluster.tables().open("emb", 16, optimizer="adagrad", lr=0.1)
    table.push(["a", "b"], gradients)     # numpy (2, 16)

Options are `gridvec train`'s (gridvec.train_help() lists them), given as
keyword arguments: min_count=5 is -min-count 5, shards=2 is --shards 2,
True and False are 1 and 0. A bad option raises ValueError with the line
`gridvec train` prints; a job that fails raises GridvecError.
"""
import os
import tempfile

import numpy as np

from gridvec import _gridvec
from gridvec._gridvec import GridvecError, table_key, train_help

__all__ = ["train", "Vectors", "Cluster", "TableClient", "Table", "GridvecError", "table_key", "train_help",
           "train_args"]


def _value(value):
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return str(value)


def _corpus(corpus):
    """-train's value: one path, or several (a list) joined as -train joins them."""
    if isinstance(corpus, (str, os.PathLike)):
        return os.fspath(corpus)
    paths = [os.fspath(p) for p in corpus]
    if not paths:
        raise ValueError("no corpus: give a file, a directory or a list of them")
    return ",".join(paths)


def train_args(corpus=None, **flags):
    """The `gridvec train` arguments that these keyword arguments stand for."""
    args = [] if corpus is None else ["-train", _corpus(corpus)]
    for name, value in flags.items():
        if value is None:
            continue
        # "--name=value" is how the parser takes a switch with a value too.
        args.append("--" + name.replace("_", "-") + "=" + _value(value))
    return args


class Vectors:
    """Trained word vectors: `words[i]` is the word of row `vectors[i]`,
    most frequent first (the vectors file's order)."""

    def __init__(self, words, vectors, summary=None):
        self.words = list(words)
        self.vectors = vectors
        self.summary = summary or {}
        self._index = None

    def __len__(self):
        return len(self.words)

    def __contains__(self, word):
        return word in self.index

    def __getitem__(self, word):
        return self.vectors[self.index[word]]

    @property
    def index(self):
        """word -> row."""
        if self._index is None:
            self._index = {w: i for i, w in enumerate(self.words)}
        return self._index

    def most_similar(self, word, topn=10):
        """The `topn` words nearest `word` by cosine similarity: (word, score) pairs."""
        norms = np.linalg.norm(self.vectors, axis=1)
        norms[norms == 0] = 1
        unit = self.vectors / norms[:, None]
        scores = unit @ unit[self.index[word]]
        order = [int(i) for i in np.argsort(-scores) if self.words[int(i)] != word]
        return [(self.words[i], float(scores[i])) for i in order[:topn]]

    def to_keyedvectors(self):
        """The vectors as gensim's KeyedVectors (ImportError without gensim)."""
        from gensim.models import KeyedVectors
        kv = KeyedVectors(self.vectors.shape[1], dtype=np.float32)
        kv.add_vectors(self.words, self.vectors)
        return kv

    def __repr__(self):
        return f"<gridvec.Vectors {len(self.words)} x {self.vectors.shape[1]}>"


def train(corpus, output=None, **flags):
    """Trains on `corpus` (a path, or a list of paths) in this process, with
    the same engine and options as `gridvec train`, and returns Vectors.
    `output` keeps the vectors file there too (-binary picks its format);
    without it the vectors go through a temporary file. The GIL is released
    while the job runs; Ctrl-C stops it."""
    if corpus is None:
        raise ValueError("no corpus: give a file, a directory or a list of them")
    if output is not None:
        words, vectors, summary = _gridvec.train(train_args(corpus, output=output, **flags))
        return Vectors(words, vectors, summary)
    with tempfile.TemporaryDirectory(prefix="gridvec-") as tmp:
        flags.setdefault("binary", True)  # exact floats, read back faster
        args = train_args(corpus, output=os.path.join(tmp, "vectors.bin"), **flags)
        words, vectors, summary = _gridvec.train(args)
    return Vectors(words, vectors, summary)


def _keys(keys):
    """Row keys as uint64: ints as they are, strings by table_key()."""
    if isinstance(keys, np.ndarray) and keys.dtype.kind in "ui":
        if keys.dtype.kind == "i" and (keys < 0).any():
            raise ValueError("keys must not be negative")
        return np.ascontiguousarray(keys, dtype=np.uint64).reshape(-1)
    if isinstance(keys, (str, int, np.integer)):
        keys = [keys]
    out = []
    for k in keys:
        if isinstance(k, str):
            out.append(table_key(k))
        elif isinstance(k, (int, np.integer)) and not isinstance(k, bool) and 0 <= int(k) < 2**64:
            out.append(int(k))
        else:
            raise ValueError(f"a key is a string or an integer in [0, 2^64), not {k!r}")
    return np.array(out, dtype=np.uint64)


def _rows(values):
    return np.ascontiguousarray(values, dtype=np.float32)


class Table:
    """One table of the cluster's shards. Keys are integers (row ids of a
    matrix, any 64-bit key of a map) or strings (hashed by table_key);
    rows are float32 numpy arrays of shape (len(keys), dim)."""

    def __init__(self, table):
        self._t = table

    name = property(lambda self: self._t.name)
    dim = property(lambda self: self._t.dim)
    spec = property(lambda self: self._t.spec)

    def get(self, keys):
        """The rows (rows never written start with the table's initializer)."""
        return self._t.get(_keys(keys))

    def put(self, keys, values):
        self._t.put(_keys(keys), _rows(values))

    def set_if_absent(self, keys, values):
        """Writes the rows that do not exist; a bool array: which were written."""
        return self._t.set_if_absent(_keys(keys), _rows(values))

    def remove(self, keys):
        """A bool array: which keys existed."""
        return self._t.remove(_keys(keys))

    def push(self, keys, gradients):
        """One step of the table's optimizer per key, applied on the shards."""
        self._t.push(_keys(keys), _rows(gradients))

    def add(self, keys, deltas):
        self._t.add(_keys(keys), _rows(deltas))

    def fetch(self, keys):
        """(values (n, dim), slots (n, slots, dim), steps (n,)): the rows
        with their optimizer state (adagrad: G; adam: m, s and the step)."""
        return self._t.fetch(_keys(keys))

    def dot(self, a, b):
        return self._t.dot(_keys(a), _keys(b))

    def axpy(self, alpha, x, y):
        """y += alpha x, row by row, on the shards (columns layout)."""
        self._t.axpy(float(alpha), _keys(x), _keys(y))

    def scal(self, alpha, keys):
        self._t.scal(float(alpha), _keys(keys))

    def copy(self, source, target):
        self._t.copy(_keys(source), _keys(target))

    def reduce(self, what):
        """"sum" (dim column sums), "sumsq" or "count" over the whole table."""
        return self._t.reduce(what)

    def info(self):
        return self._t.info()

    def save(self):
        """Every shard writes its slice to the cluster's table-dir."""
        self._t.save()

    def drop(self):
        self._t.drop()

    def __repr__(self):
        return f"<gridvec.Table {self.spec['description']!r}>"


class TableClient:
    """The cluster's tables (Cluster.tables())."""

    def __init__(self, client):
        self._c = client

    shards = property(lambda self: self._c.shards)

    def open(self, name, dim, rows=0, layout="rows", dense=False, init="zeros", scale=0.0, seed=1,
             optimizer="sgd", lr=0.01, beta1=0.9, beta2=0.999, epsilon=1e-8):
        """Creates the table on every shard, or opens it if it exists with
        the same spec. With rows it is a matrix of row ids 0..rows-1, else
        a map of any keys (docs/tables.md)."""
        return Table(self._c.open(name, dim, rows=rows, layout=layout, dense=dense, init=init, scale=scale,
                                  seed=seed, optimizer=optimizer, lr=lr, beta1=beta1, beta2=beta2,
                                  epsilon=epsilon))

    def find(self, name):
        return Table(self._c.find(name))

    def list(self):
        """One dict per table and shard."""
        return self._c.list()


class Cluster:
    """A running cluster (`gridvec node` processes), reached as `gridvec
    submit` reaches it: the coordinator's node of the config, proving the
    config's secret. Paths are opened by the nodes: absolute paths on a
    file system they share (relative ones are made absolute here)."""

    def __init__(self, config, query_timeout=30.0):
        self._c = _gridvec.Cluster(os.fspath(config), float(query_timeout))

    address = property(lambda self: self._c.address)

    def submit(self, corpus=None, output=None, shutdown=False, on_progress=None, **flags):
        """Runs a job to its end and returns its summary (a dict); the
        nodes stay up unless shutdown=True. on_progress(line) gets its
        progress lines. Ctrl-C cancels the job."""
        return self._c.submit(train_args(corpus, output=output, **flags), shutdown, on_progress)

    def start(self, corpus=None, output=None, shutdown=False, **flags):
        """Starts a job and returns its number at once; status(), pause(),
        wait() follow it."""
        return self._c.start(train_args(corpus, output=output, **flags), shutdown)

    def wait(self, timeout=None):
        """The summary of the job once it ends (timeout in seconds)."""
        return self._c.wait(0.0 if timeout is None else float(timeout))

    def status(self):
        return self._c.status()

    def nodes(self):
        return self._c.nodes()

    def pause(self):
        return self._c.pause()

    def resume(self):
        return self._c.resume()

    def cancel(self):
        return self._c.cancel()

    def checkpoint(self):
        return self._c.checkpoint()

    def export(self, path, binary=False):
        """Writes the last job's vectors to `path` (on the exporter's node); their count."""
        return self._c.export(os.fspath(path), binary)

    def nearest(self, word, k=10):
        """(word, cosine) pairs from the live shards."""
        return self._c.nearest(word, k)

    def analogy(self, a, b, c, k=10):
        """Words d with a : b :: c : d, as (word, score) pairs."""
        return self._c.analogy(a, b, c, k)

    def tables(self, timeout=60.0):
        """A client of the cluster's tables (its shard nodes)."""
        return TableClient(self._c.tables(float(timeout)))

    def shutdown(self):
        """Stops every node of the cluster."""
        self._c.shutdown()

    def __repr__(self):
        return f"<gridvec.Cluster {self.address}>"
