# make run   - the API on 127.0.0.1:8000 with Celery workers (bots, pushes) and beat
#              (Ctrl-C stops all); HOST=0.0.0.0 for every interface, PORT=8100 for another
# make test  - the test suite in TEST_WORKERS processes (2; 0 for one); pytest options
#              with ARGS="-k health -x"
# make lint  - ruff lint and format check
# make typecheck - mypy (strict) on games, players and unoservice

PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.requirements.stamp
ARGS   ?=
HOST   ?= 127.0.0.1
PORT   ?= 8000
TEST_WORKERS ?= 2

.PHONY: run test lint format typecheck venv

# (Re)install only when requirements.txt is newer than the last install.
$(STAMP): requirements.txt requirements-runtime.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -r requirements.txt
	touch $(STAMP)

venv: $(STAMP)

run: $(STAMP)
	$(PY) manage.py migrate --noinput
	$(PY) scripts/run_all.py --host $(HOST) --port $(PORT)

test: $(STAMP)
	$(PY) -m pytest -n $(TEST_WORKERS) $(ARGS)

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

format: $(STAMP)
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

typecheck: $(STAMP)
	$(VENV)/bin/mypy
