// bench/v3dlib/dump.cpp: writes the vc4 machine code V3DLib (wimrijnders/V3DLib) sends to the
// QPUs for its Rot3D kernels 1 and 2 and its HeatMap kernel, for bench:published's --v3dlib DIR
// (bench/v3dlib.ts runs them). Build it in V3DLib's emulation mode (QPU=0: its vc4 code
// generator and encoder are built in every mode), against the trees the published Pi 3 times
// come with: d26c712 for Rot3D, 991f42e for HeatMap. V3DLib's Makefile wants its CmdParameter
// beside it (wimrijnders/CmdParameter at a commit of the same days: 1a09b80 beside d26c712,
// 02703c2 beside 991f42e).
//   (cd CmdParameter && make obj/libCmdParameter.a)
//   (cd V3DLib && make QPU=0 obj/mesa/bin/libmesa.a; make QPU=0 Rot3D)     # or HeatMap at 991f42e
//   g++ -std=c++11 -DNDEBUG -ffp-contract=off -DDUMP_ROT3D -DEXAMPLE_SRC='"V/Examples/Rot3D.cpp"' \
//     -IV/Lib -IC/Lib -IV/mesa/include -IV/mesa/src dump.cpp V/obj/emu/Examples/Kernels/Rot3D.o \
//     V/obj/emu/Examples/Support/Settings.o V/obj/emu/Examples/Support/Timer.o \
//     V/obj/emu/libv3dlib.a -LV/obj/mesa/bin -lmesa -LC/obj -lCmdParameter && ./a.out DIR
//   (V: V3DLib's tree, C: CmdParameter's; for HeatMap -DDUMP_HEATMAP, Examples/HeatMap.cpp and
//   only Settings.o.) mesa's own test program fails to link; libmesa.a, all V3DLib needs, builds.
// The argument order. V3DLib builds its kernels' code and its uniform stream by calling
// functions in argument lists (Kernel.h's make_tuple(mkArg<ts>()...) and its passing of
// parameters, assign.h's copies of by-value parameters), whose order C++ leaves to the compiler:
// GCC on ARM, where the times were taken, evaluates them first to last, and on x86 last to
// first. Built on x86 as it is, V3DLib numbers its variables otherwise and reverses the kernel's
// arguments in the uniforms, so bench/v3dlib.ts, which passes them in declaration order as the
// Pi did, finds a wrong result and says so. Build on a Pi, or make those call sites evaluate
// first to last on x86: at d26c712, Kernel.h:225 (the tuple of mkArg<ts>()), :269 (passParam)
// and Support/assign.h:21 (the by-value copies, including Int's and Float's copy constructors,
// which must create their variables in the ARM's order); at 991f42e, Kernel.h:98 and :120. That
// the ARM evaluates first to last is inferred from GCC's sources (arm.h leaves PUSH_ARGS_REVERSED
// 0), not checked on a Pi. So made (2026-11-27), the words' SHA-256s begin bf519155 (kernel 1,
// 153 instructions), 79db0c95 (kernel 2, 151) and 5064d63c (HeatMap, 286); the plain x86 build's
// HeatMap has 284, and each build's words, run with its own uniform order, take the same time to
// within 0.1%.
//
///////////////////////////////////////////////////////////////////////////////
// This is a standalone tool. It contains no V3DLib code; it is compiled
// against a V3DLib source tree and links with that tree's library.
// The example's own source file is #included (with its main() renamed), so
// the kernel functions, sizes and initialisation routines used below are
// exactly those of the example program at that commit.
//
// Build variants (one per V3DLib commit):
//   -DDUMP_ROT3D   -DEXAMPLE_SRC='"<tree>/Examples/Rot3D.cpp"'    (tree at d26c712)
//   -DDUMP_HEATMAP -DEXAMPLE_SRC='"<tree>/Examples/HeatMap.cpp"'  (tree at 991f42e)
//
// Usage: dump <outdir> [--emulate[=<heatmap steps>]]
//
// Output, per kernel <name>:
//   <outdir>/<name>.bin           8 bytes per instruction, low 32-bit word first
//                                 (the order in which V3DLib copies the words
//                                 into QPU code memory), little endian.
//   <outdir>/<name>.dis.txt       mesa vc4 disassembly of those words
//   <outdir>/<name>.pretty.txt    V3DLib's own pretty() output (source, target code, opcodes)
//   <outdir>/<name>.uniforms.txt  uniform stream per QPU, as V3DLib builds it
// With --emulate, the kernel is also run on V3DLib's own vc4 emulator and the
// result is compared bit-for-bit with a scalar model written here.
///////////////////////////////////////////////////////////////////////////////
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <cmath>
#include <string>
#include <vector>
#include <unistd.h>
#include <sys/wait.h>

