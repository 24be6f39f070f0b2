# The two commands a newcomer needs (see README.md):
#   make book   execute every chapter and render the HTML book into _build/html
#   make test   unit tests, nbval over every notebook, and a strict HTML build
# Both create .venv from requirements.txt first if it is missing or out of date.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

# BLAS/OpenMP use one thread so timings on 2-core machines are
# stable; the kernel's debugger warning about frozen modules stays out of the outputs.
export OMP_NUM_THREADS := 1
export OPENBLAS_NUM_THREADS := 1
export MKL_NUM_THREADS := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1

.PHONY: help venv book test unit nbval lab bench clean

help:
	@echo "make book    execute every notebook and render the HTML book into _build/html"
	@echo "make test    unit tests + nbval over every notebook + strict HTML build"
	@echo "make lab     open the notebooks in JupyterLab"
	@echo "make bench   rerun the full timing benchmark (about 35 minutes)"
	@echo "make clean   remove _build (keeps .venv)"

$(STAMP): requirements.txt pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	touch $@

venv: $(STAMP)

book: venv
	rm -rf _build/html
	$(BIN)/jupyter-book build . --all -W -n --keep-going
	test -f _build/html/index.html
	$(BIN)/python tools/check_book.py _build/html

unit: venv
	$(BIN)/python -m pytest tests

nbval: venv
	$(BIN)/python -m pytest --nbval --nbval-current-env --nbval-cell-timeout=900 \
		--nbval-sanitize-with notebooks/sanitize.cfg notebooks

test: unit nbval book

lab: venv
	$(BIN)/jupyter lab notebooks

bench: venv
	$(BIN)/python -m treelib.bench timing --full

clean:
	rm -rf _build
