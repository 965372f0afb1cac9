# Every target does its own set-up: a fresh clone needs only `make demo` or `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# Caches stay inside the checkout, never in ~.
export TRITON_CACHE_DIR := $(CURDIR)/.cache/triton
export TRITON_HOME := $(CURDIR)/.cache/triton-home
export JAX_COMPILATION_CACHE_DIR := $(CURDIR)/.cache/jax
export XDG_CACHE_HOME := $(CURDIR)/.cache/xdg
export TRITON_DEFAULT_FP_FUSION := 1

.PHONY: install demo test bench docs clean detection realworld realpairs audit profile fuzz corpus hostile

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# torch first and pinned: this version resolves to the local CPU wheel, not a CUDA build.
	$(PY) -m pip install --quiet --no-compile torch==2.13.0
	$(PY) -m pip install --quiet --no-compile -e '.[test,ray,references]'
	# Byte-compiled on every core, not one by one as pip does (the install's half). Every module, as
	# pip would: sandboxed user code may not write the venv's __pycache__. Like pip, a file this
	# Python cannot compile (torch ships one in 3.12 syntax) is left as it is.
	$(PY) -m compileall -qq -j 0 $(VENV)/lib || true
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/lowercheck diff corpus/vector_add/vadd.cu corpus/vector_add/vadd.py

# lowercheck's modules and the corpus byte-compiled first (up-to-date files are skipped): every
# process of the suite imports them, sandboxed children cannot write __pycache__, and nothing
# can where PYTHONDONTWRITEBYTECODE is set. (Broken corpus files, the fuzz's and hostile cases', stay as they are.)
test: $(STAMP)
	$(PY) -m compileall -qq -j 0 lowercheck corpus || true
	$(PY) -m pytest -q -n 2 --dist loadgroup tests

bench: $(STAMP)
	$(PY) -m lowercheck.bench --out docs/bench.md

# Where the wall time of a static diff and of a Triton lowering goes (cProfile, fresh processes, cold
# and warm lowercheck cache), beside nvcc -cubin and Triton's compile to TTIR: a section of docs/bench.md.
profile: $(STAMP)
	$(PY) -m lowercheck.profile --out docs/bench.md

# Every corpus case, and the KernelBench-style baseline beside it (resumes an interrupted run);
# the command exits 1 while a seeded bug is missed: the report is written either way.
detection: $(STAMP)
	-$(PY) -m lowercheck corpus corpus -j 2 --baseline kernelbench --markdown docs/detection.md

# Every case of corpus/*/expected.toml against its verdict and codes, and every corpus file lowered
# (`make test` runs covers: in each folder one case of each verdict and mode, and every expected code
# once; one file of each language, and those with data-dependent accesses).
corpus: $(STAMP)
	CORPUS=all $(PY) -m pytest -q -n 2 tests/test_corpus.py tests/test_lower_corpus.py

# Every case of corpus/hostile (`make test` leaves out all but one of those that wait out a time limit).
hostile: $(STAMP)
	HOSTILE=all $(PY) -m pytest -q -n 2 tests/test_hostile.py

# Real kernels of pinned packages (DeepSpeed's CUDA, liger-kernel's Triton, jax's Pallas ops), fetched
# into .cache/realworld, each lowered with `lowercheck lower`; the table goes to docs/realworld.md.
realworld: $(STAMP)
	$(PY) -m lowercheck.realworld -j 2 --out docs/realworld.md

# Every case of corpus/realpairs (pairs of real kernels of the pinned packages and our references;
# `make test` runs a few of them): verdicts and codes against their expected.toml.
realpairs: $(STAMP)
	REALPAIRS=all $(PY) -m pytest -q -n 2 tests/test_realpairs.py

# `lowercheck audit` over every task of corpus/tasks (seeded flaws and well-built tasks) against their
# expected.toml; `make test` runs the same test.
audit: $(STAMP)
	$(PY) -m pytest -q -n 2 tests/audit/test_audit_corpus.py

# Every corpus pair and spec whose files are in the corpus, mutated (2,000 mutants of seed 0: lines
# deleted and duplicated, tokens swapped, identifiers and constants changed, truncation, random bytes,
# BOM/CRLF, empty files, directories, huge files, absurd sizes, wrong entries), each through `lowercheck
# diff` (static, a share with runs): fails on a traceback, an internal error, a hang, an exit outside
# 0-3, an exit 2 without file:line, a changed input or a process left behind. Writes docs/fuzz.md
# (about 40 min on 2 cores); `make test` runs a slice of it (tests/test_fuzz.py).
fuzz: $(STAMP)
	$(PY) -m lowercheck.fuzz --seed 0 --count 2000 -j 2 --out docs/fuzz.md

docs: $(STAMP)
	$(PY) -m lowercheck.findings --write-docs docs/codes

clean:
	rm -rf $(VENV) .cache