#if defined(DUMP_ROT3D) == defined(DUMP_HEATMAP)
#error "Define exactly one of DUMP_ROT3D or DUMP_HEATMAP"
#endif

// Pull in the example program itself, with its main() renamed.
#define main v3dlib_example_main
#include EXAMPLE_SRC
#undef main

#include "vc4/Encode.h"
#include "vc4/dump_instr.h"

namespace {

using namespace V3DLib;

std::string g_outdir;

/**
 * A Kernel, constructed exactly as V3DLib's compile() does, which also exposes
 * the vc4 target code and the loaded uniforms (protected members).
 */
template <typename... ts>
struct DumpKernel : public Kernel<ts...> {
#if defined(DUMP_ROT3D)
  // d26c712: compile(f) == Kernel<ts...>(f, vc4_only = false)
  DumpKernel(void (*f)(ts...)) : Kernel<ts...>(f) {}
  Seq<Instr> &target() { return this->m_vc4_driver.targetCode(); }
#else
  // 991f42e: compile(f) == Kernel<ts...>(f, compile_for = BOTH)
  DumpKernel(void (*f)(ts...)) : Kernel<ts...>(f, BOTH) {}
  Instr::List &target() { return this->vc4().targetCode(); }
#endif

  /**
   * Encode with the same library function the vc4 KernelDriver uses
   * (d26c712: vc4/KernelDriver.cpp:50, 991f42e: vc4/KernelDriver.cpp:50)
   */
  std::vector<uint32_t> words() {
#if defined(DUMP_ROT3D)
    Seq<uint32_t> code;
    vc4::encode(&target(), &code);
#else
    UIntList code;
    vc4::encode(target(), code);
#endif
    std::vector<uint32_t> ret;
    for (int i = 0; i < code.size(); i++) ret.push_back(code[i]);
    return ret;
  }

  int num_target_instrs() { return target().size(); }

  std::vector<int32_t> loaded_uniforms() {
    std::vector<int32_t> ret;
    for (int i = 0; i < this->uniforms.size(); i++) ret.push_back(this->uniforms[i]);
    return ret;
  }

