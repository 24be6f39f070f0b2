# The two commands a newcomer needs (see README.md):
#   make book   execute every chapter and render the HTML book into _build/html
#   make test   lint, unit tests, every notebook checked with nbval on an emulated
#               other CPU, and a strict HTML build of the verified notebooks
# Both create .venv from requirements.txt first if it is missing or out of date.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# pytest-xdist workers: both cores of the reference machine (override: make test JOBS=4)
JOBS   ?= 2

# BLAS/OpenMP use one thread so timings on 2-core machines are stable and two test
# workers do not oversubscribe the cores; the kernel's debugger warning about frozen
# modules stays out of the outputs.
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1

# Another CPU, emulated: numpy without its SIMD loops, OpenBLAS with another kernel
# (tools/other_cpu.py says why).  The notebooks and the checks of committed numbers
# run under it, so what the book commits is shown not to depend on this machine.
OTHER_CPU = env $$($(BIN)/python tools/other_cpu.py)

NBVAL := --nbval --nbval-current-env --nbval-cell-timeout=900 \
	--nbval-sanitize-with notebooks/sanitize.cfg

.PHONY: help venv book test lint unit quick frozen-fits nbval verified-book teacher-book lab bench upgrade clean

help:
	@echo "make book    execute every notebook and render the HTML book into _build/html"
	@echo "make test    lint + unit tests + nbval (emulated other CPU) + strict HTML build"
	@echo "make lint    ruff and import-linter only"
	@echo "make quick   the quick tier: no slow tests, few hypothesis examples (< 1 min)"
	@echo "make frozen-fits   fits bit-identical to a frozen revision (FROZEN=rev)"
	@echo "make lab     open the notebooks in JupyterLab"
	@echo "make teacher-book   the book without the exercises' solutions"
	@echo "make bench   rerun the full timing benchmark (about 20 minutes)"
	@echo "make upgrade regenerate requirements.lock, re-execute the notebooks, show the diff"
	@echo "make clean   remove _build (keeps .venv)"

# requirements.txt says what the book needs (ranges, for people); requirements.lock holds the
# exact version of every package the committed outputs were verified with (`make upgrade`
# regenerates it), and the install is constrained to it, so next month's releases do not
# change this month's book.
$(STAMP): requirements.txt requirements.lock pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt -c requirements.lock
	touch $@

venv: $(STAMP)

# The reader's build: every notebook executed from scratch.
book: venv
	rm -rf _build/html
	$(BIN)/jupyter-book build . --all -W -n --keep-going
	test -f _build/html/index.html
	$(BIN)/python tools/check_book.py _build/html

# ruff (a small rule set) and import-linter (treelib's layers, numpy-only algorithms)
lint: venv
	$(BIN)/ruff check treelib tests tools
	$(BIN)/lint-imports --no-cache

# The 25 slowest tests are listed at the end, so a run shows where the budget goes.
unit: venv
	$(BIN)/python -m pytest -n $(JOBS) --hypothesis-profile=ci --durations=25 tests

# The quick tier (under a minute on 2 cores): the slow families of tests/conftest.py left
# out, each hypothesis test at most 10 examples, derandomized (the "dev" profile).
quick: venv
	$(BIN)/python -m pytest -n $(JOBS) -m "not slow" --hypothesis-profile=dev \
		-p no:cacheprovider tests

# After a refactor: the same 1,192 fits with a frozen revision of treelib and with this
# checkout, in fresh processes; lists every fit that is not bit-identical (exit 1).
FROZEN ?= d93cccc
frozen-fits: venv
	$(BIN)/python tools/frozen_fits.py --against $(FROZEN)

# Each notebook executed once, on the emulated CPU, its outputs compared with the
# committed ones; with it, the checks that committed benchmark files are consistent.
nbval: venv
	$(OTHER_CPU) $(BIN)/python -m pytest -n $(JOBS) --dist loadscope $(NBVAL) \
		notebooks tests/test_committed_results.py

# The same strict build as `make book`, from the committed outputs that `make nbval` has
# just verified, so `make test` runs the other notebooks only once; the chapters in
# UNDER_LOAD (those that start worker processes, threads or a cluster, whose output a
# busy machine could change) are executed from scratch as `make book` executes them,
# with every core kept busy by other work (tools/busy.py), as on a reader's laptop.
UNDER_LOAD ?= 14_the_boosting_loop.ipynb 24_parallel_sums.ipynb 26_many_machines.ipynb A7_boosting_agreement.ipynb A8_how_the_benchmarks_ran.ipynb

verified-book: venv
	rm -rf _build/html
	mkdir -p _build
	$(BIN)/python tools/book_config.py verified $(UNDER_LOAD) > _build/_config_verified.yml
	$(BIN)/python tools/busy.py -- $(BIN)/jupyter-book build . --all -W -n --keep-going \
		--config _build/_config_verified.yml
	test -f _build/html/index.html
	$(BIN)/python tools/check_book.py _build/html

# For teachers: the same book without the exercises' solutions (book/_ext/teacher_build.py
# removes them, cells included), built from the committed outputs into _build/teacher/html;
# the last line fails if any page still holds a solution.
teacher-book: venv
	mkdir -p _build
	$(BIN)/python tools/book_config.py teacher > _build/_config_teacher.yml
	$(BIN)/jupyter-book build . --all -W -n --keep-going --config _build/_config_teacher.yml \
		--path-output _build/teacher
	test -f _build/teacher/_build/html/index.html
	! grep -l 'class="solution' _build/teacher/_build/html/notebooks/*.html

test: lint unit nbval verified-book

# The committed notebooks are trusted on this machine first, so their animations play
# (JupyterLab runs no script of an untrusted notebook's outputs: it would show the still).
lab: venv
	$(BIN)/jupyter trust notebooks/*.ipynb
	$(BIN)/jupyter lab notebooks

bench: venv
	$(BIN)/python -m treelib.bench timing --full

# Next month's packages, on purpose: regenerate requirements.lock from requirements.txt's
# ranges (uv, from the package index), reinstall, re-execute every notebook in place and
# show which outputs changed.  Review that diff (and run `make test`) before committing
# the new lock with the notebooks.
upgrade: venv
	$(BIN)/python -m pip install --quiet uv
	$(BIN)/uv pip compile requirements.txt --upgrade --python-version 3.11 \
		--no-emit-package treelib --no-header --quiet -o requirements.lock
	$(MAKE) venv
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
		--ExecutePreprocessor.timeout=900 notebooks/*.ipynb
	git diff --stat -- requirements.lock notebooks

clean:
	rm -rf _build
