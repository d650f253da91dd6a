#!/usr/bin/env node
// The `qpu` command. qpu-ts is written in TypeScript and runs from its sources through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli/bin.ts');
