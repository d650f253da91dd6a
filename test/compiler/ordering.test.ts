// Ordering between QPUs: a semaphore up, a mutex release and the host interrupt say "my stores
// are done" to another QPU or the host, so the compiled code waits for a non-blocking store still
// under way (read vw_wait) before each of them (issue 10, item 1; docs/compiler.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Int, kernel, mutexLock, mutexUnlock, Ptr, store } from '../../src/index.ts';
import { handoffKernel } from '../helpers/lang.ts';

const STORE = /^\S+ vw_addr,/; // a DMA store starts when its address is written
const WAIT = /\bvw_wait\b/;
const RELEASE = /^sema up\b|^\S+ (mutex|host_int),/;

/**
 * Fails at any release (sema up, mutex or host_int write) reached, in program order, with a store
 * still unwaited for; returns the releases that had a store before them (since the last release),
 * the ones the check was about. Each operation of a paired instruction (`a; b`) counts.
 */
function assertStoresFinishBeforeReleases(asm: string): string[] {
  let pending = false;
  let stored = false;
  const checked: string[] = [];
  for (const line of asm.split('\n').map((l) => l.trim()))
    for (const op of line.split(';').map((o) => o.trim())) {
      if (STORE.test(op)) pending = stored = true;
      else if (WAIT.test(op)) pending = false;
      else if (RELEASE.test(op)) {
        assert.ok(!pending, `'${line}' with a store still under way:\n${asm}`);
        if (stored) checked.push(op);
        stored = false;
      }
    }
  return checked;
}

/** The check on a kernel's code: it must have a store before `release`, waited for; without the waits, it fails. */
function check(asm: string, release: RegExp): void {
  const checked = assertStoresFinishBeforeReleases(asm);
  assert.ok(checked.some((op) => release.test(op)), `no store before a release ${release} was seen (checked: ${checked.join(', ') || 'none'}):\n${asm}`);
  const unwaited = asm.replace(/^\s*(nop; )?read vw_wait$/gm, '').replace(/; read vw_wait$/gm, '');
  assert.throws(() => assertStoresFinishBeforeReleases(unwaited), /with a store still under way/);
}

test('a non-blocking store is finished before a semaphore up', () => {
  check(handoffKernel().code().asm, /^sema up, 0$/);
});

test('a non-blocking store is finished before the mutex is released', () => {
  const counter = kernel([Ptr(Int)], function counter(p) {
    mutexLock();
    store(p.load().add(1), p);
    mutexUnlock();
  }).setNumQPUs(4);
  check(counter.code().asm, /^mov mutex, 1$/);
});

test('a store is finished before the end of the kernel (its barrier and the host interrupt)', () => {
  const last = kernel([Ptr(Int)], function last(p) {
    store(Int(7), p);
  }).setNumQPUs(2);
  check(last.code().asm, /^sema up, 15$|^mov host_int, 1$/);
});
