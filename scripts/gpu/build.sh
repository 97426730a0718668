# shellcheck shell=bash disable=SC2154 # root, build, jobs, stages, OUT, LOG: set by scripts/gpu-check
# gpu-check stage build: parprim with the cuda backend (Hopper: sm_90,
# -march=native) and the CUB comparison, into $build; the opencl backend
# beside it where OpenCL headers and a loader are found (the system's, else
# the CUDA toolkit's). A failed build ends the run (finish).
t0=$SECONDS
# The opencl backend: the system's OpenCL headers and loader, else the CUDA toolkit's.
ocl=()
cuda_root=$(dirname "$(dirname "$(command -v nvcc)")")
if [ ! -f /usr/include/CL/cl.h ] && [ -f "$cuda_root/include/CL/cl.h" ]; then
  # shellcheck disable=SC2012 # the toolkit's own file names
  lib=$(ls "$cuda_root"/lib64/libOpenCL.so* "$cuda_root"/targets/x86_64-linux/lib/libOpenCL.so* 2>/dev/null | head -n 1)
  [ -n "$lib" ] && ocl=(-DOpenCL_INCLUDE_DIR="$cuda_root/include" -DOpenCL_LIBRARY="$lib")
fi
# CUB's newest algorithms for bench_cub: the nvidia-cuda-cccl wheel carried in
# build/wheels (headers only), unpacked into build/cccl.
cccl=()
wheel=$(compgen -G "build/wheels/nvidia_cuda_cccl-*.whl" | head -n 1)
if [ -n "$wheel" ]; then
  rm -rf build/cccl && mkdir -p build/cccl && python3 -m zipfile -e "$wheel" build/cccl &&
    inc=$(dirname "$(find "$root/build/cccl" -path "*include/cccl/cub" -type d | head -n 1)") &&
    [ -n "$inc" ] && cccl=(-DPP_BENCH_CCCL_INCLUDE="$inc")
fi
if cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPP_WITH_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
     -DPP_NATIVE=ON "${ocl[@]}" "${cccl[@]}" >"$LOG/cmake.log" 2>&1 &&
   cmake --build "$build" -j"$jobs" >"$LOG/build.log" 2>&1; then
  passed "build: ok ($((SECONDS - t0)) s)"
else
  tail -n 60 "$LOG/build.log" "$LOG/cmake.log"
  failed build "build: FAILED (see cmake.log, build.log)"
  finish
fi
