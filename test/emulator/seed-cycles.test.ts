// Pins what the emulator reports for the seed kernels and the bench programs: per QPU the
// instructions executed, the cycles and the stall cycles by cause, and a digest of the arrays after
// the run. Speed work on the emulator must leave all of it exactly as it is (issue 12); a change to
// the compiler or the cycle model that moves these figures updates them here, on purpose, with the
// reason in its commit. Regenerate: node --import tsx test/helpers/seed-runs.ts
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type SeedRun, seedRuns } from '../helpers/seed-runs.ts';

const PINNED: SeedRun[] = [
  {name: 'gcd v1, 1 QPU', qpus: ['601 instr, 2640 cycles, stalls 0/236/0/0/0'], memory: 'dda49d7c7e4e635a'},
  {name: 'gcd v2, 1 QPU', qpus: ['318 instr, 1508 cycles, stalls 0/236/0/0/0'], memory: 'dda49d7c7e4e635a'},
  {name: 'rot3D v1, 1 QPU', qpus: ['276125 instr, 2928528 cycles, stalls 20/1824008/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v1, 2 QPUs', qpus: ['276135 instr, 4320600 cycles, stalls 28/3216032/0/0/0', '276115 instr, 4320430 cycles, stalls 20/3215950/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v1, 12 QPUs', qpus: ['276235 instr, 25920556 cycles, stalls 0/24815050/0/566/0', '276115 instr, 25920050 cycles, stalls 28/24815562/0/0/0', '276115 instr, 25919600 cycles, stalls 0/24815140/0/0/0', '276115 instr, 25920140 cycles, stalls 28/24815652/0/0/0', '276115 instr, 25919690 cycles, stalls 0/24815230/0/0/0', '276115 instr, 25920230 cycles, stalls 28/24815742/0/0/0', '276115 instr, 25919780 cycles, stalls 0/24815320/0/0/0', '276115 instr, 25920320 cycles, stalls 28/24815832/0/0/0', '276115 instr, 25919870 cycles, stalls 0/24815410/0/0/0', '276115 instr, 25920410 cycles, stalls 28/24815922/0/0/0', '276115 instr, 25920500 cycles, stalls 28/24816012/0/0/0', '276115 instr, 25919960 cycles, stalls 20/24815480/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v2, 1 QPU', qpus: ['240039 instr, 2784244 cycles, stalls 88/1824000/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v2, 2 QPUs', qpus: ['240049 instr, 4320308 cycles, stalls 144/3359968/0/0/0', '240029 instr, 4320138 cycles, stalls 88/3359934/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v2, 12 QPUs', qpus: ['240149 instr, 25920244 cycles, stalls 48/24959124/0/476/0', '240029 instr, 25919828 cycles, stalls 144/24959568/0/0/0', '240029 instr, 25919378 cycles, stalls 48/24959214/0/0/0', '240029 instr, 25919918 cycles, stalls 144/24959658/0/0/0', '240029 instr, 25919468 cycles, stalls 48/24959304/0/0/0', '240029 instr, 25920008 cycles, stalls 144/24959748/0/0/0', '240029 instr, 25919558 cycles, stalls 48/24959394/0/0/0', '240029 instr, 25920098 cycles, stalls 144/24959838/0/0/0', '240029 instr, 25919198 cycles, stalls 48/24959034/0/0/0', '240029 instr, 25920188 cycles, stalls 144/24959928/0/0/0', '240029 instr, 25919738 cycles, stalls 144/24959478/0/0/0', '240029 instr, 25919648 cycles, stalls 88/24959444/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v3, 1 QPU', qpus: ['240044 instr, 2784260 cycles, stalls 84/1824000/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v3, 2 QPUs', qpus: ['120054 instr, 2160330 cycles, stalls 180/1679934/0/0/0', '120034 instr, 2160160 cycles, stalls 84/1679940/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v3, 12 QPUs', qpus: ['20154 instr, 2160300 cycles, stalls 84/2079124/0/476/0', '20034 instr, 2159884 cycles, stalls 180/2079568/0/0/0', '20034 instr, 2159434 cycles, stalls 84/2079214/0/0/0', '20034 instr, 2159974 cycles, stalls 180/2079658/0/0/0', '20034 instr, 2159524 cycles, stalls 84/2079304/0/0/0', '20034 instr, 2160064 cycles, stalls 180/2079748/0/0/0', '20034 instr, 2159614 cycles, stalls 84/2079394/0/0/0', '20034 instr, 2160154 cycles, stalls 180/2079838/0/0/0', '20034 instr, 2159704 cycles, stalls 84/2079484/0/0/0', '20034 instr, 2160244 cycles, stalls 180/2079928/0/0/0', '20034 instr, 2159794 cycles, stalls 180/2079478/0/0/0', '20034 instr, 2159254 cycles, stalls 84/2079034/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'sha256, 1 QPU', qpus: ['2502 instr, 11884 cycles, stalls 0/1876/0/0/0'], memory: 'e3b4ee6b5148192e'},
  {name: 'sha256, 12 QPUs', qpus: ['2612 instr, 32287 cycles, stalls 0/20013/0/1826/0', '2492 instr, 30701 cycles, stalls 0/20733/0/0/0', '2492 instr, 31151 cycles, stalls 0/21183/0/0/0', '2492 instr, 31421 cycles, stalls 0/21453/0/0/0', '2492 instr, 31691 cycles, stalls 0/21723/0/0/0', '2492 instr, 31781 cycles, stalls 0/21813/0/0/0', '2492 instr, 31871 cycles, stalls 0/21903/0/0/0', '2492 instr, 31961 cycles, stalls 0/21993/0/0/0', '2492 instr, 32051 cycles, stalls 0/22083/0/0/0', '2492 instr, 32141 cycles, stalls 0/22173/0/0/0', '2492 instr, 32231 cycles, stalls 0/22263/0/0/0', '2492 instr, 29351 cycles, stalls 0/19383/0/0/0'], memory: 'c176442954ab4b20'},
  {name: 'heat, 1 QPU', qpus: ['827124 instr, 3334826 cycles, stalls 26276/54/0/0/0'], memory: 'fbb990bc464aaccb'},
  {name: 'heat, 2 QPUs', qpus: ['413602 instr, 1683822 cycles, stalls 29112/70/0/232/0', '413582 instr, 1683766 cycles, stalls 26408/3030/0/0/0'], memory: 'fbb990bc464aaccb'},
  {name: 'heat, 4 QPUs', qpus: ['206856 instr, 1406862 cycles, stalls 10478/568960/0/0/0', '206816 instr, 1406432 cycles, stalls 12668/566500/0/0/0', '206816 instr, 1406522 cycles, stalls 13632/565626/0/0/0', '206816 instr, 1406792 cycles, stalls 12748/566780/0/0/0'], memory: 'fbb990bc464aaccb'},
  {name: 'mandel, 1 QPU', qpus: ['320023 instr, 1280178 cycles, stalls 0/86/0/0/0'], memory: '16ab8b8fada8a321'},
  {name: 'vadd, 1 QPU', qpus: ['34019 instr, 344138 cycles, stalls 208000/62/0/0/0'], memory: 'eec19bc6af0b3b6d'},
  {name: 'mandel, 12 QPUs', qpus: ['26679 instr, 106892 cycles, stalls 0/176/0/0/0', '26679 instr, 106982 cycles, stalls 0/266/0/0/0', '26679 instr, 107072 cycles, stalls 0/356/0/0/0', '26679 instr, 107162 cycles, stalls 0/446/0/0/0', '26679 instr, 107252 cycles, stalls 0/536/0/0/0', '26679 instr, 107342 cycles, stalls 0/626/0/0/0', '26679 instr, 107432 cycles, stalls 0/716/0/0/0', '26679 instr, 107522 cycles, stalls 0/806/0/0/0', '26679 instr, 107612 cycles, stalls 0/896/0/0/0', '26679 instr, 107702 cycles, stalls 0/986/0/0/0', '26679 instr, 107792 cycles, stalls 0/1076/0/0/0', '26679 instr, 106802 cycles, stalls 0/86/0/0/0'], memory: 'e47503b4aca9984b'},
  {name: 'vadd, 12 QPUs', qpus: ['2841 instr, 178600 cycles, stalls 17264/149972/0/0/0', '2841 instr, 179140 cycles, stalls 17312/150464/0/0/0', '2841 instr, 178690 cycles, stalls 17264/150062/0/0/0', '2841 instr, 179230 cycles, stalls 17312/150554/0/0/0', '2841 instr, 178780 cycles, stalls 17264/150152/0/0/0', '2841 instr, 179320 cycles, stalls 17312/150644/0/0/0', '2841 instr, 178870 cycles, stalls 17264/150242/0/0/0', '2841 instr, 179410 cycles, stalls 17312/150734/0/0/0', '2841 instr, 178960 cycles, stalls 17264/150332/0/0/0', '2841 instr, 179500 cycles, stalls 17312/150824/0/0/0', '2841 instr, 179050 cycles, stalls 17312/150374/0/0/0', '2841 instr, 178510 cycles, stalls 17264/149882/0/0/0'], memory: 'eec19bc6af0b3b6d'},
];

test('the seed kernels and bench programs run to the pinned instructions, cycles, stalls and results', () => {
  const seen: SeedRun[] = [...seedRuns()];
  assert.deepEqual(seen.map((r) => r.name), PINNED.map((r) => r.name));
  for (const [i, r] of seen.entries()) assert.deepEqual(r, PINNED[i], r.name);
});
