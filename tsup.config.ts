import { defineConfig } from 'tsup';
import type { Plugin } from 'esbuild';
import { fileURLToPath } from 'node:url';

/**
 * The Python bundle has no chart library: `vega` and `vega-lite` resolve to a module that throws an
 * RlAdvantagesError when loaded, which only an `--html` page asks for (the server and the JSON output never do).
 */
const noCharts: Plugin = {
  name: 'no-charts',
  setup(build) {
    build.onResolve({ filter: /^vega(-lite)?$/ }, (args) => ({ path: args.path, namespace: 'no-charts' }));
    build.onLoad({ filter: /.*/, namespace: 'no-charts' }, (args) => ({
      resolveDir: fileURLToPath(new URL('./src', import.meta.url)),
      loader: 'ts',
      contents:
        "import { RlAdvantagesError } from './errors.js';\n" +
        `throw new RlAdvantagesError(${JSON.stringify(
          `this build of rl-adv (the Python package's) has no chart library (${args.path}), so it writes no --html page: ` +
            'run the npm package (npx rl-adv) for the HTML pages',
        )}, { code: 'no_charts' });\n`,
    }));
  },
};

export default defineConfig([
  {
    // The package's entry points by concern (package.json "exports"): the root is what a training loop imports;
    // the others each one concern. Shared code goes to chunks (splitting, in CJS too), so a class such as
    // RlAdvantagesError is one class whichever subpath it is reached through, and the root loads no chart,
    // command-line or study code.
    entry: {
      index: 'src/index.ts',
      calibration: 'src/calibration/index.ts',
      stats: 'src/stats/index.ts',
      tuning: 'src/tuning/index.ts',
      study: 'src/study/index.ts',
      report: 'src/report/index.ts',
      data: 'src/data/index.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: false,
    target: 'node20',
    treeshake: true,
    splitting: true,
    shims: true,
    // Whitespace only: names and code stay as written (stack traces read as the source), the source maps map back.
    minifyWhitespace: true,
  },
  {
    // The kernel's worker thread, loaded by src/kernels/kernel-threads.ts from next to the
    // module file (ESM, which the CJS build can load too: package.json has "type": "module").
    entry: { 'kernel-worker': 'src/kernels/kernel-worker.ts' },
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
  {
    // The command line the Python package ships, built into the package (python/hatch_build.py checks it is
    // there): serve and the commands its wrappers run in one file, every dependency inlined, no chart code;
    // beside it the kernel's worker, which it loads as ./kernel-worker.js.
    entry: { 'rl-adv': 'src/serve-bundle.ts', 'kernel-worker': 'src/kernels/kernel-worker.ts' },
    outDir: 'python/rl_advantages/_js',
    format: ['esm'],
    target: 'node20',
    splitting: false,
    noExternal: [/.*/],
    esbuildPlugins: [noCharts],
    // Inlined CommonJS dependencies call require(): give the ESM file one.
    banner: { js: "import { createRequire as __rlAdvCreateRequire } from 'node:module'; const require = __rlAdvCreateRequire(import.meta.url);" },
  },
]);