  int qpus() const { return this->numQPUs; }
};


std::string path(std::string const &name, char const *ext) {
  return g_outdir + "/" + name + ext;
}


void write_bin(std::string const &name, std::vector<uint32_t> const &w) {
  std::string p = path(name, ".bin");
  FILE *f = fopen(p.c_str(), "wb");
  if (f == nullptr) { perror(p.c_str()); exit(1); }

  // Words are stored low, high per instruction (Encode.cpp: `*code << low << high;`).
  // Written byte-wise as little endian, so independent of host byte order.
  for (uint32_t v : w) {
    unsigned char b[4] = { (unsigned char) v, (unsigned char) (v >> 8),
                           (unsigned char) (v >> 16), (unsigned char) (v >> 24) };
    fwrite(b, 1, 4, f);
  }
  fclose(f);
}


void write_disasm(std::string const &name, std::vector<uint32_t> const &w) {
  std::vector<uint64_t> instrs;
  for (size_t i = 0; i + 1 < w.size(); i += 2) {
    instrs.push_back(((uint64_t) w[i + 1] << 32) | w[i]);
  }

  std::string p = path(name, ".dis.txt");
  FILE *f = fopen(p.c_str(), "w");
  fprintf(f, "# %s: %d instructions; index: hi:lo, then mesa vc4_qpu_disasm() listing\n",
          name.c_str(), (int) instrs.size());
  for (size_t i = 0; i < instrs.size(); i++) {
    fprintf(f, "%4zu: %08x:%08x\n", i, (uint32_t) (instrs[i] >> 32), (uint32_t) instrs[i]);
  }
  fprintf(f, "\n");
  fflush(f);
  dump_instr(f, instrs.data(), (int) instrs.size());
  fclose(f);
}


template <typename K>
void write_uniforms(std::string const &name, K &k, std::vector<std::string> const &labels,
                    std::vector<int> const &num_qpus) {
  auto u = k.loaded_uniforms();
  std::string p = path(name, ".uniforms.txt");
  FILE *f = fopen(p.c_str(), "w");
  fprintf(f, "# Uniform stream per QPU, as built by V3DLib vc4 invoke():\n"
             "#   [qpu index, number of QPUs, kernel params in declaration order..., 0 (dummy)]\n"
             "# Pointer params are the array's GPU address (here: V3DLib emulator heap offsets).\n\n");

  for (int n : num_qpus) {
    fprintf(f, "numQPUs = %d\n", n);
    for (int q = 0; q < n; q++) {
      fprintf(f, "  QPU %2d: %d %d", q, q, n);
      for (size_t j = 0; j < u.size(); j++) fprintf(f, " 0x%08x", (uint32_t) u[j]);
      fprintf(f, " 0\n");
    }
  }

  fprintf(f, "\nKernel params:\n");
  for (size_t j = 0; j < u.size() && j < labels.size(); j++) {
    float fv;
    memcpy(&fv, &u[j], 4);
    fprintf(f, "  %-30s 0x%08x  (int %d, float %.9g)\n", labels[j].c_str(), (uint32_t) u[j], u[j], fv);
  }
  fclose(f);
}


/**
 * Compile kernel function `f` once per QPU count (each job runs in a process of its own),
 * and check that the machine code does not depend on the QPU count.
 */
template <typename... ts>
std::vector<uint32_t> compile_and_dump(std::string const &name, void (*f)(ts...),
                                       std::vector<int> const &num_qpus) {
  std::vector<uint32_t> first;

  for (size_t i = 0; i < num_qpus.size(); i++) {
    int n = num_qpus[i];
    DumpKernel<ts...> k(f);
    k.setNumQPUs(n);  // As the examples do, before invocation/encoding
    auto w = k.words();

    if (i == 0) {
      first = w;
      write_bin(name, w);
      write_disasm(name, w);
      k.pretty(true, path(name, ".pretty.txt").c_str());
      printf("%-16s %5d instructions (%zu bytes), %d target instrs\n",
             name.c_str(), (int) w.size() / 2, w.size() * 4, k.num_target_instrs());
    } else if (w != first) {
      std::string vname = name + "_n" + std::to_string(n);
      write_bin(vname, w);
      write_disasm(vname, w);
      printf("%-16s DIFFERS for numQPUs=%d: written as %s.bin (%d instructions)\n",
             name.c_str(), n, vname.c_str(), (int) w.size() / 2);
    } else {
      printf("%-16s numQPUs=%2d: identical words\n", name.c_str(), n);
    }
  }

  return first;
}


bool same_bits(float a, float b) { return memcmp(&a, &b, 4) == 0; }


#if defined(DUMP_ROT3D)
///////////////////////////////////////////////////////////////////////////////
// Rot3D (d26c712)
///////////////////////////////////////////////////////////////////////////////

/** Scalar model of one kernel pass, float ops in kernel order, no contraction */
void rot3d_model(std::vector<float> &x, std::vector<float> &y, float c, float s) {
  for (size_t i = 0; i < x.size(); i++) {
    volatile float a = x[i] * c;
    volatile float b = y[i] * s;
    volatile float d = y[i] * c;
    volatile float e = x[i] * s;
    float xn = a - b;
    float yn = d + e;
    x[i] = xn; y[i] = yn;
  }
}


template <typename K>
void rot3d_emulate(char const *name, K &k, int n) {
  SharedArray<float> x(SIZE), y(SIZE);
  init_arrays(x, y);                                  // Examples/Rot3D.cpp
  k.setNumQPUs(n);
  k.load(SIZE, cosf(THETA), sinf(THETA), &x, &y);     // Examples/Rot3D.cpp:103
  k.emu();

  std::vector<float> mx(SIZE), my(SIZE);
  for (int i = 0; i < SIZE; i++) { mx[i] = (float) i; my[i] = (float) i; }
  rot3d_model(mx, my, cosf(THETA), sinf(THETA));

  int diff = 0;
  for (int i = 0; i < SIZE; i++) {
    if (!same_bits(x[i], mx[i]) || !same_bits(y[i], my[i])) {
      if (diff < 5) printf("    mismatch at %d: emu (%g, %g) model (%g, %g)\n", i, x[i], y[i], mx[i], my[i]);
      diff++;
    }
  }
  printf("  emulator %s, %2d QPU(s): %d of %d vertices differ from model"
         " (x[1]=%.9g y[1]=%.9g x[191999]=%.9g y[191999]=%.9g)\n",
         name, n, diff, SIZE, x[1], y[1], x[SIZE - 1], y[SIZE - 1]);
}


void run_job(int job, bool emulate) {
  switch (job) {
  case 0: {
    compile_and_dump("rot3d_kernel1", rot3D_1, {1});
    DumpKernel<Int, Float, Float, Ptr<Float>, Ptr<Float>> k(rot3D_1);
    SharedArray<float> x(SIZE), y(SIZE);
    k.load(SIZE, cosf(THETA), sinf(THETA), &x, &y);
    write_uniforms("rot3d_kernel1", k, {"n (Int)", "cosTheta (Float)", "sinTheta (Float)",
                   "x (Ptr<Float>)", "y (Ptr<Float>)"}, {1});
    if (emulate) rot3d_emulate("kernel 1", k, 1);
    break;
  }
  case 1: {
    compile_and_dump("rot3d_kernel2", rot3D_2, {1, 4, 8, 12});
    DumpKernel<Int, Float, Float, Ptr<Float>, Ptr<Float>> k(rot3D_2);
    SharedArray<float> x(SIZE), y(SIZE);
    k.load(SIZE, cosf(THETA), sinf(THETA), &x, &y);
    write_uniforms("rot3d_kernel2", k, {"n (Int)", "cosTheta (Float)", "sinTheta (Float)",
                   "x (Ptr<Float>)", "y (Ptr<Float>)"}, {1, 4, 8, 12});
    if (emulate) {
      for (int n : {1, 4, 8, 12}) rot3d_emulate("kernel 2", k, n);
    }
    break;
  }
  default: break;
  }
}

int const NUM_JOBS = 2;


void print_example_facts() {
  float c = cosf(THETA), s = sinf(THETA), t = THETA;
  uint32_t ci, si, ti;
  memcpy(&ci, &c, 4); memcpy(&si, &s, 4); memcpy(&ti, &t, 4);
  printf("Rot3D: SIZE=%d, THETA=%.9g (0x%08x), cosf=%.9g (0x%08x), sinf=%.9g (0x%08x)\n",
         SIZE, t, ti, c, ci, s, si);
}

#else
///////////////////////////////////////////////////////////////////////////////
// HeatMap (991f42e)
///////////////////////////////////////////////////////////////////////////////

/** Scalar model of one heatmap_kernel launch, float ops in kernel order */
void heatmap_model(std::vector<float> const &src, std::vector<float> &dst, int height, int width) {
  for (int r = 1; r < height - 2; r++) {      // rows 1 .. height-3 (kernel: offset < height - 2)
    for (int x = 0; x < width; x++) {
      float out;
      if (x == 0 || x == width - 1) {
        out = 0.0f;
      } else {
        float const *u = &src[(r - 1) * width];
        float const *m = &src[r * width];
        float const *d = &src[(r + 1) * width];
        volatile float sum = u[x - 1];
        sum = sum + u[x];
        sum = sum + u[x + 1];
        sum = sum + m[x - 1];
        sum = sum + m[x + 1];
        sum = sum + d[x - 1];
        sum = sum + d[x];
        sum = sum + d[x + 1];
        volatile float t1 = sum * 0.125f;
        volatile float t2 = m[x] - t1;
        volatile float t3 = K * t2;
        out = m[x] - t3;
      }
      dst[r * width + x] = out;
    }
  }
}


int g_emulate_steps = 0;

void run_job(int job, bool emulate) {
  if (job != 0) return;

  char const *name = "heatmap_vector";
  compile_and_dump(name, heatmap_kernel, {1, 2, 4, 8, 12});

  int const W = settings.WIDTH, H = settings.HEIGHT, N = settings.SIZE;

  // Arrays and uniforms exactly as run_kernel() in Examples/HeatMap.cpp
  Float::Array mapA(N);
  Float::Array mapB(N);
  mapA.fill(0.0f);
  mapB.fill(0.0f);
  inject_hotspots(mapA);

  DumpKernel<Float::Ptr, Float::Ptr, Int, Int> k(heatmap_kernel);
  k.load(&mapA, &mapB, H, W);  // even steps
  write_uniforms(name, k, {"map (Float::Ptr) [even step: mapA]", "mapOut (Float::Ptr) [even: mapB]",
                 "height (Int)", "width (Int)"}, {1, 2, 4, 8, 12});
  {
    FILE *f = fopen(path(name, ".uniforms.txt").c_str(), "a");
    k.load(&mapB, &mapA, H, W);  // odd steps
    auto u = k.loaded_uniforms();
    fprintf(f, "\nOdd steps (i & 1): map = mapB = 0x%08x, mapOut = mapA = 0x%08x, height %d, width %d\n",
            (uint32_t) u[0], (uint32_t) u[1], u[2], u[3]);
    fclose(f);
  }

  if (!emulate || g_emulate_steps <= 0) return;

  // Initial state for the model
  std::vector<float> a(N), b(N);
  for (int i = 0; i < N; i++) { a[i] = mapA[i]; b[i] = mapB[i]; }

  for (int n : {1, 12}) {
    Float::Array eA(N), eB(N);
    for (int i = 0; i < N; i++) { eA[i] = a[i]; eB[i] = b[i]; }
    std::vector<float> ma = a, mb = b;

    k.setNumQPUs(n);
    for (int i = 0; i < g_emulate_steps; i++) {
      if (i & 1) {
        k.load(&eB, &eA, H, W);
        heatmap_model(mb, ma, H, W);
      } else {
        k.load(&eA, &eB, H, W);
        heatmap_model(ma, mb, H, W);
      }
      k.emu();
    }

    int diff = 0;
    double total = 0;
    for (int i = 0; i < N; i++) {
      if (!same_bits(eA[i], ma[i]) || !same_bits(eB[i], mb[i])) diff++;
      total += eB[i];
    }
    printf("  emulator heatmap, %2d QPU(s), %d steps: %d of %d cells differ from model;"
           " sum(mapB)=%.6f\n", n, g_emulate_steps, diff, 2 * N, total);
  }

  // Model only: the full 1500-step run, a reference for checking a whole run's maps
  {
    std::vector<float> ma = a, mb = b;
    for (int i = 0; i < settings.num_steps; i++) {
      if (i & 1) heatmap_model(mb, ma, H, W); else heatmap_model(ma, mb, H, W);
    }
    double sa = 0, sb = 0;
    for (int i = 0; i < N; i++) { sa += ma[i]; sb += mb[i]; }
    printf("  model, %d steps: sum(mapA)=%.6f sum(mapB)=%.6f, mapB[253*512+256]=%.9g\n",
           settings.num_steps, sa, sb, mb[253 * W + 256]);
    std::string p = g_outdir + "/heatmap_model_1500_mapB.f32";
    FILE *f = fopen(p.c_str(), "wb");
    fwrite(mb.data(), 4, mb.size(), f);
    fclose(f);
    p = g_outdir + "/heatmap_model_1500_mapA.f32";
    f = fopen(p.c_str(), "wb");
    fwrite(ma.data(), 4, ma.size(), f);
    fclose(f);
  }
}

int const NUM_JOBS = 1;


void print_example_facts() {
  printf("HeatMap: WIDTH=%d HEIGHT=%d SIZE=%d K=%.9g steps=%d points=%d\n",
         settings.WIDTH, settings.HEIGHT, settings.SIZE, K, settings.num_steps, settings.num_points);

  // Use the example's own inject_hotspots() on a plain array
  std::vector<float> arr(settings.SIZE, 0.0f);
  inject_hotspots(arr);
  for (int i = 0; i < settings.SIZE; i++) {
    if (arr[i] != 0.0f) {
      printf("  hot spot: row y=%3d col x=%3d (index %6d) = %.1f\n",
             i / settings.WIDTH, i % settings.WIDTH, i, arr[i]);
    }
  }
}
#endif

}  // anon namespace


int main(int argc, char const *argv[]) {
  if (argc < 2) {
    fprintf(stderr, "Usage: %s <outdir> [--emulate[=<heatmap steps>]]\n", argv[0]);
    return 1;
  }
  g_outdir = argv[1];
  bool emulate = false;
  for (int i = 2; i < argc; i++) {
    if (strncmp(argv[i], "--emulate", 9) == 0) {
      emulate = true;
#if defined(DUMP_HEATMAP)
      g_emulate_steps = (argv[i][9] == '=') ? atoi(argv[i] + 10) : 2;
#endif
    }
  }

#if defined(DUMP_HEATMAP)
  char const *fake_argv[] = { "HeatMap" };  // defaults, as a plain `HeatMap` invocation
  settings.init(1, fake_argv);
#endif
  print_example_facts();
  fflush(stdout);

  // Each job in its own process, so that no compiler state carries over between kernels
  for (int job = 0; job < NUM_JOBS; job++) {
    pid_t pid = fork();
    if (pid == 0) {
      run_job(job, emulate);
      fflush(stdout);
      _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      fprintf(stderr, "job %d failed (status 0x%x)\n", job, status);
      return 1;
    }
  }

  return 0;
}
