# Two commands on a fresh machine: `make demo` and `make test`. Both install what is missing first.
PY := .venv/bin/python

.PHONY: setup demo test devices doctor

setup:
	@tools/setup.sh

demo: setup
	$(PY) -m vkpersist demo

test: setup
	$(PY) -m pytest tests

devices: setup
	$(PY) -m vkpersist devices

doctor: setup
	$(PY) -m vkpersist doctor
