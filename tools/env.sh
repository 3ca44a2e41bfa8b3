# Sourced by the tools/ scripts: puts a CUDA toolkit installed in the usual place on the PATH.
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH="/usr/local/cuda/bin:$PATH"
fi
build_jobs=$(nproc 2>/dev/null || echo 2)
