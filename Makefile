# Two commands on a fresh machine: `make demo` and `make test`. Both install what is missing first.
PY := .venv/bin/python

.PHONY: setup demo demo-engine test devices doctor

setup:
	@tools/setup.sh

# the FDTD flagship, headless: a dielectric sphere in a plane wave, checked against the Mie
# series; pictures and results in fdtd3d-out/. `make demo-engine` runs the engine's own demo.
demo: setup
	$(PY) -m examples.fdtd3d --headless --out fdtd3d-out

demo-engine: setup
	$(PY) -m vkpersist demo

test: setup
	$(PY) -m pytest tests

devices: setup
	$(PY) -m vkpersist devices

doctor: setup
	$(PY) -m vkpersist doctor
