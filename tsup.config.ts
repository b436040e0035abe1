import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: false,
    target: 'node20',
    treeshake: true,
    shims: true,
  },
  {
    // The kernel's worker thread, loaded by src/internal/kernel-threads.ts from next to the
    // module file (ESM, which the CJS build can load too: package.json has "type": "module").
    entry: { 'kernel-worker': 'src/internal/kernel-worker.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
  },
  {
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
    banner: { js: '#!/usr/bin/env node' },
  },
]);
