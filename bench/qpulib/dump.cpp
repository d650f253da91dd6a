// Writes QPULib's own machine code for its Rot3D (versions 1-3) and HeatMap examples, for
// bench/published.ts: DIR/rot3d_v1.bin ... DIR/heat_step.bin, 8 bytes an instruction, low word
// first. Build it against QPULib (mn416/QPULib, master c2658a5) in emulation mode, in QPULib's
// Tests directory, where the examples are:
//   make CXX="g++ -O2" Rot3D HeatMap        # QPULib's objects, in obj/
//   cp .../bench/qpulib/dump.cpp . && g++ -O2 -std=c++0x -fpermissive -w -DEMULATION_MODE \
//     -I ../Lib dump.cpp obj/*.o obj/*/*.o -o dump && ./dump DIR
// The examples are compiled in, unchanged, with their main functions renamed (HeatMap.cpp
// defines the macro K, so no name below is K).
#include <QPULib.h>
#include <stdio.h>
#include <string>

#define main rot3d_main
#include "Rot3D.cpp"
#undef main
#define main heatmap_main
#include "HeatMap.cpp"
#undef main

static std::string dir = ".";

// The words QPULib's Kernel sends to the QPUs in QPU mode: encode() of the target code.
template <typename Kern> static void writeCode(Kern& k, const char* name) {
  Seq<uint32_t> code;
  encode(&k.targetCode, &code);
  std::string path = dir + "/" + name + ".bin";
  FILE* f = fopen(path.c_str(), "wb");
  if (!f || fwrite(code.elems, 4, code.numElems, f) != (size_t)code.numElems) { perror(path.c_str()); exit(1); }
  fclose(f);
  printf("%s: %d instructions\n", path.c_str(), code.numElems / 2);
}

int main(int argc, char** argv) {
  if (argc > 1) dir = argv[1];
  { auto k = compile(rot3D_1); writeCode(k, "rot3d_v1"); }
  { auto k = compile(rot3D_2); writeCode(k, "rot3d_v2"); }
  { auto k = compile(rot3D_3); writeCode(k, "rot3d_v3"); }
  { auto k = compile(step); writeCode(k, "heat_step"); }
  return 0;
}
