// Pins what the emulator reports for the seed kernels and the bench programs: per QPU the
// instructions executed, the cycles and the stall cycles by cause, and a digest of the arrays after
// the run. Speed work on the emulator must leave all of it exactly as it is (issue 12); a change to
// the compiler or the cycle model that moves these figures updates them here, on purpose, with the
// reason in its commit. Regenerate: node --import tsx test/helpers/seed-runs.ts
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { type SeedRun, seedRuns } from '../helpers/seed-runs.ts';

const PINNED: SeedRun[] = [
  {name: 'gcd v1, 1 QPU', qpus: ['585 instr, 2534 cycles, stalls 108/86/0/0/0'], memory: 'dda49d7c7e4e635a'},
  {name: 'gcd v2, 1 QPU', qpus: ['302 instr, 1402 cycles, stalls 108/86/0/0/0'], memory: 'dda49d7c7e4e635a'},
  {name: 'rot3D v1, 1 QPU', qpus: ['264110 instr, 2832484 cycles, stalls 28/1776016/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v1, 2 QPUs', qpus: ['264131 instr, 4320592 cycles, stalls 36/3264032/0/0/0', '264111 instr, 4320422 cycles, stalls 28/3263950/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v1, 12 QPUs', qpus: ['264231 instr, 25920540 cycles, stalls 0/24863050/0/566/0', '264111 instr, 25920034 cycles, stalls 36/24863554/0/0/0', '264111 instr, 25919584 cycles, stalls 0/24863140/0/0/0', '264111 instr, 25920124 cycles, stalls 36/24863644/0/0/0', '264111 instr, 25919674 cycles, stalls 0/24863230/0/0/0', '264111 instr, 25920214 cycles, stalls 36/24863734/0/0/0', '264111 instr, 25919764 cycles, stalls 0/24863320/0/0/0', '264111 instr, 25920304 cycles, stalls 36/24863824/0/0/0', '264111 instr, 25919854 cycles, stalls 0/24863410/0/0/0', '264111 instr, 25920394 cycles, stalls 36/24863914/0/0/0', '264111 instr, 25920484 cycles, stalls 36/24864004/0/0/0', '264111 instr, 25919944 cycles, stalls 28/24863472/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v2, 1 QPU', qpus: ['216036 instr, 2736224 cycles, stalls 80/1872000/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v2, 2 QPUs', qpus: ['216049 instr, 4320308 cycles, stalls 144/3455968/0/0/0', '216029 instr, 4320138 cycles, stalls 88/3455934/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v2, 12 QPUs', qpus: ['216149 instr, 25920244 cycles, stalls 48/25055124/0/476/0', '216029 instr, 25919828 cycles, stalls 144/25055568/0/0/0', '216029 instr, 25919378 cycles, stalls 48/25055214/0/0/0', '216029 instr, 25919918 cycles, stalls 144/25055658/0/0/0', '216029 instr, 25919468 cycles, stalls 48/25055304/0/0/0', '216029 instr, 25920008 cycles, stalls 144/25055748/0/0/0', '216029 instr, 25919558 cycles, stalls 48/25055394/0/0/0', '216029 instr, 25920098 cycles, stalls 144/25055838/0/0/0', '216029 instr, 25919198 cycles, stalls 48/25055034/0/0/0', '216029 instr, 25920188 cycles, stalls 144/25055928/0/0/0', '216029 instr, 25919738 cycles, stalls 144/25055478/0/0/0', '216029 instr, 25919648 cycles, stalls 88/25055444/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v3, 1 QPU', qpus: ['240042 instr, 2736244 cycles, stalls 76/1776000/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v3, 2 QPUs', qpus: ['120055 instr, 2160334 cycles, stalls 180/1679934/0/0/0', '120035 instr, 2160164 cycles, stalls 84/1679940/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'rot3D v3, 12 QPUs', qpus: ['20155 instr, 2160304 cycles, stalls 84/2079124/0/476/0', '20035 instr, 2159888 cycles, stalls 180/2079568/0/0/0', '20035 instr, 2159438 cycles, stalls 84/2079214/0/0/0', '20035 instr, 2159978 cycles, stalls 180/2079658/0/0/0', '20035 instr, 2159528 cycles, stalls 84/2079304/0/0/0', '20035 instr, 2160068 cycles, stalls 180/2079748/0/0/0', '20035 instr, 2159618 cycles, stalls 84/2079394/0/0/0', '20035 instr, 2160158 cycles, stalls 180/2079838/0/0/0', '20035 instr, 2159708 cycles, stalls 84/2079484/0/0/0', '20035 instr, 2160248 cycles, stalls 180/2079928/0/0/0', '20035 instr, 2159798 cycles, stalls 180/2079478/0/0/0', '20035 instr, 2159258 cycles, stalls 84/2079034/0/0/0'], memory: '17e77a22546a5ab4'},
  {name: 'sha256, 1 QPU', qpus: ['2411 instr, 10086 cycles, stalls 220/222/0/0/0'], memory: 'e3b4ee6b5148192e'},
  {name: 'sha256, 12 QPUs', qpus: ['2527 instr, 13720 cycles, stalls 544/2012/0/1056/0', '2407 instr, 13072 cycles, stalls 568/2876/0/0/0', '2407 instr, 12332 cycles, stalls 544/2160/0/0/0', '2407 instr, 13220 cycles, stalls 568/3024/0/0/0', '2407 instr, 12480 cycles, stalls 544/2308/0/0/0', '2407 instr, 13368 cycles, stalls 568/3172/0/0/0', '2407 instr, 12628 cycles, stalls 544/2456/0/0/0', '2407 instr, 13516 cycles, stalls 568/3320/0/0/0', '2407 instr, 13664 cycles, stalls 568/3468/0/0/0', '2407 instr, 12776 cycles, stalls 544/2604/0/0/0', '2407 instr, 12036 cycles, stalls 544/1864/0/0/0', '2407 instr, 12924 cycles, stalls 568/2728/0/0/0'], memory: 'c176442954ab4b20'},
  {name: 'heat, 1 QPU', qpus: ['718764 instr, 2903386 cycles, stalls 28280/50/0/0/0'], memory: 'fbb990bc464aaccb'},
  {name: 'heat, 2 QPUs', qpus: ['359422 instr, 1472124 cycles, stalls 31360/3076/0/0/0', '359401 instr, 1471950 cycles, stalls 34288/58/0/0/0'], memory: 'fbb990bc464aaccb'},
  {name: 'heat, 4 QPUs', qpus: ['179766 instr, 1406858 cycles, stalls 16180/671614/0/0/0', '179725 instr, 1406514 cycles, stalls 15156/672458/0/0/0', '179725 instr, 1406784 cycles, stalls 15680/672204/0/0/0', '179725 instr, 1406604 cycles, stalls 13648/674056/0/0/0'], memory: 'fbb990bc464aaccb'},
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
