import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // GSM8K, found (or downloaded into the cache) once for the whole run.
    globalSetup: ['test/global-setup.ts'],
    // A timeout is for a test that hangs, not one that is slow: on a 2-core machine with both cores busy (load 20
    // measured while other work ran) a 10 s test took over 60 s, so the limit leaves room for that.
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
