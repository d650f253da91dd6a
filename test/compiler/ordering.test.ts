// Ordering between QPUs: a semaphore up, a mutex release and the host interrupt say "my stores
// are done" to another QPU or the host, so the compiled code waits for a non-blocking store still
// under way (read vw_wait) before each of them (issue 10, item 1; docs/compiler.md).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Int, kernel, mutexLock, mutexUnlock, Ptr, store } from '../../src/index.ts';
import { handoffKernel } from '../helpers/lang.ts';

/** Fails at any release (sema up, mutex or host_int write) reached, in program order, with a store still unwaited for. */
function assertStoresFinishBeforeReleases(asm: string): void {
  let pending = false;
  for (const line of asm.split('\n').map((l) => l.trim())) {
    if (/^mov vw_addr,/.test(line)) pending = true;
    else if (/\bvw_wait\b/.test(line)) pending = false;
    else if (/^sema up\b|^mov (mutex|host_int),/.test(line)) assert.ok(!pending, `'${line}' with a store still under way:\n${asm}`);
  }
}

test('a non-blocking store is finished before a semaphore up', () => {
  assertStoresFinishBeforeReleases(handoffKernel().code().asm);
});

test('a non-blocking store is finished before the mutex is released', () => {
  const counter = kernel([Ptr(Int)], function counter(p) {
    mutexLock();
    store(p.load().add(1), p);
    mutexUnlock();
  }).setNumQPUs(4);
  assertStoresFinishBeforeReleases(counter.code().asm);
});
