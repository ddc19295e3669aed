# Makefile -- packsell builds with CMake; this file only says how, for the
# habit of typing `make` or `make install` at the top of a checkout.
.PHONY: all install test help
all install test help:
	@echo "packsell builds with CMake:"
	@echo "  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release   (add -DPSL_ENABLE_CUDA=OFF for a CPU-only build)"
	@echo "  cmake --build build -j"
	@echo "  ctest --test-dir build                           (the tests)"
	@echo "  cmake --install build --prefix PREFIX            (install: header, libraries, pkg-config, CMake package)"
	@echo "Dependencies: bash scripts/install-deps.sh. See README.md."
	@exit 1
